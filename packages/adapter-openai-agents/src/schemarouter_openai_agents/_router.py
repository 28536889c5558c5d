"""`OpenAIAgentsRouter`: one routing policy behind the Agents SDK's own visibility hooks.

The SDK asks three questions, each through its own hook: which MCP tools to list
(`tool_filter`), whether a function tool is enabled (`FunctionTool.is_enabled`) and
whether a handoff is enabled (`Handoff.is_enabled`). All three are answered here from
the same `AllowSet`, computed once per run context and routing input.

The router only narrows what the model sees. It never touches approvals
(`require_approval`, `needs_approval`) or tool guardrails; the SDK applies those to
every tool that stays visible, and refuses calls to tools that are not.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from schemarouter import AllowSet, AllowSetProvider, RoutingError, UserError
from schemarouter.visibility import principal_identity, request_via

from ._cache import ContextMemo
from ._checks import CatalogChecks
from ._request import RequestFrom, RouteRequest, default_request_from
from .errors import MissingRequestError

if TYPE_CHECKING:
    from agents import Agent, FunctionTool, Handoff
    from agents.mcp import ToolFilterContext
    from mcp.types import Tool as MCPTool

__all__ = [
    "FUNCTION_SOURCE",
    "HANDOFF_SOURCE",
    "LOGGER_NAME",
    "OpenAIAgentsRouter",
    "RoutedPredicate",
    "RoutingOutcome",
]

LOGGER_NAME = "schemarouter.openai_agents"
FUNCTION_SOURCE = "functions"
"""Default catalog source of gated and mirrored `FunctionTool`s (routes `functions:<name>`)."""
HANDOFF_SOURCE = "handoffs"
"""Default catalog source of gated and mirrored handoffs (routes `handoffs:<tool name>`)."""

_log = logging.getLogger(LOGGER_NAME)


@dataclass(frozen=True, slots=True)
class RoutingOutcome:
    """The routing decision for one run context.

    Exactly one of `allow_set` and `failure` is set. On failure every routed tool is
    hidden (fail closed), `failure` says why and `error` is a `schemarouter.RoutingError`
    (`MissingRequestError` when the run carries no request) whose `__cause__` is the
    original exception, if any.
    """

    request: RouteRequest | None
    allow_set: AllowSet | None
    failure: str | None = None
    error: BaseException | None = None

    def allows(self, name: str, source: str) -> bool:
        """Is the tool `source:name` visible? Always False after a failure."""
        return self.allow_set is not None and self.allow_set.allows(name, source)

    @property
    def visible_names(self) -> tuple[str, ...]:
        return self.allow_set.names if self.allow_set is not None else ()


_catalog_of = CatalogChecks.catalog_of


class OpenAIAgentsRouter:
    """Routes MCP tools, function tools and handoffs of OpenAI Agents from one `Visibility`.

    `request_from` receives `RunContextWrapper.context` (the object given to
    `Runner.run(context=...)`) and returns the request: a `RouteRequest`, a query string,
    a `(query, principal)` tuple, or None when the run carries no request. The default,
    `default_request_from`, reads a string, a mapping's `"query"` / `"principal"` keys or
    an object's `query` / `principal` attributes.

    MCP tools are matched by route: the SDK server's `name` is the catalog source (map
    other names with `mcp_sources={"sdk name": "catalog source"}`). Function tools and
    handoffs use `function_source` and `handoff_source` unless a gate says otherwise.

    Fail closed: when no request can be found, or the provider raises, every routed
    tool is hidden and a WARNING is logged on the `schemarouter.openai_agents` logger;
    `outcome(run_context)` returns the failure too. A live MCP tool whose contract differs
    from the catalog's is hidden too (WARNING once per catalog version and tool).

    A tool object or handoff is gated by one router: gating it with another raises
    `UserError` (give each router its own copy, e.g. `dataclasses.replace(tool)`).
    """

    def __init__(
        self,
        visibility: AllowSetProvider,
        *,
        request_from: RequestFrom = default_request_from,
        mcp_sources: Mapping[str, str] | None = None,
        function_source: str = FUNCTION_SOURCE,
        handoff_source: str = HANDOFF_SOURCE,
        max_contexts: int = 1024,
    ) -> None:
        if not callable(getattr(visibility, "allow_set", None)):
            raise UserError(
                "visibility must provide allow_set(query, principal) (e.g. schemarouter.Visibility)"
            )
        if not callable(request_from):
            raise UserError("request_from must be callable")
        if isinstance(max_contexts, bool) or not isinstance(max_contexts, int) or max_contexts < 1:
            raise UserError(f"max_contexts must be a positive int, got {max_contexts!r}")
        self.visibility = visibility
        self.request_from = request_from
        self.mcp_sources: dict[str, str] = dict(mcp_sources or {})
        self.function_source = function_source
        self.handoff_source = handoff_source
        self._memo: ContextMemo[RoutingOutcome] = ContextMemo(max_contexts)
        self._warned_sources: set[str] = set()
        self._checks = CatalogChecks(_log)

    # -- the decision ---------------------------------------------------------------------------

    def outcome(self, run_context: Any) -> RoutingOutcome:
        """The routing decision for this run context (computed at most once per routing input).

        `run_context` is the SDK's `RunContextWrapper` (anything with a `context` attribute).
        Never raises: failures are returned, logged, and hide every routed tool.
        """
        try:
            request = self._request(run_context)
        except RoutingError as error:
            key: Hashable = ("request_error", str(error))
            return self._remember(run_context, key, partial(self._failed, None, error))
        if request is None:
            missing = MissingRequestError("the run context carries no request")
            return self._remember(run_context, ("missing",), partial(self._failed, None, missing))
        catalog = _catalog_of(self.visibility)
        try:
            # by the principal's identity: `1`, `True` and `1.0` are equal in Python, not one principal
            principal = principal_identity(request.principal)
            key = ("request", request.query, principal, catalog.version if catalog else None)
            hash(key)
        except (TypeError, RecursionError) as exc:
            error = RoutingError(
                f"unusable request: the principal must be hashable, got {type(request.principal).__name__}"
            )
            error.__cause__ = exc
            return self._failed(request, error)
        return self._remember(run_context, key, partial(self._route, request))

    def _request(self, run_context: Any) -> RouteRequest | None:
        """The run's request; raises `RoutingError` saying whether the context or `request_from` failed."""
        context = getattr(run_context, "context", None)
        return request_via(self.request_from, context, default=self.request_from is default_request_from)

    def _remember(
        self, run_context: Any, key: Hashable, compute: Callable[[], RoutingOutcome]
    ) -> RoutingOutcome:
        cached = self._memo.get(run_context, key)
        if cached is not None:
            return cached
        outcome = compute()
        self._memo.put(run_context, key, outcome)
        return outcome

    def _route(self, request: RouteRequest) -> RoutingOutcome:
        try:
            allow_set = self.visibility.allow_set(request.query, request.principal)
        except Exception as exc:
            error = RoutingError(f"routing failed: {type(exc).__name__}: {exc}")
            error.__cause__ = exc
            return self._failed(request, error)
        if not isinstance(allow_set, AllowSet):  # pyright: ignore[reportUnnecessaryIsInstance]
            error = RoutingError(f"routing failed: allow_set returned {type(allow_set).__name__}")
            return self._failed(request, error)
        return RoutingOutcome(request, allow_set)

    @staticmethod
    def _failed(request: RouteRequest | None, error: RoutingError) -> RoutingOutcome:
        failure = str(error)
        _log.warning("SchemaRouter hid every routed tool for this run (%s)", failure)
        return RoutingOutcome(request, None, failure, error)

    # -- MCP: the dynamic tool_filter ---------------------------------------------------------

    def source_for_server(self, server_name: str) -> str:
        """The catalog source whose routes an SDK MCP server's tools are matched against."""
        return self.mcp_sources.get(server_name, server_name)

    async def tool_filter(self, context: ToolFilterContext, tool: MCPTool) -> bool:
        """The SDK's dynamic MCP `tool_filter`: True when the tool is in this run's allow-set
        and its live contract is still the catalog's (a changed tool is hidden, WARNING once).

        Pass the bound method itself: `MCPServerStdio(..., tool_filter=router.tool_filter)`.
        """
        source = self.source_for_server(context.server_name)
        self._check_source(source, context.server_name)
        outcome = self.outcome(context.run_context)
        if outcome.allow_set is None or not outcome.allow_set.allows(tool.name, source):
            return False
        catalog = _catalog_of(self.visibility)
        return self._checks.mcp_contract_matches(catalog, outcome.allow_set, source, tool)

    def _warn_if_unlisted(self, kind: str, name: str, source: str) -> None:
        """Log once per catalog version that a gated tool is not in the catalog (it stays hidden)."""
        self._checks.warn_if_unlisted(_catalog_of(self.visibility), kind, name, source)

    def _check_source(self, source: str, server_name: str) -> None:
        if source in self._warned_sources:
            return
        catalog = _catalog_of(self.visibility)
        if catalog is not None and source not in catalog.sources:
            self._warned_sources.add(source)
            _log.warning(
                "MCP server %r maps to source %r, which is not in the router's catalog %s; its tools stay "
                "hidden. Name the server like the catalog source, or pass mcp_sources=.",
                server_name,
                source,
                list(catalog.sources),
            )

    # -- function tools and handoffs ----------------------------------------------------------

    def is_enabled(self, name: str, *, source: str | None = None, inner: Any = True) -> RoutedPredicate:
        """An `is_enabled` callable for the function tool (or handoff tool) `name`.

        Visible only when `source:name` is in this run's allow-set *and* `inner` (the tool's
        own `is_enabled`: a bool or a callable) allows it. `inner` may be this router's own
        predicate (it is replaced), never another router's (`UserError`).
        """
        return RoutedPredicate(self, name, source or self.function_source, inner)

    def handoff_is_enabled(
        self, tool_name: str, *, source: str | None = None, inner: Any = True
    ) -> RoutedPredicate:
        """An `is_enabled` callable for the handoff whose tool name is `tool_name`."""
        return RoutedPredicate(self, tool_name, source or self.handoff_source, inner, kind="handoff")

    def gate(self, tool: FunctionTool, *, source: str | None = None) -> FunctionTool:
        """Route an existing `FunctionTool`: its `is_enabled` now also requires the allow-set.

        Changes only `is_enabled`, in place, and returns the same object: its approval
        policy (`needs_approval`) and guardrails are untouched. Gating again with this router
        replaces the routing part instead of stacking it. A tool already gated by another
        router raises `UserError`: the object is shared by every agent holding it, so the
        second router's routing would replace the first's. Gate a copy per router instead,
        made before gating: `router_b.gate(dataclasses.replace(tool))`.
        """
        from agents import FunctionTool

        if not isinstance(tool, FunctionTool):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(
                f"only FunctionTool has is_enabled; cannot route {type(tool).__name__}. "
                "Use tool_filter for MCP servers."
            )
        tool.is_enabled = self.is_enabled(tool.name, source=source, inner=tool.is_enabled)
        return tool

    def gate_tools(self, tools: Iterable[FunctionTool], *, source: str | None = None) -> list[FunctionTool]:
        """`gate` every tool; returns them as a list (same objects)."""
        return [self.gate(tool, source=source) for tool in tools]

    def gate_handoff(
        self, item: Handoff[Any, Any] | Agent[Any], *, source: str | None = None
    ) -> Handoff[Any, Any]:
        """Route a handoff (an existing `Handoff`, changed in place, or an `Agent`, wrapped with `handoff()`).

        Like `gate`, a `Handoff` already gated by another router raises `UserError`.
        """
        from agents import Agent, Handoff, handoff

        if isinstance(item, Agent):
            item = handoff(item)
        if not isinstance(item, Handoff):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"cannot route {type(item).__name__} as a handoff")
        item.is_enabled = self.handoff_is_enabled(item.tool_name, source=source, inner=item.is_enabled)
        return item


class RoutedPredicate:
    """An SDK `is_enabled` callable: routed in this run, then the tool's own `is_enabled`.

    `kind` ("function tool" or "handoff") only names the tool in warnings.
    """

    __slots__ = ("inner", "kind", "name", "router", "source")

    def __init__(
        self,
        router: OpenAIAgentsRouter,
        name: str,
        source: str,
        inner: Any = True,
        *,
        kind: str = "function tool",
    ) -> None:
        if isinstance(inner, RoutedPredicate):
            if inner.router is not router:
                raise UserError(
                    f"{kind} {name!r} is already gated by another OpenAIAgentsRouter; gating it again "
                    "would replace that router's routing for every agent holding this object (one "
                    "tenant's blocked tool would show for the other). Give each router its own "
                    "object: gate a copy made before gating, e.g. dataclasses.replace(tool)."
                )
            inner = inner.inner  # re-gating by the same router replaces the routing part
        if not (isinstance(inner, bool) or callable(inner)):
            raise UserError(f"is_enabled must be a bool or a callable, got {type(inner).__name__}")
        self.router = router
        self.name = name
        self.source = source
        self.inner: Any = inner
        self.kind = kind

    async def __call__(self, run_context: Any, agent: Any) -> bool:
        outcome = self.router.outcome(run_context)
        if not outcome.allows(self.name, self.source):
            if outcome.allow_set is not None:
                self.router._warn_if_unlisted(self.kind, self.name, self.source)
            return False
        inner = self.inner
        if isinstance(inner, bool):
            return inner
        result = inner(run_context, agent)
        if inspect.isawaitable(result):
            result = await result
        return bool(result)

    def __repr__(self) -> str:
        return f"RoutedPredicate({self.source}:{self.name})"
