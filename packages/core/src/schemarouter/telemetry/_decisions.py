"""What routing spans record: a decision (`Visibility.allow_set` / `search`), a conversation's
step (`RoutingSession.offer`) and a find-tools call (`RoutingSession.find_tools`).

Each recorder is called on the way out of its span's `with` block, returns what it was given,
and does nothing unless the span is recording (so `AllowSet.decisions`, worked out lazily, is
read only then). Request text and find-tools queries are added only when content recording is
on (`configure`); a principal is recorded as a digest of its identity, never its value.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Sequence
from typing import Any, Protocol, TypeVar

from .._principal import principal_identity
from ._metrics import instruments
from ._settings import record_content
from ._span import Traced, guarded, traced

__all__ = ["decided", "find_tools_span", "found", "offered", "principal_id", "routing_span"]

TOP_SCORES = 5
"""Scores recorded per decision at most (the best first)."""


class _Capability(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def schema_bytes(self) -> int: ...


class _Catalog(Protocol):
    def __len__(self) -> int: ...
    def get(self, route: str) -> Any: ...


class _Decision(Protocol):
    @property
    def visible(self) -> bool: ...
    @property
    def reason(self) -> str: ...
    @property
    def score(self) -> float | None: ...


class _AllowSet(Protocol):
    @property
    def query(self) -> str: ...
    @property
    def principal(self) -> Hashable | None: ...
    @property
    def catalog_version(self) -> str: ...
    @property
    def names(self) -> tuple[str, ...]: ...
    @property
    def routes(self) -> tuple[str, ...]: ...
    @property
    def reason(self) -> str: ...
    @property
    def outcome(self) -> str: ...
    @property
    def request_cut(self) -> int: ...
    @property
    def decisions(self) -> Sequence[_Decision]: ...


class _Router(Protocol):
    @property
    def mode(self) -> str: ...


A = TypeVar("A", bound=_AllowSet)


def principal_id(principal: Hashable | None) -> str:
    """The principal as recorded: the digest conversations already key it by (its identity,
    hashed), never its value."""
    identity = repr(principal_identity(principal))
    return hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _bytes(catalog: _Catalog, routes: Sequence[str]) -> int:
    total = 0
    for route in routes:
        cap: _Capability | None = catalog.get(route)
        total += cap.schema_bytes if cap is not None else 0
    return total


# -- routing decisions (Visibility.allow_set, Visibility.search) -----------------------------------


def decided(span: Traced, allow: A, provider: object, k: int) -> A:
    """Record the allow-set `provider` (a `Visibility`) gave; `allow` back."""
    if not span.recording:
        return allow
    with guarded("a decision"):
        catalog: _Catalog = getattr(provider, "catalog", None) or _NoCatalog()
        router: _Router | None = getattr(provider, "router", None)
        decisions = allow.decisions
        scores = sorted((d.score for d in decisions if d.score is not None), reverse=True)[:TOP_SCORES]
        offered_bytes = _bytes(catalog, allow.routes)
        attributes = span.attributes
        attributes.update(
            {
                "gen_ai.operation.name": "retrieval",
                "schemarouter.outcome": allow.outcome,
                "schemarouter.reason": allow.reason,
                "schemarouter.k": k,
                "schemarouter.mode": router.mode if router is not None else "custom",
                "schemarouter.tools.offered": list(allow.names),
                "schemarouter.routes.offered": list(allow.routes),
                "schemarouter.offered.bytes": offered_bytes,
                "schemarouter.candidates.count": len(decisions),
                "schemarouter.uncertain.count": sum(d.visible and d.reason == "uncertain" for d in decisions),
                "schemarouter.dropped.count": sum(not d.visible for d in decisions),
                "schemarouter.scores.top": [float(s) for s in scores],
                "schemarouter.catalog.version": allow.catalog_version,
                "schemarouter.catalog.tools": len(catalog),
                "schemarouter.principal": principal_id(allow.principal),
            }
        )
        if allow.request_cut:
            attributes["schemarouter.request.cut"] = allow.request_cut
        if record_content():
            attributes["gen_ai.retrieval.query.text"] = allow.query
    return allow


class _NoCatalog:
    def __len__(self) -> int:
        return 0

    def get(self, route: str) -> None:
        return None

    @property
    def version(self) -> str:
        return ""


def _decision_metrics(span: Traced, seconds: float, error: BaseException | None) -> None:
    attributes = span.attributes
    operation = span.name.removeprefix("schemarouter.")
    outcome = "error" if error is not None else str(attributes.get("schemarouter.outcome", ""))
    made = instruments()
    labels = {"schemarouter.operation": operation, "schemarouter.outcome": outcome}
    made.duration.record(seconds, labels)
    made.decisions.add(
        1, {**labels, "schemarouter.reason": str(attributes.get("schemarouter.reason", outcome))}
    )
    offered_bytes = attributes.get("schemarouter.offered.bytes")
    if isinstance(offered_bytes, int):
        made.offered_bytes.record(offered_bytes, {"schemarouter.operation": operation})


def routing_span(operation: str) -> Traced:
    """The span of one routing decision or conversation step (`operation`: `allow_set`,
    `search`, `session.offer`), counted in the routing metrics even when it fails."""
    return traced(f"schemarouter.{operation}", on_end=_decision_metrics)


# -- a conversation's step (RoutingSession.offer) --------------------------------------------------


class _State(Protocol):
    @property
    def conversation_id(self) -> str: ...
    @property
    def principal(self) -> str: ...
    @property
    def turn(self) -> int: ...
    @property
    def resets(self) -> int: ...
    @property
    def held_back(self) -> int: ...


class _Offer(Protocol):
    @property
    def routes(self) -> tuple[str, ...]: ...
    @property
    def tool_names(self) -> tuple[str, ...]: ...
    @property
    def added(self) -> tuple[str, ...]: ...
    @property
    def reset(self) -> bool: ...
    @property
    def outcome(self) -> str: ...
    @property
    def schema_bytes(self) -> int: ...
    @property
    def find_tools(self) -> bool: ...


OfferT = TypeVar("OfferT", bound=_Offer)


def _conversation(span: Traced, state: _State) -> None:
    attributes = span.attributes
    if state.conversation_id:
        attributes["gen_ai.conversation.id"] = state.conversation_id
    attributes["schemarouter.principal"] = state.principal
    attributes["schemarouter.session.turn"] = state.turn


def offered(span: Traced, offer: OfferT, state: _State) -> OfferT:
    """Record one step of a conversation (`state` is the session's state after it)."""
    if not span.recording:
        return offer
    with guarded("a conversation step"):
        _conversation(span, state)
        span.attributes.update(
            {
                "schemarouter.outcome": offer.outcome,
                "schemarouter.tools.offered": list(offer.tool_names),
                "schemarouter.session.tools": len(offer.routes),
                "schemarouter.session.added": list(offer.added),
                "schemarouter.session.reset": offer.reset,
                "schemarouter.session.resets": state.resets,
                "schemarouter.session.held_back": state.held_back,
                "schemarouter.find_tools.offered": offer.find_tools,
                "schemarouter.offered.bytes": offer.schema_bytes,
            }
        )
    return offer


# -- find-tools (RoutingSession.find_tools) ---------------------------------------------------------


class _Found(Protocol):
    @property
    def name(self) -> str: ...


class _FindResult(Protocol):
    @property
    def query(self) -> str: ...
    @property
    def added(self) -> Sequence[_Found]: ...
    @property
    def already(self) -> Sequence[_Found]: ...
    @property
    def held_back(self) -> Sequence[_Found]: ...
    @property
    def refused(self) -> str | None: ...


F = TypeVar("F", bound=_FindResult)


def find_tools_span() -> Traced:
    """The span of one find-tools call, counted in the find-tools metrics."""
    return traced("schemarouter.find_tools", on_end=_find_metrics)


def found(span: Traced, result: F, state: _State, tool_name: str) -> F:
    """Record a find-tools call's answer (`tool_name`: the find-tools tool's name)."""
    if not span.recording:
        return result
    with guarded("a find-tools call"):
        _conversation(span, state)
        outcome = "refused" if result.refused else "found" if result.added else "nothing"
        attributes = span.attributes
        attributes.update(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool_name,
                "schemarouter.find_tools.result": outcome,
                "schemarouter.find_tools.added": [tool.name for tool in result.added],
                "schemarouter.find_tools.already": len(result.already),
                "schemarouter.find_tools.held_back": len(result.held_back),
            }
        )
        if result.refused:
            attributes["schemarouter.find_tools.refused"] = result.refused
        if record_content():
            attributes["gen_ai.tool.call.arguments"] = json.dumps({"query": result.query}, ensure_ascii=False)
    return result


def _find_metrics(span: Traced, seconds: float, error: BaseException | None) -> None:
    made = instruments()
    attributes = span.attributes
    result = "error" if error is not None else str(attributes.get("schemarouter.find_tools.result", ""))
    made.find_calls.add(1, {"schemarouter.find_tools.result": result})
    added = attributes.get("schemarouter.find_tools.added", ())
    if isinstance(added, Sequence) and added:
        made.find_added.add(len(added))
