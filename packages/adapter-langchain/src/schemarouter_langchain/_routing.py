"""One routing decision per turn: request -> allow-set, cached on the full input, failing closed."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.tools import BaseTool

from schemarouter import AllowSet, AllowSetProvider, request_via
from schemarouter.errors import RoutingError, UserError

from ._checks import FINGERPRINT_METADATA_KEY, CatalogChecks, catalog_of
from ._request import RequestFrom, RouteRequest, default_request_from, last_human_text
from .errors import MissingRequestError

__all__ = ["LOGGER_NAME", "OnFailure", "TurnRouting", "TurnRouter"]

LOGGER_NAME = "schemarouter.langchain"
logger = logging.getLogger(LOGGER_NAME)

OnFailure = Literal["hide", "raise"]


@dataclass(frozen=True, slots=True)
class TurnRouting:
    """What is visible this turn. On failure no routed tool is visible and `failure` says why."""

    visible: frozenset[str]
    order: tuple[str, ...]
    """Visible names in allow-set order (best first, then always-visible ones)."""
    allow_set: AllowSet | None
    failure: str | None = None

    def allows(self, name: str) -> bool:
        return name in self.visible


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

    `shows(tool, routing)` is the per-tool answer: a routed name, and for an `McpToolkit` tool
    the contract the catalog routed. A tool missing from the catalog, or whose contract
    changed, is hidden with a WARNING once per catalog version and tool.
    """

    def __init__(
        self,
        provider: AllowSetProvider,
        *,
        request_from: RequestFrom | None = None,
        fallback_to_messages: bool = True,
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
        self.always_visible = frozenset(always_visible)
        self.on_failure: OnFailure = on_failure
        self._cache: OrderedDict[tuple[int, str, Hashable, str], _Entry] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._checks = CatalogChecks(logger)

    def _from_context(self, context: Any) -> RouteRequest | None:
        """The request `request_from` finds in the context; raises `RoutingError` saying what failed."""
        return request_via(self.request_from, context, default=self.request_from is default_request_from)

    def request(self, context: Any, messages: Sequence[Any]) -> RouteRequest:
        """The request for this run; raises `MissingRequestError` when there is none, and
        `RoutingError` when the context holds an unusable one or `request_from` fails."""
        request = self._from_context(context)
        if request is None and self.fallback_to_messages:
            text = last_human_text(messages)
            if text is not None:
                request = RouteRequest(text)
        if request is None or not request.query.strip():
            raise MissingRequestError(
                "the run carries no request: no query in runtime.context and no human message"
            )
        return request

    def _cached(self, context: Any, request: RouteRequest, *, fresh: bool) -> AllowSet:
        catalog = catalog_of(self.provider)
        version = catalog.version if catalog is not None else None
        try:
            key = (id(context), request.query, request.principal, version) if version else None
            hash(key)
        except TypeError:
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

    def route(self, context: Any, messages: Sequence[Any], *, fresh: bool = False) -> TurnRouting:
        """The visible tool names for this turn. Never raises unless `on_failure="raise"`.

        `fresh=True` asks the provider even when this context's answer is cached.
        """
        try:
            request = self.request(context, messages)
            allow_set = self._cached(context, request, fresh=fresh)
        except Exception as exc:
            failure = f"{type(exc).__name__}: {exc}"
            logger.warning("routing failed; every routed tool is hidden for this turn (%s)", failure)
            if self.on_failure == "raise":
                if isinstance(exc, RoutingError):
                    raise
                raise RoutingError(f"routing failed for this request: {failure}") from exc
            order = tuple(sorted(self.always_visible))
            return TurnRouting(frozenset(order), order, None, failure)
        order = tuple(dict.fromkeys([*allow_set.names, *sorted(self.always_visible)]))
        return TurnRouting(frozenset(order), order, allow_set)

    def shows(self, tool: BaseTool, routing: TurnRouting) -> bool:
        """Is `tool` visible this turn? Its name must be visible, and a tool converted by
        `McpToolkit` must still be the contract the allow-set routed."""
        allow_set = routing.allow_set
        if not routing.allows(tool.name):
            if allow_set is not None:
                self._checks.warn_if_unlisted(catalog_of(self.provider), tool.name)
            return False
        fingerprint = (tool.metadata or {}).get(FINGERPRINT_METADATA_KEY)
        if allow_set is None or tool.name not in allow_set.names or not isinstance(fingerprint, str):
            return True  # visible by this router's always_visible, or not an McpToolkit tool
        return self._checks.mcp_contract_matches(catalog_of(self.provider), allow_set, tool.name, fingerprint)
