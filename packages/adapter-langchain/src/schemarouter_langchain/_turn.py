"""One routing decision per turn: request -> allow-set, cached on the full input, failing closed."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from langchain_core.tools import BaseTool

from schemarouter import AllowSet, AllowSetProvider, Catalog
from schemarouter.errors import RoutingError, UserError
from schemarouter.visibility import SessionOffer, principal_identity, request_via

from ._checks import FINGERPRINT_METADATA_KEY, CatalogChecks, catalog_of, route_of
from ._request import RequestFrom, RouteRequest, default_request_from, last_human_text
from .errors import MissingRequestError

__all__ = ["LOGGER_NAME", "OnFailure", "TurnRouting", "TurnRouter"]

LOGGER_NAME = "schemarouter.langchain"
logger = logging.getLogger(LOGGER_NAME)

OnFailure = Literal["hide", "raise"]


@dataclass(frozen=True, slots=True)
class TurnRouting:
    """What is visible this turn. On failure nothing is visible and `failure` says why.

    A tool whose route is known (an `McpToolkit` tool records it in `metadata["schemarouter_route"]`)
    is visible when the allow-set holds that route: a same-named tool of another source in the
    allow-set does not make it visible. A tool with no known route is matched by name.

    In conversation mode (`conversation` is set) `allow_set` is the conversation's list of tools
    (first-offered order), a routed tool is also hidden when a `blocked` rule matches it, and
    `find_tools` says whether the router's find-tools tool is visible; `offer` is the session's
    answer for this model step (None for the check of a call, which reads the saved list as is).
    """

    visible: frozenset[str]
    """Names that may be visible: the allow-set's, then always-visible ones not blocked by name."""
    order: tuple[str, ...]
    """Visible names in allow-set order (best first, then always-visible ones)."""
    allow_set: AllowSet | None
    failure: str | None = None
    always: frozenset[str] = frozenset()
    """This router's `always_visible` names (shown unless a `blocked` rule matches the tool)."""
    blocked: frozenset[str] = frozenset()
    """The provider's `blocked` rules (names and routes), as far as it exposes them."""
    blocked_names: frozenset[str] = frozenset()
    """Names of catalog tools whose route is blocked: a tool with no known route and such a
    name counts as blocked."""
    conversation: str | None = None
    """The conversation this routing belongs to (conversation mode), else None."""
    find_tools: bool = False
    """Conversation mode: the find-tools tool is visible (first)."""
    offer: SessionOffer | None = None
    """Conversation mode, on a model step: what the session offered."""

    def routed(self, name: str, route: str | None = None) -> bool:
        """Did the allow-set route this tool (by `route` when known, else by `name`)?"""
        allow_set = self.allow_set
        if allow_set is None:
            return False
        return route in allow_set.routes if route is not None else name in allow_set.names

    def is_blocked(self, name: str, route: str | None = None) -> bool:
        """Does a `blocked` rule of the provider match this tool?"""
        if name in self.blocked:
            return True
        return route in self.blocked if route is not None else name in self.blocked_names

    def allows(self, name: str, route: str | None = None) -> bool:
        """Is a tool called `name` (served as `route`, when known) visible this turn?

        Routed tools are visible; this router's `always_visible` ones too, unless blocked
        (blocked wins, as in `Visibility`). On a routing failure nothing is visible.
        """
        if self.allow_set is None:
            return False
        if self.routed(name, route):
            return self.conversation is None or not self.is_blocked(name, route)
        return name in self.always and not self.is_blocked(name, route)

    def rank(self, name: str, route: str | None = None) -> int:
        """Position of a visible tool: allow-set order (by route when known), then always-visible order."""
        allow_set = self.allow_set
        if allow_set is not None:
            if route is not None and route in allow_set.routes:
                return allow_set.routes.index(route)
            if route is None and name in allow_set.names:
                return allow_set.names.index(name)
        shift = len(allow_set.names) if allow_set is not None else 0
        return shift + (self.order.index(name) if name in self.order else len(self.order))


@dataclass(frozen=True, slots=True)
class _Entry:
    context: Any
    """Held so the context's identity cannot be reused by another object while cached."""
    allow_set: AllowSet


class TurnRouter:
    """Resolves the request for a turn and asks the provider for its allow-set.

    The cache key is the full input: the context's identity, the query, the principal and
    the catalog version. Nothing is shared between two contexts, failures are never cached,
    and a provider without a visible catalog version is asked every time. A `fresh` routing
    (the call-time check) always asks the provider and replaces the cached answer (a failure
    drops it): a run resumed after an approval passes the same context object again, and
    must not run a call under the allow-set it was paused with.

    `shows(tool, routing)` is the per-tool answer: a routed route (or name, for a tool with no
    known route), and for an `McpToolkit` tool the contract the catalog routed. A tool missing
    from the catalog, or whose contract changed, is hidden with a WARNING once per catalog
    version and tool.

    With no request in the context the run fails closed (`MissingRequestError`), unless
    `fallback_to_messages` routes on the last human message instead: that request carries no
    principal, so it is logged at WARNING (once per router) when `warn_on_fallback` is set.
    """

    def __init__(
        self,
        provider: AllowSetProvider,
        *,
        request_from: RequestFrom | None = None,
        fallback_to_messages: bool = False,
        warn_on_fallback: bool = True,
        context_name: str = "runtime.context",
        always_visible: Collection[str] = (),
        on_failure: OnFailure = "hide",
        cache_size: int = 256,
    ) -> None:
        if not isinstance(provider, AllowSetProvider):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(
                f"expected an AllowSetProvider such as schemarouter.Visibility, got {type(provider).__name__}"
            )
        if isinstance(always_visible, str):
            raise UserError("always_visible must be a collection of tool names, not a single string")
        if on_failure not in ("hide", "raise"):
            raise UserError(f"on_failure must be 'hide' or 'raise', got {on_failure!r}")
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise UserError(f"cache_size must be an int >= 0, got {cache_size!r}")
        self.provider = provider
        self.request_from: RequestFrom = request_from or default_request_from
        self.fallback_to_messages = fallback_to_messages
        self.warn_on_fallback = warn_on_fallback
        self.context_name = context_name
        self.always_visible = frozenset(always_visible)
        self.on_failure: OnFailure = on_failure
        self._cache: OrderedDict[tuple[int, str, Hashable, str], _Entry] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._checks = CatalogChecks(logger)
        self._blocked_names: tuple[str, frozenset[str], frozenset[str]] = ("", frozenset(), frozenset())

    def warn_once(self, key: Hashable, message: str, *args: object) -> None:
        """Log `message % args` at WARNING the first time this router sees `key`."""
        self._checks.warn_once(key, message, *args)

    def _from_context(self, context: Any) -> RouteRequest | None:
        """The request `request_from` finds in the context; raises `RoutingError` saying what failed."""
        return request_via(self.request_from, context, default=self.request_from is default_request_from)

    def request(self, context: Any, messages: Sequence[Any]) -> RouteRequest:
        """The request for this run; raises `MissingRequestError` when there is none, and
        `RoutingError` when the context holds an unusable one or `request_from` fails."""
        request = self._from_context(context)
        if request is None and self.fallback_to_messages:
            text = last_human_text(messages)
            if text is not None and text.strip():
                request = RouteRequest(text)
                if self.warn_on_fallback:
                    self._checks.warn_once(
                        ("fallback",),
                        "no request in %s: routing on the last human message, with no principal "
                        "(fallback_to_messages=True; logged once per router). Pass the request in "
                        "the context on every invoke and every resume.",
                        self.context_name,
                    )
        if request is None or not request.query.strip():
            fallback = " and no human message text" if self.fallback_to_messages else ""
            raise MissingRequestError(
                f"the run carries no request: no query in {self.context_name}{fallback}, so every "
                f"tool is hidden. Pass the request in {self.context_name} on every call, resumes "
                "included (LangGraph does not checkpoint runtime.context)"
            )
        return request

    def _cached(self, context: Any, request: RouteRequest, *, fresh: bool) -> AllowSet:
        catalog = catalog_of(self.provider)
        version = catalog.version if catalog is not None else None
        try:
            # by the principal's identity: `1`, `True` and `1.0` are equal in Python, not one principal
            principal = principal_identity(request.principal)
            key = (id(context), request.query, principal, version) if version else None
            hash(key)
        except (TypeError, RecursionError):
            key = None
        if key is not None:
            with self._lock:
                if fresh:
                    self._cache.pop(key, None)
                elif (entry := self._cache.get(key)) is not None and entry.context is context:
                    self._cache.move_to_end(key)
                    return entry.allow_set
        allow_set = self.provider.allow_set(request.query, request.principal)
        if not isinstance(allow_set, AllowSet):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise RoutingError(f"the allow-set provider returned {type(allow_set).__name__}, not an AllowSet")
        if key is not None:
            with self._lock:
                self._cache[key] = _Entry(context, allow_set)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return allow_set

    def _blocked(
        self, catalog: Catalog | None, *, needed: bool = False
    ) -> tuple[frozenset[str], frozenset[str]]:
        """The provider's `blocked` rules (when it exposes them, as `Visibility` does) and the
        names of catalog tools whose route they block. Resolved once per catalog version; only
        when `always_visible` names (or, with `needed`, a conversation's list) need them."""
        rules: Any = getattr(self.provider, "blocked", None)
        if not (self.always_visible or needed) or not isinstance(rules, Collection) or isinstance(rules, str):
            return frozenset(), frozenset()
        blocked = frozenset(r for r in cast("Collection[object]", rules) if isinstance(r, str))
        if catalog is None:
            return blocked, frozenset()
        version, cached_rules, names = self._blocked_names
        if version != catalog.version or cached_rules != blocked:
            names = frozenset(cap.name for cap in catalog if cap.route in blocked)
            self._blocked_names = (catalog.version, blocked, names)
        return blocked, names

    def route(self, context: Any, messages: Sequence[Any], *, fresh: bool = False) -> TurnRouting:
        """The visible tools for this turn. Never raises unless `on_failure="raise"`.

        `fresh=True` asks the provider even when this context's answer is cached. On a failure
        nothing is visible, this router's `always_visible` tools included.
        """
        try:
            request = self.request(context, messages)
            allow_set = self._cached(context, request, fresh=fresh)
        except Exception as exc:
            return self.failed(exc)
        return self._routing(allow_set)

    def failed(self, exc: Exception, conversation: str | None = None) -> TurnRouting:
        """The routing of a turn whose routing failed: nothing visible. Logged at WARNING, or
        raised as a `RoutingError` with `on_failure="raise"`."""
        failure = f"{type(exc).__name__}: {exc}"
        logger.warning("routing failed; every tool is hidden for this turn (%s)", failure)
        if self.on_failure == "raise":
            if isinstance(exc, RoutingError):
                raise exc
            raise RoutingError(f"routing failed for this request: {failure}") from exc
        return TurnRouting(frozenset(), (), None, failure, conversation=conversation)

    def _routing(
        self,
        allow_set: AllowSet,
        *,
        conversation: str | None = None,
        find_tools: bool = False,
        offer: SessionOffer | None = None,
    ) -> TurnRouting:
        blocked, blocked_names = self._blocked(catalog_of(self.provider), needed=conversation is not None)
        always = sorted(self.always_visible - blocked)
        order = tuple(dict.fromkeys([*allow_set.names, *always]))
        return TurnRouting(
            frozenset(order),
            order,
            allow_set,
            None,
            self.always_visible,
            blocked,
            blocked_names,
            conversation,
            find_tools,
            offer,
        )

    def conversation_routing(
        self,
        request: RouteRequest,
        conversation: str,
        routes: tuple[str, ...],
        names: tuple[str, ...],
        *,
        find_tools: bool,
        offer: SessionOffer | None = None,
    ) -> TurnRouting:
        """The routing of a conversation's step: its list (`routes`, `names`, in first-offered
        order) stands for the allow-set, and the find-tools tool is visible when `find_tools`."""
        catalog = catalog_of(self.provider)
        reason = "routed" if routes else (offer.allow_set.reason if offer is not None else "no_terms_matched")
        listed = AllowSet(
            request.query,
            request.principal,
            catalog.version if catalog is not None else "",
            names,
            routes,
            not routes,
            reason,
        )
        return self._routing(listed, conversation=conversation, find_tools=find_tools, offer=offer)

    def shows(self, tool: BaseTool, routing: TurnRouting) -> bool:
        """Is `tool` visible this turn?"""
        return self.shows_named(tool.name, tool.metadata, routing)

    def shows_named(self, name: str, metadata: Mapping[str, Any] | None, routing: TurnRouting) -> bool:
        """Is the tool `name` with `metadata` visible this turn? Its route (when its metadata
        records one), else its name, must be visible, and a tool converted by `McpToolkit` must
        still be the contract the allow-set routed."""
        route = route_of(metadata)
        allow_set = routing.allow_set
        if not routing.allows(name, route):
            if allow_set is not None:
                self._checks.warn_if_unlisted(catalog_of(self.provider), name, route)
            return False
        fingerprint = (metadata or {}).get(FINGERPRINT_METADATA_KEY)
        if allow_set is None or not routing.routed(name, route) or not isinstance(fingerprint, str):
            return True  # visible by this router's always_visible, or not an McpToolkit tool
        return self._checks.mcp_contract_matches(
            catalog_of(self.provider), allow_set, name, fingerprint, route
        )
