"""Matching the tools a framework lists against an allow-set, the same way in every adapter.

A framework hands an adapter its tools by name (a tool definition, a `BaseTool`, an MCP tool);
the allow-set speaks of catalog routes. `ListedTools` (one per adapter router) joins the two:

- `match(name, source=..., route=...)` finds the catalog route a listed tool stands for: the
  route it records, else `source:name`, else the catalog's only tool of that name (`ToolMatch`);
- `step(allow_set)` is one step's view (`ListedStep`): is a tool routed, does the provider's
  rule permit it *now* for the step's principal (asked on every check, never remembered), is it
  shown, and where it ranks (allow-set order, then the adapter's own always-visible names);
  `passed_over` answers most of a long listing (catalogued, not routed) without building a match;
- `select` and `select_permitted` pick the shown (or merely permitted) items of a listing, and
  `pinned_routes` the provider's always-visible tools;
- a tool the catalog lacks, or whose name several catalog routes share with nothing saying which,
  stays hidden with a WARNING once per catalog version and tool, ending in the adapter's own
  advice (`ListingAdvice`); a live MCP tool is shown only while its contract is the catalog's
  (`live_contract_matches`, over `schemarouter.visibility.ContractChecks`).

    listing = ListedTools(provider, logger, ListingAdvice(unlisted="Mirror it into the catalog."))
    step = listing.step(allow_set)
    shown = listing.select(allow_set, tools, lambda tool: tool.name, source="local")
    step.shows(step.match("get_weather", source="local"))

Nothing here imports a framework: items are whatever the adapter lists, named by `name_of`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar, cast

from ..catalog._capability import Capability, make_route
from ..catalog._catalog import Catalog
from ..visibility._allow_set import AllowSet, AllowSetProvider, permitted
from ..visibility._contracts import ContractChecks

__all__ = ["ListedStep", "ListedTools", "ListingAdvice", "SharedNames", "ToolMatch"]

T = TypeVar("T")

SharedNames = Literal["hide", "by_name"]
"""A listed tool with no source whose name several catalog routes share: `hide` it (a rule on
one of those routes could not be kept; WARNING once), or match it `by_name` (routed when the
allow-set names it, permitted only when the rules permit every route of that name)."""


@dataclass(frozen=True, slots=True)
class ListingAdvice:
    """How to fix a listed tool the catalog cannot match, in the adapter's own words (its mirror
    functions and parameters). Each is the last sentence of the WARNING that hides the tool."""

    unlisted: str
    """For a tool the catalog lacks (e.g. "Mirror it into the catalog (...)")."""
    ambiguous: str = "Say which catalog source the tool is routed as."
    """For a name several catalog routes share when nothing says which one the tool is."""
    unlisted_mcp: str | None = None
    """For a tool the catalog lacks that an MCP server lists live; None: `unlisted`."""


@dataclass(frozen=True, slots=True)
class ToolMatch:
    """A listed tool as the catalog knows it.

    `route` is the catalog route it stands for: the route it records, `source:name`, or the
    catalog's only tool called `name` (None when that is not one route). `routes` are the catalog
    routes it may be: `(route,)` when known, else every catalog route of its name (none: the
    catalog lacks it).
    """

    name: str
    route: str | None
    routes: tuple[str, ...]

    @property
    def ambiguous(self) -> bool:
        """Several catalog routes share the name and nothing says which one this tool is."""
        return self.route is None and len(self.routes) > 1


def _match(catalog: Catalog | None, name: str, source: str | None, route: str | None) -> ToolMatch:
    if route is None and source is not None:
        route = make_route(source, name)
    if route is not None:
        return ToolMatch(name, route, (route,))
    routes = tuple(cap.route for cap in catalog.by_name(name)) if catalog is not None else ()
    return ToolMatch(name, routes[0] if len(routes) == 1 else None, routes)


def _permits(
    provider: AllowSetProvider, principal: Hashable | None, always: frozenset[str], match: ToolMatch
) -> bool:
    """`ListedStep.permits`: the rules asked now about every route `match` may be; a tool the
    catalog lacks only as one of the adapter's own `always` names."""
    if not match.routes:
        return match.name in always
    return all(permitted(provider, route, principal) for route in match.routes)


@dataclass(frozen=True, slots=True)
class ListedStep:
    """One step's view of the listed tools: the allow-set, and the rules asked for its principal.

    `catalog` is the provider's catalog when the step was made (tools are matched against it);
    `always` are the adapter's own always-visible names (shown on every step the rules permit
    them); `order` is what may be shown, by name, in rank order (the allow-set's names, then the
    permitted `always` names, sorted). Made by `ListedTools.step`.
    """

    allow_set: AllowSet
    listing: ListedTools = field(repr=False)
    catalog: Catalog | None = field(repr=False)
    always: frozenset[str] = frozenset()
    order: tuple[str, ...] = ()

    def match(self, name: str, source: str | None = None, *, route: str | None = None) -> ToolMatch:
        """The listed tool `name` (served by `source`, or recorded as `route`) as this step's
        catalog knows it (see `ListedTools.match`)."""
        return _match(self.catalog, name, source, route)

    def passed_over(self, name: str, source: str | None = None, *, route: str | None = None) -> bool:
        """Is the tool plainly hidden, with nothing to say? The catalog has it (by route, else as
        the only tool of its name), the allow-set does not route it and it is no `always` name:
        most of a long listing, answered without building a `ToolMatch`. False means "ask
        `shows`", never "shown"."""
        catalog = self.catalog
        if catalog is None or name in self.always:
            return False
        if route is None and source is not None:
            route = make_route(source, name)
        if route is None:
            named = catalog.by_name(name)
            if len(named) != 1:
                return False
            route = named[0].route
        return route not in self.allow_set.routes and route in catalog

    def routed(self, match: ToolMatch) -> bool:
        """Did the allow-set route this tool (by route when known, else by name)?"""
        if match.route is not None:
            return match.route in self.allow_set.routes
        return match.name in self.allow_set.names

    def permits(self, match: ToolMatch) -> bool:
        """The provider's rules for this step's principal, asked now: may the tool be shown? A
        tool with no known route is asked about as every catalog route of its name; one the
        catalog lacks is no route the rules can name, shown only as an `always` name."""
        return _permits(self.listing.provider, self.allow_set.principal, self.always, match)

    def shows(self, match: ToolMatch) -> bool:
        """Routed (or an `always` name), and permitted now. An ambiguous name is never shown
        under `shared_names="hide"`."""
        if match.ambiguous and self.listing.shared_names == "hide":
            return False
        if not (self.routed(match) or match.name in self.always):
            return False
        return self.permits(match)

    def rank(self, match: ToolMatch) -> int:
        """A shown tool's position: allow-set order (by route when known), then `order`."""
        allow_set = self.allow_set
        if match.route is not None and match.route in allow_set.routes:
            return allow_set.routes.index(match.route)
        if match.route is None and match.name in allow_set.names:
            return allow_set.names.index(match.name)
        order = self.order
        return len(allow_set.names) + (order.index(match.name) if match.name in order else len(order))

    def warn_hidden(self, match: ToolMatch, *, served_by_mcp: bool = False, kind: str = "tool") -> None:
        """`ListedTools.warn_hidden` for a tool this step hides."""
        self.listing._warn_hidden(self.catalog, self.allow_set, match, served_by_mcp, kind)  # pyright: ignore[reportPrivateUsage]


class ListedTools(ContractChecks):
    """Matches one adapter's listed tools against its provider's allow-sets (thread-safe).

    `advice` ends each WARNING with the adapter's fix; `shared_names` says what a name several
    catalog routes share means without a source (see `SharedNames`). Every provider has a catalog
    (`AllowSetProvider.catalog`); without one nothing is shown.
    """

    def __init__(
        self,
        provider: AllowSetProvider,
        logger: logging.Logger,
        advice: ListingAdvice,
        *,
        shared_names: SharedNames = "hide",
    ) -> None:
        super().__init__(logger)
        self.provider = provider
        self.advice = advice
        self.shared_names: SharedNames = shared_names

    @property
    def catalog(self) -> Catalog | None:
        """The provider's catalog now (None: an object without one; nothing is then shown)."""
        return self.catalog_of(self.provider)

    def match(self, name: str, source: str | None = None, *, route: str | None = None) -> ToolMatch:
        """The listed tool `name` (served by `source`, or recorded as `route`) as the catalog knows it."""
        return _match(self.catalog, name, source, route)

    def step(self, allow_set: AllowSet, always: Collection[str] = ()) -> ListedStep:
        """This step's view of `allow_set`, with the adapter's own always-visible names."""
        catalog, names = self.catalog, frozenset(always)
        if not names:  # the common case, once per model step: one object, nothing copied
            return ListedStep(allow_set, self, catalog, names, allow_set.names)
        provider, principal = self.provider, allow_set.principal
        shown = [
            name
            for name in sorted(names)
            if _permits(provider, principal, names, _match(catalog, name, None, None))
        ]
        return ListedStep(allow_set, self, catalog, names, tuple(dict.fromkeys([*allow_set.names, *shown])))

    # -- a listing at once ------------------------------------------------------------------------

    def select(
        self,
        allow: AllowSet,
        items: Sequence[T],
        name_of: Callable[[T], str | None],
        source: str | None = None,
        *,
        served_by_mcp: Callable[[T], bool] | None = None,
    ) -> list[T]:
        """The items `allow` shows, best-ranked first (ties keep their listed order).

        Each item is matched by `name_of(item)` (None: hidden) and `source`. An ambiguous name
        (with `shared_names="hide"`) and a name the catalog lacks are hidden and named in a
        WARNING once per catalog version (`served_by_mcp(item)` picks the MCP advice)."""
        step = self.step(allow)
        if step.catalog is None:
            return []  # nothing to match routes against, nor to ask the rules about: fail closed
        kept: list[tuple[int, int, T]] = []
        for position, item in enumerate(items):
            name = name_of(item)
            if name is None:
                continue
            if step.passed_over(name, source):
                continue
            match = step.match(name, source)
            if step.shows(match):
                kept.append((step.rank(match), position, item))
            else:
                step.warn_hidden(match, served_by_mcp=served_by_mcp is not None and served_by_mcp(item))
        kept.sort(key=lambda entry: (entry[0], entry[1]))
        return [item for _, _, item in kept]

    def select_permitted(
        self,
        allow: AllowSet,
        items: Sequence[T],
        name_of: Callable[[T], str | None],
        source: str | None = None,
    ) -> list[tuple[T, str]]:
        """The items the rules permit for `allow.principal`, relevance aside, each with its catalog
        route, in their listed order. Matched and warned about as in `select`."""
        catalog = self.catalog
        if catalog is None:
            return []
        kept: list[tuple[T, str]] = []
        for item in items:
            name = name_of(item)
            if name is None:
                continue
            match = _match(catalog, name, source, None)
            if match.route is None or match.route not in catalog:
                self._warn_hidden(catalog, allow, match, False, "tool")
            elif permitted(self.provider, match.route, allow.principal):
                kept.append((item, match.route))
        return kept

    def pinned_routes(self) -> frozenset[str]:
        """The catalog routes of the provider's always-visible tools (`Visibility(always_visible=...)`,
        matched by name or route as `Visibility` matches them); empty for a provider without an
        `always_visible` collection. Whether one may be shown is still the rules' (`permits`)."""
        catalog = self.catalog
        names: object = getattr(self.provider, "always_visible", None)
        if catalog is None or not isinstance(names, (set, frozenset, tuple, list)):
            return frozenset()
        wanted = {name for name in cast("Collection[object]", names) if isinstance(name, str)}
        return frozenset(cap.route for cap in catalog if cap.name in wanted or cap.route in wanted)

    def live_contract_matches(
        self, allow: AllowSet, match: ToolMatch, fingerprint_of: Callable[[Capability], str | None]
    ) -> bool:
        """Is the live tool `match`, shown by `allow`, still the contract the catalog routed?
        `fingerprint_of(capability)` fingerprints the live tool as that catalog entry."""
        routes = (
            (match.route,) if match.route is not None else tuple(r for r in match.routes if r in allow.routes)
        )
        return self.contract_matches(self.catalog, allow, match.name, routes, fingerprint_of)

    # -- why a tool stays hidden ------------------------------------------------------------------

    def warn_hidden(
        self, allow: AllowSet, match: ToolMatch, *, served_by_mcp: bool = False, kind: str = "tool"
    ) -> None:
        """Name a hidden tool once per catalog version when the catalog cannot match it: its name
        is ambiguous (and `allow` routed it), or the catalog lacks it. Silent otherwise. `kind`
        names what the tool is in the adapter's terms ("handoff"); `served_by_mcp` gives the
        advice for a tool an MCP server lists live."""
        self._warn_hidden(self.catalog, allow, match, served_by_mcp, kind)

    def _warn_hidden(
        self, catalog: Catalog | None, allow: AllowSet, match: ToolMatch, served_by_mcp: bool, kind: str
    ) -> None:
        if catalog is None or (match.route is not None and match.route in catalog):
            return  # the catalog has it: hidden by the allow-set or the rules, which is no news
        if match.ambiguous:
            if self.shared_names == "hide" and match.name in allow.names:
                self.warn_once(
                    ("ambiguous", catalog.version, match.name),
                    "tool %r is hidden: the catalog has several tools of that name (%s) and nothing says "
                    "which one this is, so a rule on one route (blocked, allowed) could not be kept. %s",
                    match.name,
                    ", ".join(match.routes),
                    self.advice.ambiguous,
                )
            return
        self._warn_unlisted(catalog, match, served_by_mcp, kind)

    def _warn_unlisted(self, catalog: Catalog, match: ToolMatch, served_by_mcp: bool, kind: str) -> None:
        name, route = match.name, match.route
        where = f"route {route}" if route is not None else f"tool named {name!r}"
        key = ("unlisted", catalog.version, route, name)
        skipped = next(
            (s for s in catalog.skipped if s.name == name and route in (None, make_route(s.source, s.name))),
            None,
        )
        if skipped is not None:
            self.warn_once(
                key,
                "%s %r is not in the router's catalog (no %s), so it stays hidden: the catalog skipped "
                "it when it was built (source %r, %s: %s; see catalog.skipped). Fix the tool where it is "
                "defined (its server, for an MCP tool) or the catalog's CatalogLimits, as the reason "
                "says, then rebuild the catalog.",
                kind,
                name,
                where,
                skipped.source,
                skipped.reason,
                skipped.detail,
            )
            return
        mcp = served_by_mcp and self.advice.unlisted_mcp is not None
        self.warn_once(
            key,
            "%s %r is not in the router's catalog (no %s), so it stays hidden. %s",
            "MCP tool" if mcp else kind,
            name,
            where,
            self.advice.unlisted_mcp if mcp else self.advice.unlisted,
        )
