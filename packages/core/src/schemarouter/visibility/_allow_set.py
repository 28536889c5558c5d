"""`AllowSet`: the tools a model may see for one request, and why each retrieved tool is visible or not."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Collection, Hashable
from dataclasses import FrozenInstanceError, dataclass
from typing import Any, Literal, Protocol, cast, runtime_checkable

from ..catalog._catalog import Catalog
from ..catalog._names import name_skeleton
from ..errors import UserError
from ..retrieval._results import RouteOutcome, RouteReason

__all__ = ["AllowSet", "AllowSetProvider", "DecisionReason", "ToolDecision", "permitted", "require_provider"]


DecisionReason = Literal[
    "routed",
    "uncertain",
    "always_visible",
    "blocked",
    "not_allowed",
    "gate_dropped",
    "beyond_k",
]


@dataclass(frozen=True, slots=True)
class ToolDecision:
    """Why one tool is visible or hidden for this request."""

    route: str
    name: str
    visible: bool
    reason: DecisionReason
    detail: str = ""
    score: float | None = None


_ALLOW_SET_FIELDS = ("query", "principal", "catalog_version", "names", "routes", "no_route", "reason")


class AllowSet:
    """The tools a model may see for one request. Immutable.

    `names` / `routes` are ordered (routed tools best first, then the others offered, then
    always-visible ones). `outcome` says what the request came to: `route` (tools routed with
    confidence), `uncertain` (no tool earned a confident route; the ranking's best are shown,
    `reason` is `weak_evidence`) or `no_route`. `decisions` says, tool by tool, why each
    retrieved tool is visible or hidden; tools with no decision listed were not retrieved for
    this query and are hidden. `no_route` is True when no routed or uncertain tool is visible
    (always-visible tools do not count as a route); `reason` says why.

    `Visibility` works out `decisions` when they are first read: adapters, which only
    read the names, do not pay for the report. The report is fixed when the allow-set
    is made; reading it later gives the same decisions.
    """

    __slots__ = (*_ALLOW_SET_FIELDS, "_decisions", "_explain", "request_cut")

    query: str
    principal: Hashable | None
    catalog_version: str
    names: tuple[str, ...]
    routes: tuple[str, ...]
    no_route: bool
    reason: RouteReason
    _decisions: tuple[ToolDecision, ...] | None
    _explain: Callable[[], tuple[ToolDecision, ...]] | None
    request_cut: int
    """Characters of `query` left out of routing (a request longer than the provider routes;
    see `Visibility.max_request_chars`); 0 for a request routed whole."""

    def __init__(
        self,
        *positional: Any,
        query: str = "",
        principal: Hashable | None = None,
        catalog_version: str = "",
        names: tuple[str, ...] = (),
        routes: tuple[str, ...] = (),
        no_route: bool | None = None,
        reason: RouteReason | None = None,
        decisions: tuple[ToolDecision, ...] = (),
        explain: Callable[[], tuple[ToolDecision, ...]] | None = None,
        request_cut: int = 0,
    ) -> None:
        """Every field by keyword: `AllowSet(query=..., catalog_version=..., names=..., routes=...,
        reason=...)`; `no_route` defaults to "no routes". `explain`, instead of `decisions`, gives
        the decisions when they are first read; it is called once and must be pure, reading only
        state fixed when the allow-set is made. (Positional fields, in the order of 0.1, still
        work until 0.2, with a DeprecationWarning.)"""
        if positional:
            if len(positional) > 8:
                raise UserError(f"AllowSet takes at most 8 positional fields, got {len(positional)}")
            warnings.warn(
                "AllowSet's fields are keyword-only now, e.g. AllowSet(query=..., catalog_version=..., "
                "names=..., routes=..., reason=...) (positional fields work until 0.2)",
                DeprecationWarning,
                stacklevel=2,
            )
            given = dict(zip((*_ALLOW_SET_FIELDS, "decisions"), positional, strict=False))
            query = given.get("query", query)
            principal = given.get("principal", principal)
            catalog_version = given.get("catalog_version", catalog_version)
            names = given.get("names", names)
            routes = given.get("routes", routes)
            no_route = given.get("no_route", no_route)
            reason = given.get("reason", reason)
            decisions = given.get("decisions", decisions)
        if reason is None:
            raise UserError("an AllowSet needs its reason (e.g. reason='routed')")
        if no_route is None:
            no_route = not routes
        if explain is not None and decisions:
            raise UserError("give an AllowSet its decisions or a function to explain them, not both")
        put = object.__setattr__
        put(self, "query", query)
        put(self, "principal", principal)
        put(self, "catalog_version", catalog_version)
        put(self, "names", names)
        put(self, "routes", routes)
        put(self, "no_route", no_route)
        put(self, "reason", reason)
        put(self, "_decisions", None if explain is not None else decisions)
        put(self, "_explain", explain)
        put(self, "request_cut", request_cut)

    def replaced(self, *, query: str | None = None, request_cut: int | None = None) -> AllowSet:
        """This allow-set with another `query` (the request as given, when only part of it was
        routed) or `request_cut`; the same tools and decisions."""
        explain = self._explain
        return AllowSet(
            query=self.query if query is None else query,
            principal=self.principal,
            catalog_version=self.catalog_version,
            names=self.names,
            routes=self.routes,
            no_route=self.no_route,
            reason=self.reason,
            decisions=() if explain is not None else self.decisions,
            explain=explain,
            request_cut=self.request_cut if request_cut is None else request_cut,
        )

    def narrowed(self, denied: Collection[str], always: Collection[str], *, k: int) -> AllowSet:
        """This allow-set without the routes in `denied` (a provider's own rule hides them) and
        with at most `k` of the rest routed (`always` are always-visible, not counted): what a
        provider's rule leaves of it. Its decisions are worked out when first read, as this
        allow-set's are: a route left out is hidden by the rule (`not_allowed`) or past `k`."""
        routes: list[str] = []
        names: list[str] = []
        routed = 0
        for name, route in zip(self.names, self.routes, strict=True):
            if route in denied:
                continue
            if route not in always:
                if routed >= k:
                    continue
                routed += 1
            routes.append(route)
            names.append(name)
        keep = frozenset(routes)
        decided = self

        def explain() -> tuple[ToolDecision, ...]:
            return tuple(
                d
                if d.route in keep or not d.visible
                else ToolDecision(
                    d.route,
                    d.name,
                    False,
                    "not_allowed" if d.route in denied else "beyond_k",
                    "the provider's rule" if d.route in denied else f"k={k}",
                    d.score,
                )
                for d in decided.decisions
            )

        reason: RouteReason = self.reason if routed or self.no_route else "static_rules_hid_all"
        return AllowSet(
            query=self.query,
            principal=self.principal,
            catalog_version=self.catalog_version,
            names=tuple(names),
            routes=tuple(routes),
            no_route=not routed,
            reason=reason,
            explain=explain,
            request_cut=self.request_cut,
        )

    @property
    def decisions(self) -> tuple[ToolDecision, ...]:
        """Why each retrieved tool is visible or hidden, in the order they were considered."""
        decisions = self._decisions
        if decisions is None:
            explain = self._explain
            if explain is None:  # another thread explained it in between
                return cast("tuple[ToolDecision, ...]", self._decisions)
            decisions = explain()
            object.__setattr__(self, "_decisions", decisions)
            object.__setattr__(self, "_explain", None)
        return decisions

    def _key(self) -> tuple[object, ...]:
        return (*(getattr(self, name) for name in _ALLOW_SET_FIELDS), self.decisions)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == cast("AllowSet", other)._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        names = (*_ALLOW_SET_FIELDS, "decisions")
        return f"AllowSet({', '.join(f'{n}={v!r}' for n, v in zip(names, self._key(), strict=True))})"

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Callable[..., AllowSet], tuple[dict[str, Any]]]:
        fields = {name: getattr(self, name) for name in _ALLOW_SET_FIELDS}
        return (_allow_set, ({**fields, "decisions": self.decisions, "request_cut": self.request_cut},))

    def __contains__(self, name_or_route: object) -> bool:
        return name_or_route in self.names or name_or_route in self.routes

    def allows(self, name: str, source: str | None = None) -> bool:
        """Is the tool `name` (optionally from `source`) visible?"""
        if source is None:
            return name in self.names
        return f"{source}:{name}" in self.routes

    @property
    def outcome(self) -> RouteOutcome:
        """`route`, `uncertain` or `no_route` (see `RouteOutcome`)."""
        if self.no_route:
            return "no_route"
        return "uncertain" if self.reason == "weak_evidence" else "route"

    @property
    def shared_names(self) -> tuple[tuple[str, ...], ...]:
        """Visible routes that give the model the same tool name, or names that look alike
        (`schemarouter.catalog.name_skeleton`: a Cyrillic letter for a Latin one, a zero-width space,
        fullwidth letters), one group per name, in allow-set order (empty when every visible
        name is unique and unlike the others).

        A model cannot tell such tools apart by name, and execution does not settle a tie
        between sources by route order: planning refuses it as `ambiguous_route` unless the
        route is named (see docs/execution.md)."""
        by_name: dict[str, list[str]] = {}
        for name, route in zip(self.names, self.routes, strict=True):
            by_name.setdefault(name_skeleton(name), []).append(route)
        return tuple(tuple(routes) for routes in by_name.values() if len(routes) > 1)

    @property
    def routed(self) -> tuple[str, ...]:
        """Names visible because retrieval routed them (not static rules)."""
        return tuple(d.name for d in self.decisions if d.visible and d.reason == "routed")


def _allow_set(fields: dict[str, Any]) -> AllowSet:
    """An allow-set from its fields by name (what pickling and copying rebuild it with)."""
    return AllowSet(**fields)


@runtime_checkable
class AllowSetProvider(Protocol):
    """What adapters and conversations ask, on every step. `Visibility` is the standard
    implementation; a provider of your own (a per-user policy, a policy that changes while a
    conversation runs) implements all four members, and adapters refuse at setup one that lacks
    any (`require_provider`).

    - `catalog`: the catalog the provider routes over (adapters check live tool contracts
      against it, conversations read tool names and sizes from it).
    - `allow_set(query, principal)`: the tools this request may be offered.
    - `search(query, principal, k=)`: what find-tools searches with, under the same rules.
    - `permits(route, principal)`: may this principal be shown this tool *now*? Asked of every
      tool a conversation keeps, on every model step, and of every call: stored state never
      shows a tool this answer denies. It must apply every rule `allow_set` applies.
    """

    @property
    def catalog(self) -> Catalog: ...

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet: ...

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet: ...

    def permits(self, route: str, principal: Hashable | None = None) -> bool: ...


_PROVIDER_MEMBERS = ("catalog", "allow_set", "search", "permits")

_log = logging.getLogger("schemarouter.visibility")


def permitted(provider: AllowSetProvider, route: str, principal: Hashable | None = None) -> bool:
    """`provider.permits(route, principal)`, failing closed: False when it raises (logged at
    WARNING on `schemarouter.visibility`) or answers anything but True. What adapters ask of a
    tool on every step and at every call."""
    try:
        return provider.permits(route, principal) is True
    except Exception as exc:
        _log.warning(
            "the provider's permits raised for %s (%s: %s); the tool is hidden",
            route,
            type(exc).__name__,
            exc,
        )
        return False


def require_provider(provider: object) -> AllowSetProvider:
    """`provider` when it implements every member of `AllowSetProvider`; a `UserError` naming
    what it lacks otherwise (a provider that cannot be asked about a rule is not trusted)."""
    missing = [
        name
        for name in _PROVIDER_MEMBERS
        if not hasattr(provider, name) or (name != "catalog" and not callable(getattr(provider, name)))
    ]
    if not missing:
        catalog: object = getattr(provider, "catalog", None)
        if not isinstance(catalog, Catalog):
            missing = ["catalog (a schemarouter.Catalog)"]
    if missing:
        raise UserError(
            f"{type(provider).__name__} is not an allow-set provider: it lacks {', '.join(missing)}. "
            "Pass a schemarouter.Visibility, or implement catalog, allow_set(query, principal), "
            "search(query, principal, k=) and permits(route, principal): every step and every "
            "find-tools result is checked through permits, so a provider without it cannot be trusted"
        )
    return cast("AllowSetProvider", provider)
