"""`Visibility`: the single object every adapter wraps. Query (+ principal) -> AllowSet."""

from __future__ import annotations

import threading
from collections.abc import Collection, Hashable
from dataclasses import dataclass
from typing import Literal

from ._abstention import RetrievalAbstentionPolicy
from ._catalog import Catalog
from ._index import LexicalIndex
from ._no_route import GateOutcome, decide
from ._results import AllowSet, Retrieval, ToolDecision
from ._router import SchemaRouter
from .errors import RoutingError, UserError

__all__ = ["Visibility"]

StaticRule = Literal["blocked", "not_allowed"]


def _names(values: Collection[str] | None, what: str) -> frozenset[str]:
    if values is None:
        return frozenset()
    if isinstance(values, str):
        raise UserError(f"{what} must be a collection of tool names, not a single string")
    return frozenset(values)


@dataclass(frozen=True, slots=True)
class _Rules:
    """Static rules resolved against one catalog version (computed once per version)."""

    catalog: Catalog
    index: LexicalIndex | None
    hidden: dict[int, str]
    """Tool position -> `blocked` or `not_allowed`."""
    hidden_routes: dict[str, StaticRule]
    always: tuple[tuple[str, str], ...]
    """(route, name) of the always-visible tools that are not blocked, in catalog order."""


class Visibility:
    """Which tools a model may see for a request.

    Static rules match whole tool names or whole routes (`read` never matches
    `read_all`). `blocked` wins over everything; when `allowed` is given, only those
    tools can be routed; `always_visible` tools are shown for every request (unless
    blocked) and do not count as a route. Pure and deterministic: no I/O, no tool call.
    Rules are resolved once per catalog version, so a request costs one retrieval.
    """

    def __init__(
        self,
        router: SchemaRouter,
        *,
        k: int = 5,
        abstention: RetrievalAbstentionPolicy | None = None,
        always_visible: Collection[str] | None = None,
        blocked: Collection[str] | None = None,
        allowed: Collection[str] | None = None,
    ) -> None:
        if k < 1:
            raise UserError("k must be >= 1")
        self.router = router
        self.k = k
        self.abstention = abstention
        self.always_visible = _names(always_visible, "always_visible")
        self.blocked = _names(blocked, "blocked")
        self.allowed = _names(allowed, "allowed") if allowed is not None else None
        self._rules: _Rules | None = None
        self._lock = threading.Lock()

    def _is_blocked(self, name: str, route: str) -> bool:
        return name in self.blocked or route in self.blocked

    def _is_allowed(self, name: str, route: str) -> bool:
        return self.allowed is None or name in self.allowed or route in self.allowed

    def _resolve_rules(self) -> _Rules:
        catalog = self.router.catalog
        rules = self._rules
        if rules is not None and rules.catalog is catalog:
            return rules
        with self._lock:
            rules = self._rules
            if rules is not None and rules.catalog is catalog:
                return rules
            hidden: dict[int, str] = {}
            hidden_routes: dict[str, StaticRule] = {}
            always: list[tuple[str, str]] = []
            for doc, cap in enumerate(catalog):
                if self._is_blocked(cap.name, cap.route):
                    hidden[doc] = hidden_routes[cap.route] = "blocked"
                    continue
                if not self._is_allowed(cap.name, cap.route):
                    hidden[doc] = hidden_routes[cap.route] = "not_allowed"
                if cap.name in self.always_visible or cap.route in self.always_visible:
                    always.append((cap.route, cap.name))
            index = self.router.index if self.router.mode == "lexical" else None
            rules = _Rules(catalog, index, hidden, hidden_routes, tuple(always))
            self._rules = rules
            return rules

    def _retrieve(self, query: str, rules: _Rules) -> Retrieval | GateOutcome:
        if rules.index is not None and rules.index.catalog is rules.catalog:
            return decide(rules.index, query, self.k, self.abstention, hidden=rules.hidden)
        # Another retriever (hybrid): ask past k so that static rules do not shrink the allow-set.
        depth = min(self.k + len(rules.hidden_routes), max(len(rules.catalog), 1))
        return self.router.retrieve(query, max(depth, self.k), policy=self.abstention, explain=False)

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        """The ordered allow-set for `query`. Raises `RoutingError` only if the router itself fails."""
        if not isinstance(query, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"query must be a string, got {type(query).__name__}")
        try:
            rules = self._resolve_rules()
            retrieval = self._retrieve(query, rules)
        except UserError:
            raise
        except Exception as exc:
            raise RoutingError(f"routing failed for this request: {type(exc).__name__}: {exc}") from exc

        decisions: list[ToolDecision] = []
        names: list[str] = []
        routes: list[str] = []
        beyond = f"k={self.k}"
        if isinstance(retrieval, GateOutcome):
            caps = retrieval.tools
            kept = [(caps[v.doc], round(v.score, 6), v.reason) for v in retrieval.kept]
            dropped = [(caps[v.doc], round(v.score, 6), v.reason) for v in retrieval.dropped]
        else:
            kept = [(c, c.score, c.reason) for c in retrieval.candidates]
            dropped = [(c, c.score, c.reason) for c in retrieval.dropped]
        for tool, score, detail in kept:
            rule = rules.hidden_routes.get(tool.route)
            if rule is not None:
                decisions.append(ToolDecision(tool.route, tool.name, False, rule, "static rule", score))
            elif len(routes) >= self.k:
                decisions.append(ToolDecision(tool.route, tool.name, False, "beyond_k", beyond, score))
            else:
                decisions.append(ToolDecision(tool.route, tool.name, True, "routed", detail, score))
                names.append(tool.name)
                routes.append(tool.route)
        for tool, score, detail in dropped:
            rule = rules.hidden_routes.get(tool.route)
            if rule is not None:
                decisions.append(ToolDecision(tool.route, tool.name, False, rule, "static rule", score))
            elif detail == "beyond_k":
                decisions.append(ToolDecision(tool.route, tool.name, False, "beyond_k", beyond, score))
            else:
                decisions.append(ToolDecision(tool.route, tool.name, False, "gate_dropped", detail, score))
        routed_count = len(routes)
        for route, name in rules.always:
            if route not in routes:
                decisions.append(ToolDecision(route, name, True, "always_visible", "static rule"))
                names.append(name)
                routes.append(route)
        if routed_count:
            reason = "routed"
        elif not kept:
            reason = retrieval.reason
        else:
            reason = "static_rules_hid_all"
        return AllowSet(
            query=query,
            principal=principal,
            catalog_version=rules.catalog.version,
            names=tuple(names),
            routes=tuple(routes),
            no_route=routed_count == 0,
            reason=reason,
            decisions=tuple(decisions),
        )
