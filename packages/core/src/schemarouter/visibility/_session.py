"""`RoutingSession`: one conversation's allow-set, which only grows, and its find-tools search.

Routed turn by turn, a model's tool list changes every turn, so the provider's prompt cache
(tool definitions sit at the front of the prompt) is billed again each time; and a tool the
router missed is out of the model's reach. A session keeps every tool offered so far, in the
order first offered, and appends each turn's new tools, so each turn's list starts with the
previous one; the find-tools meta-tool (`FIND_TOOLS`) lets the model ask for what is missing.
Both go through the same `AllowSetProvider` the adapters use, so static rules, principals and
the no-route gate hold at every step.

What each outcome offers:

| request's outcome | tools offered |
|---|---|
| route | the conversation's list (with this request's tools appended), plus find-tools |
| uncertain | the same: the list, this request's offer (all marked uncertain) appended, plus find-tools |
| no route | the list so far (nothing new appended), plus find-tools; on a first turn, find-tools alone |

With find-tools off (`SessionLimits(find_tools=False)`), a no-route first turn offers nothing.
Adapters offer find-tools first (`SessionOffer.tool_names`): one definition that never changes
at the head of the list keeps the list as offered a growing prefix too.

A turn is one request: a call of `offer` with the request of the previous call is the next model
step of the same turn (every step of one agent task under one user message): nothing is
appended, but the provider is still asked, so that a provider that fails or whose static rules
now hide a tool is heard on every step (a hidden tool stays in the state and is not offered).
The same message sent again as a new turn is, for the session, the same turn.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from ..catalog._capability import Capability
from ..catalog._catalog import Catalog
from ..errors import RoutingError, SessionStateError, UserError
from ..retrieval._results import RouteOutcome
from ..telemetry._decisions import find_tools_span, found, offered, routing_span
from ._allow_set import AllowSet, AllowSetProvider, require_provider
from ._find_tools import FIND_TOOLS, FindToolsResult, FoundTool, one_line
from ._session_state import SessionKey, SessionState, principal_key, request_key, session_key

__all__ = ["RoutingSession", "SessionLimits", "SessionOffer"]

logger = logging.getLogger("schemarouter.session")


@dataclass(frozen=True, slots=True)
class SessionLimits:
    """How far a conversation's list may grow, what happens at the limit, and find-tools' bounds."""

    max_tools: int = 24
    """Tools the list holds at most (find-tools aside)."""
    max_schema_bytes: int = 64 * 1024
    """Bytes of tool definitions the list holds at most (`offered_bytes` of each tool)."""
    on_full: Literal["reset", "stop"] = "reset"
    """When adding a turn's tools would pass a bound: `reset` starts the list over from those tools
    (one deliberate break of the cached prefix, counted in `SessionState.resets`); `stop` keeps the
    list as it is and adds nothing more (counted in `SessionState.held_back`), leaving find-tools'
    result to say what it could not add."""
    find_tools: bool = True
    """Offer the find-tools tool. Off, a request with no route offers nothing (as a router alone does)."""
    find_results: int = 5
    """Tools one find-tools call adds at most."""
    find_calls_per_turn: int = 5
    """find-tools calls answered per turn (a turn is one request: every model step of one agent
    task under one user message is the same turn); more get a short refusal."""
    max_tool_share: float = 0.25
    """The share of `max_schema_bytes` one tool may take at most: a tool whose definition alone
    is larger is not kept (counted in `SessionState.held_back`; find-tools names it as too large),
    so that one oversized schema cannot fill a conversation's budget and push out the rest.
    1.0 lets any tool that fits the budget in."""

    def __post_init__(self) -> None:
        for name in ("max_tools", "max_schema_bytes", "find_results", "find_calls_per_turn"):
            value: object = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UserError(f"SessionLimits.{name} must be an int >= 1, got {value!r}")
        if self.on_full not in ("reset", "stop"):
            raise UserError(f"SessionLimits.on_full must be 'reset' or 'stop', got {self.on_full!r}")
        if not isinstance(self.find_tools, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"SessionLimits.find_tools must be a bool, got {self.find_tools!r}")
        share: object = self.max_tool_share
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"SessionLimits.max_tool_share must be a number in (0, 1], got {share!r}")

    def largest_tool(self) -> int:
        """Bytes one tool's definition may take at most to be kept (`max_tool_share`)."""
        return int(self.max_schema_bytes * self.max_tool_share)


@dataclass(frozen=True, slots=True)
class SessionOffer:
    """What the model may see on this step of the conversation."""

    routes: tuple[str, ...]
    """The conversation's tools, in first-offered order (find-tools aside)."""
    names: tuple[str, ...]
    find_tools: bool
    """Whether the find-tools tool is offered too (after the others)."""
    added: tuple[str, ...]
    """Routes this call appended (or, after a reset, the routes the list restarted with)."""
    reset: bool
    """The list started over on this call (the budget was reached; see `SessionLimits.on_full`)."""
    outcome: RouteOutcome
    """This turn's request's own outcome."""
    allow_set: AllowSet
    """This turn's request's own allow-set (its decisions say why each tool is in or out)."""
    schema_bytes: int
    """Bytes of the offered tool definitions (find-tools aside)."""

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Every tool name as the model should be offered them: find-tools first (when on), then
        the conversation's tools. One unchanging definition at the head keeps the whole list a
        growing prefix, turn after turn, as the provider's prompt cache needs."""
        return (FIND_TOOLS.name, *self.names) if self.find_tools else self.names

    def __contains__(self, name_or_route: object) -> bool:
        return name_or_route in self.names or name_or_route in self.routes


class RoutingSession:
    """One conversation of one principal over one `AllowSetProvider` (usually a `Visibility`).

    `offer(request)` is called for each model step: a request not seen on the previous call
    starts a new turn and is routed; its tools are appended to the conversation's list. A
    repeated request (the next model step of the same turn) appends nothing and sees what
    find-tools added; static rules (`Visibility.permits`) are checked on every step.
    `find_tools(query)` answers the find-tools meta-tool. `state` is the plain data to save with
    the framework's run state; pass it back as `state=` to resume. Thread-safe.
    """

    def __init__(
        self,
        provider: AllowSetProvider,
        *,
        catalog: Catalog | None = None,
        conversation_id: str | None = None,
        principal: Hashable | None = None,
        limits: SessionLimits | None = None,
        state: SessionState | Mapping[str, Any] | None = None,
        key: SessionKey | None = None,
    ) -> None:
        """`catalog` defaults to the provider's. `state`, when given, must verify under `key`
        (the application's `session_key`, or this process's own when None) and belong to the
        same principal and, when `conversation_id` is given, to that conversation, within
        `limits`: a `SessionStateError` otherwise (no tool of an edited state, or of another
        principal's or conversation's, is ever offered)."""
        provider = require_provider(provider)
        found = catalog if catalog is not None else provider.catalog
        if not isinstance(found, Catalog):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"catalog must be a schemarouter.Catalog, got {type(found).__name__}")
        if conversation_id is not None and not isinstance(conversation_id, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"conversation_id must be a string, got {type(conversation_id).__name__}")
        self._provider = provider
        self._catalog = found
        self._principal = principal
        self._limits = limits if limits is not None else SessionLimits()
        self._key = session_key(key)
        self._lock = threading.Lock()
        principal_id = principal_key(principal)
        if state is None:
            self._state = SessionState(conversation_id or "", principal_id, found.version).sealed(self._key)
        else:
            loaded = state if isinstance(state, SessionState) else SessionState.from_dict(state)
            self._state = self._checked(loaded, principal_id, conversation_id)
            self._set(self._revalidated(self._state))

    def _checked(self, state: SessionState, principal_id: str, conversation_id: str | None) -> SessionState:
        """`state` when it may be resumed by this session; `SessionStateError` saying why not."""
        name = state.conversation_id
        if not state.verifies(self._key):
            raise SessionStateError(
                f"the saved state of conversation {name!r} fails its seal: it was edited, relabelled, "
                "or sealed with another session_key (give every process that shares conversations "
                "the same session_key); none of its tools is offered"
            )
        if state.principal != principal_id:
            raise SessionStateError(
                f"conversation {name!r} belongs to another principal: its tools are not offered to this one"
            )
        if conversation_id is not None and name != conversation_id:
            raise SessionStateError(
                f"the saved state belongs to conversation {name!r}, not {conversation_id!r}: "
                "give each conversation its own state"
            )
        limits = self._limits
        over: list[str] = []
        if len(state.routes) > limits.max_tools:
            over.append(f"{len(state.routes)} tools (max_tools={limits.max_tools})")
        known = [route for route in state.routes if route in self._catalog]
        if self._bytes(known) > limits.max_schema_bytes:
            over.append(f"{self._bytes(known)} schema bytes (max_schema_bytes={limits.max_schema_bytes})")
        if state.find_calls > limits.find_calls_per_turn:
            over.append(f"{state.find_calls} find-tools calls this turn (limit {limits.find_calls_per_turn})")
        if len(set(state.routes)) != len(state.routes):
            over.append("a tool listed twice")
        if over:
            raise SessionStateError(
                f"the saved state of conversation {name!r} is over this session's limits: {'; '.join(over)}"
            )
        return state

    # -- state ------------------------------------------------------------------------------------

    @property
    def state(self) -> SessionState:
        """The plain data to save (`state.to_dict()`) and pass back as `state=` to resume."""
        return self._state

    @property
    def limits(self) -> SessionLimits:
        return self._limits

    @property
    def routes(self) -> tuple[str, ...]:
        return self._state.routes

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._catalog[route].name for route in self._state.routes)

    def _revalidated(self, state: SessionState) -> SessionState:
        """`state` over this catalog: routes it no longer has are dropped (and counted)."""
        if state.catalog_version == self._catalog.version:
            return state
        kept = tuple(route for route in state.routes if route in self._catalog)
        gone = len(state.routes) - len(kept)
        if gone:
            logger.warning(
                "conversation %r: %d tool(s) are gone from the catalog and are no longer offered",
                state.conversation_id,
                gone,
            )
        return replace(
            state,
            routes=kept,
            catalog_version=self._catalog.version,
            dropped_stale=state.dropped_stale + gone,
        )

    def _bytes(self, routes: Sequence[str]) -> int:
        return sum(self._catalog[route].schema_bytes for route in routes)

    def _append(
        self, state: SessionState, new: Sequence[str], keep: Sequence[str] = ()
    ) -> tuple[SessionState, tuple[str, ...], bool]:
        """`new` routes appended to the list within the budget: the new state, the routes added
        (after a reset, every route the list restarted with) and whether the list was reset. A
        reset starts the list over from `keep` (the current turn's own tools), then `new`."""
        limits = self._limits
        fresh = [route for route in dict.fromkeys(new) if route not in state.routes]
        too_large = [route for route in fresh if self._catalog[route].schema_bytes > limits.largest_tool()]
        if too_large:
            logger.info(
                "conversation %r: %s not kept: each alone would take more than %d bytes of the budget",
                state.conversation_id,
                ", ".join(too_large),
                limits.largest_tool(),
            )
            state = replace(state, held_back=state.held_back + len(too_large))
            fresh = [route for route in fresh if route not in too_large]
            new = [route for route in new if route not in too_large]
        if not fresh:
            return state, (), False
        grown = (*state.routes, *fresh)
        if self._fits(grown):
            return replace(state, routes=grown), tuple(fresh), False
        if limits.on_full == "stop":
            return replace(state, held_back=state.held_back + len(fresh)), (), False
        start: list[str] = []
        for route in dict.fromkeys((*keep, *new)):
            if route in self._catalog and self._fits([*start, route]):
                start.append(route)
        logger.info(
            "conversation %r: the tool list reached its budget and starts over", state.conversation_id
        )
        held = sum(route not in start for route in fresh)
        state = replace(state, routes=tuple(start), resets=state.resets + 1, held_back=state.held_back + held)
        return state, tuple(start), True

    def _fits(self, routes: Sequence[str]) -> bool:
        limits = self._limits
        return len(routes) <= limits.max_tools and self._bytes(routes) <= limits.max_schema_bytes

    # -- turns ------------------------------------------------------------------------------------

    def _permits(self, route: str) -> bool:
        """The provider's decision now: may this conversation's principal be shown `route`?"""
        try:
            return route in self._catalog and self._provider.permits(route, self._principal) is True
        except Exception as exc:
            raise RoutingError(f"the provider's permits raised {type(exc).__name__}: {exc}") from exc

    def _set(self, state: SessionState) -> SessionState:
        """Keep `state`, sealed when it changed (the next steps of a turn change nothing, and
        cost no seal); called with the lock held."""
        if state is not self._state:
            self._state = state.sealed(self._key)
        return self._state

    def offer(self, request: str) -> SessionOffer:
        """What the model may see for `request` on this step (see the module docstring)."""
        with routing_span("session.offer") as span:
            return offered(span, self._step(request), self._state)

    def _step(self, request: str) -> SessionOffer:
        if not isinstance(request, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"request must be a string, got {type(request).__name__}")
        key = request_key(request)
        # Asked on every step, the next steps of a turn included: a provider that fails now (or
        # whose rules changed while a call waited for approval) must be heard before anything
        # is offered. Only a new turn's tools are appended.
        allow = self._provider.allow_set(request, self._principal)
        if not isinstance(allow, AllowSet):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise RoutingError(f"the provider's allow_set gave {type(allow).__name__}, not an AllowSet")
        with self._lock:
            state = self._revalidated(self._state)
            added: tuple[str, ...] = ()
            reset = False
            if key != state.turn_request or state.turn == 0:
                routes = tuple(route for route in allow.routes if self._permits(route))
                state = replace(
                    state, turn=state.turn + 1, turn_request=key, turn_routes=routes, find_calls=0
                )
                state, added, reset = self._append(state, routes)
            state = self._set(state)
        return self._offer(state, added, reset, allow)

    def _offer(
        self, state: SessionState, added: tuple[str, ...], reset: bool, allow: AllowSet
    ) -> SessionOffer:
        # Every kept tool is asked about on every step: a tool the rules now deny (changed while
        # the conversation ran, or never permitted to this principal) is not offered. It stays in
        # the state and comes back if the rule goes: stored state narrows, never widens.
        routes = tuple(route for route in state.routes if self._permits(route))
        return SessionOffer(
            routes=routes,
            names=tuple(self._catalog[route].name for route in routes),
            find_tools=self._limits.find_tools,
            added=tuple(route for route in added if route in routes),
            reset=reset,
            outcome=allow.outcome,
            allow_set=allow,
            schema_bytes=self._bytes(routes),
        )

    def find_tools(self, query: str) -> FindToolsResult:
        """Answer the find-tools meta-tool: search with the provider, add the best tools not
        listed yet to the list for the next model step, and say so.

        The provider's `search(query, principal, k=...)` (for a `Visibility`: the same index,
        rules and principal as routing; tools the query names outright first, then the
        ranking's best with any evidence for it) is asked past the list it already gave, with
        room for every listed tool and `find_results` more: the best tools it finds that the
        list does not hold yet are added, in its order, so a call that repeats the request
        reaches the tools ranked just past what routing offered. Each tool found is checked
        with the provider's `permits` before it is added. Runs no tool body; at most
        `find_results` tools per call and `find_calls_per_turn` calls per turn."""
        with find_tools_span() as span:
            return found(span, self._find(query), self._state, FIND_TOOLS.name)

    def _find(self, query: str) -> FindToolsResult:
        limits = self._limits
        text = query.strip() if isinstance(query, str) else ""  # pyright: ignore[reportUnnecessaryIsInstance]
        if not limits.find_tools:
            return FindToolsResult(text, (), (), refused="turned_off")
        if not text:
            return FindToolsResult(text, (), (), refused="empty_query")
        with self._lock:
            if self._state.find_calls >= limits.find_calls_per_turn:
                return FindToolsResult(text, (), (), refused="too_many_calls")
            listed = len(self._set(replace(self._state, find_calls=self._state.find_calls + 1)).routes)
        # past the list it already has: room for every listed tool and `find_results` more
        allow = self._provider.search(text[:500], self._principal, k=listed + limits.find_results)
        if not isinstance(allow, AllowSet):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise RoutingError(f"the provider's search gave {type(allow).__name__}, not an AllowSet")
        found = [route for route in allow.routes if self._permits(route)]
        with self._lock:
            state = self._revalidated(self._state)
            before = set(state.routes)
            new = [route for route in found if route not in before][: limits.find_results]
            state, _, _ = self._append(state, new, keep=state.turn_routes)
            state = self._set(state)
        now = set(state.routes)
        return FindToolsResult(
            text,
            added=tuple(self._found(r) for r in new if r in now),
            already=tuple(self._found(r) for r in found if r in before and r in now)[: limits.find_results],
            held_back=tuple(self._found(r) for r in new if r not in now),
        )

    def _found(self, route: str) -> FoundTool:
        cap: Capability = self._catalog[route]
        return FoundTool(route, cap.name, one_line(cap.description or ""))
