"""`Visibility`: the single object every adapter wraps. Query (+ principal) -> AllowSet."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from .._defaults import DEFAULT_K
from .._router import SchemaRouter
from ..catalog._catalog import Catalog
from ..catalog._names import name_skeleton
from ..errors import RoutingError, UserError, require_k
from ..retrieval._abstention import RetrievalAbstentionPolicy, require_policy
from ..retrieval._offered import NO_ROUTES, Scored, ScoredTool
from ..retrieval._results import RouteReason
from ..telemetry._decisions import decided, routing_span
from ._allow_set import AllowSet, DecisionReason, ToolDecision
from ._named import ToolNames

__all__ = ["Visibility"]

StaticRule = Literal["blocked", "not_allowed"]

logger = logging.getLogger("schemarouter.visibility")

MAX_REQUEST_CHARS = 8192
"""Characters of a request routed at most by default (`Visibility(max_request_chars=...)`).

Routing reads every word of the request: a megabyte pasted into a chat cost one to two seconds
of CPU, inside the framework's event loop. Requests past the bound are routed on their first and
last halves of it (what a request asks is usually said at its start or its end), and the allow-set
says how many characters were left out (`AllowSet.request_cut`)."""


def routed_text(query: str, limit: int) -> tuple[str, int]:
    """The part of `query` that is routed (its head and tail, `limit` characters in all) and how
    many characters were left out of it."""
    if len(query) <= limit:
        return query, 0
    head = limit // 2
    return f"{query[:head]}\n{query[len(query) - (limit - head) :]}", len(query) - limit


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
    hidden_routes: dict[str, StaticRule]
    always: tuple[tuple[str, str], ...]
    """(route, name) of the always-visible tools that are not blocked, in catalog order."""
    always_routes: frozenset[str]
    unmatched: dict[str, tuple[str, ...]]
    """Per rule (`blocked`, `allowed`, `always_visible`): its names that match no tool."""


class Visibility:
    """Which tools a model may see for a request.

    Static rules match whole tool names or whole routes (`read` never matches
    `read_all`). `blocked` wins over everything; when `allowed` is given, only those
    tools can be routed; `always_visible` tools are shown for every request (unless
    blocked) and do not count as a route. Pure and deterministic: no I/O, no tool call.
    Rules are resolved once per catalog version, so a request costs one retrieval.
    """

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        # A rule written only into allow_set would not hold for the tools a conversation keeps
        # or find-tools finds: both ask `permits` and `search`. Refuse that shape at once.
        changes_allow_set = any("allow_set" in vars(c) for c in cls.__mro__ if c is not Visibility)
        says_permits = any("permits" in vars(c) for c in cls.__mro__ if c is not Visibility)
        if changes_allow_set and not says_permits:
            raise UserError(
                f"{cls.__name__} overrides allow_set but not permits(route, principal): a rule applied "
                "only in allow_set would not hold for the tools a conversation keeps, find-tools "
                "results or calls, which are all checked through permits. Put the rule in permits "
                "(Visibility applies it to allow_set and search too) instead of overriding allow_set"
            )

    def __init__(
        self,
        router: SchemaRouter,
        *,
        k: int = DEFAULT_K,
        abstention: RetrievalAbstentionPolicy | None = None,
        always_visible: Collection[str] | None = None,
        blocked: Collection[str] | None = None,
        allowed: Collection[str] | None = None,
        max_request_chars: int = MAX_REQUEST_CHARS,
    ) -> None:
        require_k(k)
        chars: object = max_request_chars
        if isinstance(chars, bool) or not isinstance(chars, int) or chars < 64:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"max_request_chars must be an int >= 64, got {max_request_chars!r}")
        if not isinstance(router, SchemaRouter):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"router must be a SchemaRouter, got {type(router).__name__}")
        self._router = router
        self._k = k
        self._abstention = require_policy(abstention)
        self._always_visible = _names(always_visible, "always_visible")
        self._blocked = _names(blocked, "blocked")
        self._allowed = _names(allowed, "allowed") if allowed is not None else None
        self._blocked_looks = frozenset(name_skeleton(name) for name in self._blocked)
        self._max_request_chars = max_request_chars
        # a subclass's own rule (an overridden `permits`) is applied to every allow-set and search
        self._own_rule = type(self).permits is not Visibility.permits
        self._rules: _Rules | None = None
        self._names: ToolNames | None = None
        self._lock = threading.Lock()

    # Read-only: rules are resolved once per catalog version, so a rule changed in place would
    # be ignored. Make a new Visibility to change them.
    @property
    def router(self) -> SchemaRouter:
        return self._router

    @property
    def catalog(self) -> Catalog:
        """The catalog routed over (the router's)."""
        return self._router.catalog

    @property
    def k(self) -> int:
        """At most this many routed tools are visible."""
        return self._k

    @property
    def max_request_chars(self) -> int:
        """Characters of a request routed at most (see `MAX_REQUEST_CHARS`)."""
        return self._max_request_chars

    @property
    def abstention(self) -> RetrievalAbstentionPolicy | None:
        return self._abstention

    @property
    def always_visible(self) -> frozenset[str]:
        return self._always_visible

    @property
    def blocked(self) -> frozenset[str]:
        return self._blocked

    @property
    def allowed(self) -> frozenset[str] | None:
        return self._allowed

    def _is_blocked(self, name: str, route: str) -> bool:
        """A `blocked` name or route, or a lookalike of a blocked name (`name_skeleton`): a
        server cannot get past `close_account` with a Cyrillic letter or a zero-width space."""
        if name in self._blocked or route in self._blocked:
            return True
        return bool(self._blocked_looks) and name_skeleton(name) in self._blocked_looks

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
            hidden_routes: dict[str, StaticRule] = {}
            always: list[tuple[str, str]] = []
            for cap in catalog:
                if self._is_blocked(cap.name, cap.route):
                    hidden_routes[cap.route] = "blocked"
                    continue
                if not self._is_allowed(cap.name, cap.route):
                    hidden_routes[cap.route] = "not_allowed"
                if cap.name in self.always_visible or cap.route in self.always_visible:
                    always.append((cap.route, cap.name))
            unmatched = self._unmatched(catalog)
            for group in catalog.lookalikes:
                logger.warning(
                    "tools %s have names that look alike (other scripts' letters, invisible characters or "
                    "fullwidth forms): a model cannot tell them apart; a lookalike of a blocked name is "
                    "hidden as blocked",
                    ", ".join(repr(catalog[route].name) + f" ({route})" for route in group),
                )
            for rule, names in unmatched.items():
                logger.warning(
                    "%s names %s, which match no tool of catalog %s (names and routes match whole)",
                    rule,
                    ", ".join(map(repr, names)),
                    catalog.version[:12],
                )
            rules = _Rules(
                catalog,
                hidden_routes,
                tuple(always),
                frozenset(r for r, _ in always),
                unmatched,
            )
            self._rules = rules
            return rules

    def _unmatched(self, catalog: Catalog) -> dict[str, tuple[str, ...]]:
        given = {"blocked": self.blocked, "allowed": self.allowed, "always_visible": self.always_visible}
        unmatched = {rule: catalog.unknown(names) for rule, names in given.items() if names}
        return {rule: names for rule, names in unmatched.items() if names}

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        """May `principal` be shown this tool now? The rules, not relevance: not blocked (nor a
        lookalike of a blocked name), and allowed when `allowed` is given. False for a route the
        catalog does not have.

        Asked of every tool a conversation keeps, on every model step, of every find-tools result
        and of every call. To add a rule of your own (per principal, or one that changes while a
        conversation runs), override this method, calling `super().permits(route, principal)`
        first: `allow_set` and `search` apply it too."""
        rules = self._resolve_rules()  # resolved once per catalog: a lookup per call, no name folding
        return route in rules.catalog and route not in rules.hidden_routes

    def unmatched_rules(self) -> Mapping[str, tuple[str, ...]]:
        """Names in `blocked`, `allowed` or `always_visible` that match no tool of the current
        catalog, per rule (only rules with such names are listed). Usually a typo: a misspelt
        `blocked` name hides nothing. Each catalog version's are also logged once, as a WARNING
        on `schemarouter.visibility`."""
        return dict(self._resolve_rules().unmatched)

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        """The ordered allow-set for `query`. Raises `RoutingError` only if the router itself fails.

        Its `decisions` are worked out when first read (see `AllowSet`).
        """
        with routing_span("allow_set") as span:
            return decided(span, self._ruled(query, principal, self._k, self._abstention), self, self._k)

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        """What the find-tools meta-tool searches with: up to `k` tools for `query`, best first,
        under the same router, rules and principal as `allow_set`.

        Tools the query names outright come first: an exact tool name or `source:name` route,
        then the tools of a source it names (see `ToolNames`). Then the ranking's best tools
        with any evidence for the query, whatever the gate says of them (`offer="search"`):
        confident ones marked routed, the others uncertain. A tool with no evidence for the
        query, and one the rules or `permits` deny, is never in it."""
        require_k(k)
        own = self._abstention
        wide = RetrievalAbstentionPolicy(min_score=own.min_score if own is not None else 0.0, offer="search")
        with routing_span("search") as span:
            return decided(span, self._search(query, principal, k, wide), self, k)

    def _search(
        self, query: str, principal: Hashable | None, k: int, wide: RetrievalAbstentionPolicy
    ) -> AllowSet:
        ranked = self._ruled(query, principal, k, wide)
        named, of_sources = self._tool_names().named(query)
        if not named and not of_sources:
            return ranked
        return self._with_named(ranked, named, of_sources, principal, k)

    def _tool_names(self) -> ToolNames:
        catalog = self.router.catalog
        names = self._names
        if names is None or names.catalog is not catalog:
            names = self._names = ToolNames.of(catalog)
        return names

    def _with_named(
        self,
        ranked: AllowSet,
        named: tuple[str, ...],
        of_sources: tuple[str, ...],
        principal: Hashable | None,
        k: int,
    ) -> AllowSet:
        """`ranked` with the tools the query names first: exact names, then the named sources'
        tools (those the ranking holds in its order, then the rest), then the ranking; at most
        `k`, each permitted by the rules."""
        rules = self._resolve_rules()
        shown = {d.route: d for d in ranked.decisions if d.visible and d.reason in ("routed", "uncertain")}
        in_rank = [route for route in ranked.routes if route in shown]
        sources = set(of_sources)
        order = [*named, *(r for r in in_rank if r in sources), *of_sources, *in_rank]
        routes: list[str] = []
        for route in dict.fromkeys(order):
            if len(routes) >= k:
                break
            if route in rules.hidden_routes or (
                route not in shown and not self._permits_now(route, principal)
            ):
                continue
            routes.append(route)
        catalog = rules.catalog
        decisions = [
            shown.get(route)
            or ToolDecision(route, catalog[route].name, True, "uncertain", "named in the query")
            for route in routes
        ]
        kept = set(routes)
        for d in ranked.decisions:
            if d.route in kept:
                continue
            if d.route in shown:  # pushed past k by a named tool
                d = ToolDecision(d.route, d.name, False, "beyond_k", f"k={k}", d.score)
            decisions.append(d)
        always = [(n, r) for n, r in zip(ranked.names, ranked.routes, strict=True) if r not in shown]
        names = [catalog[route].name for route in routes] + [n for n, r in always if r not in routes]
        routes_all = routes + [r for _, r in always if r not in routes]
        routed = any(d.reason == "routed" for d in decisions if d.visible and d.route in routes)
        return AllowSet(
            query=ranked.query,
            principal=ranked.principal,
            catalog_version=ranked.catalog_version,
            names=tuple(names),
            routes=tuple(routes_all),
            no_route=not routes,
            reason="routed" if routed else "weak_evidence" if routes else ranked.reason,
            decisions=tuple(decisions),
            request_cut=ranked.request_cut,
        )

    def _permits_now(self, route: str, principal: Hashable | None) -> bool:
        """`permits`, a failure of which is a `RoutingError` (fail closed)."""
        try:
            return self.permits(route, principal) is True
        except Exception as exc:
            raise RoutingError(f"permits raised {type(exc).__name__}: {exc}") from exc

    def _ruled(
        self, query: str, principal: Hashable | None, k: int, policy: RetrievalAbstentionPolicy | None
    ) -> AllowSet:
        """`_visible`, with a subclass's own rule (`permits`) applied: tools it denies are left
        out, and retrieval asked deeper so that as many permitted tools are shown as the gate
        would have shown without the rule."""
        allow = self._visible(query, principal, k, policy)
        if not self._own_rule:
            return allow
        always = self._resolve_rules().always_routes
        want = sum(route not in always for route in allow.routes)
        depth = k
        while True:
            try:
                denied = {route for route in allow.routes if not self.permits(route, principal)}
            except Exception as exc:
                raise RoutingError(f"permits raised {type(exc).__name__}: {exc}") from exc
            shown = sum(route not in always and route not in denied for route in allow.routes)
            if not denied or shown >= want or depth >= len(self.catalog):
                break
            depth = min(depth * 2 + len(denied), len(self.catalog))
            own = policy or RetrievalAbstentionPolicy()
            deeper = RetrievalAbstentionPolicy(  # as wide as the policy allows, deeper; never wider
                min_score=own.min_score,
                uncertain_tools=depth if own.uncertain_tools else 0,
                runner_ups=depth if own.runner_ups else 0,
                offer=own.offer,
            )
            allow = self._visible(query, principal, depth, deeper)
        return allow.narrowed(denied, always, k=want) if denied or depth > k else allow

    def _visible(
        self, query: str, principal: Hashable | None, k: int, policy: RetrievalAbstentionPolicy | None
    ) -> AllowSet:
        if not isinstance(query, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"query must be a string, got {type(query).__name__}")
        routed, cut = routed_text(query, self._max_request_chars)
        if not cut:
            return self._visible_text(query, principal, k, policy)
        logger.info("routing the first and last %d of %d characters of a request", len(routed), len(query))
        return self._visible_text(routed, principal, k, policy).replaced(query=query, request_cut=cut)

    def _visible_text(
        self, query: str, principal: Hashable | None, k: int, policy: RetrievalAbstentionPolicy | None
    ) -> AllowSet:
        """The router's retriever decides what is offered (`offer`: the same shape in both modes,
        the rules' hidden tools aside); the rules and k make it an allow-set."""
        try:
            rules = self._resolve_rules()
            offered = self.router.retriever.offer(query, k, policy, rules.hidden_routes)
        except UserError:
            raise
        except Exception as exc:
            raise RoutingError(f"routing failed for this request: {type(exc).__name__}: {exc}") from exc
        return self._allow_set(
            query, principal, rules, k, offered.tools, offered.reason, offered.report, offered.weak
        )

    def _allow_set(
        self,
        query: str,
        principal: Hashable | None,
        rules: _Rules,
        k: int,
        kept: Sequence[ScoredTool],
        reason: RouteReason,
        report: Callable[[], tuple[list[Scored], list[Scored]]],
        weak: frozenset[str] = NO_ROUTES,
    ) -> AllowSet:
        """Visible tools: kept ones not hidden by a static rule, at most k, then always-visible ones.

        `report()` gives the retrieval's kept and dropped tools with their scores and reasons;
        the decisions explain them, when they are read. `weak` are the routes of kept tools
        offered without a confident route (marked uncertain): when static rules hide every confident
        tool and leave only those, the outcome is uncertain, not a route.
        """
        hidden_routes, always = rules.hidden_routes, rules.always  # not the rules: they hold the index
        shown = [tool for tool in kept if tool.route not in hidden_routes] if hidden_routes else kept
        names = [tool.name for tool in shown[:k]]
        routed = tuple([tool.route for tool in shown[:k]])
        routes = list(routed)
        for route, name in always:
            if route not in routed:
                names.append(name)
                routes.append(route)
        if routed:
            only_weak = reason == "weak_evidence" or (bool(weak) and all(route in weak for route in routed))
            reason = "weak_evidence" if only_weak else "routed"
        elif kept:
            reason = "static_rules_hid_all"

        def explain() -> tuple[ToolDecision, ...]:
            return _decisions(hidden_routes, always, k, routed, *report())

        return AllowSet(
            query=query,
            principal=principal,
            catalog_version=rules.catalog.version,
            names=tuple(names),
            routes=tuple(routes),
            no_route=not routed,
            reason=reason,
            explain=explain,
        )


def _decisions(
    hidden_routes: dict[str, StaticRule],
    always: tuple[tuple[str, str], ...],
    k: int,
    routed: tuple[str, ...],
    kept: list[Scored],
    dropped: list[Scored],
) -> tuple[ToolDecision, ...]:
    """Why each retrieved tool is visible or not; `routed` are the routes made visible."""
    decisions: list[ToolDecision] = []
    beyond = f"k={k}"
    for tool, score, detail in kept:
        rule = hidden_routes.get(tool.route)
        if rule is not None:
            decisions.append(ToolDecision(tool.route, tool.name, False, rule, "static rule", score))
        elif tool.route in routed:
            shown: DecisionReason = "uncertain" if detail == "uncertain" else "routed"
            decisions.append(ToolDecision(tool.route, tool.name, True, shown, detail, score))
        else:
            decisions.append(ToolDecision(tool.route, tool.name, False, "beyond_k", beyond, score))
    for tool, score, detail in dropped:
        rule = hidden_routes.get(tool.route)
        if rule is not None:
            decisions.append(ToolDecision(tool.route, tool.name, False, rule, "static rule", score))
        elif detail == "beyond_k":
            decisions.append(ToolDecision(tool.route, tool.name, False, "beyond_k", beyond, score))
        else:
            decisions.append(ToolDecision(tool.route, tool.name, False, "gate_dropped", detail, score))
    for route, name in always:
        if route not in routed:
            decisions.append(ToolDecision(route, name, True, "always_visible", "static rule"))
    return tuple(decisions)
