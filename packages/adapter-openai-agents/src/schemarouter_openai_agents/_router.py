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

from schemarouter import AllowSet, AllowSetProvider, Catalog, UserError

from ._cache import ContextMemo
from ._request import RequestFrom, RouteRequest, coerce_request, default_request_from
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
    hidden (fail closed) and `failure` says why; `error` keeps the exception.
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


def _catalog_of(provider: AllowSetProvider) -> Catalog | None:
    router = getattr(provider, "router", None)
    catalog = getattr(router, "catalog", None)
    return catalog if isinstance(catalog, Catalog) else None


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
    `outcome(run_context)` returns the failure too.
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
        self.visibility = visibility
        self.request_from = request_from
        self.mcp_sources: dict[str, str] = dict(mcp_sources or {})
        self.function_source = function_source
        self.handoff_source = handoff_source
        self._memo: ContextMemo[RoutingOutcome] = ContextMemo(max_contexts)
        self._warned_sources: set[str] = set()

    # -- the decision ---------------------------------------------------------------------------

    def outcome(self, run_context: Any) -> RoutingOutcome:
        """The routing decision for this run context (computed at most once per routing input).

        `run_context` is the SDK's `RunContextWrapper` (anything with a `context` attribute).
        Never raises: failures are returned, logged, and hide every routed tool.
        """
        try:
            request = coerce_request(self.request_from(getattr(run_context, "context", None)))
        except Exception as exc:
            key: Hashable = ("request_error", type(exc).__name__, str(exc))
            return self._remember(run_context, key, partial(self._failed, None, "request_from failed", exc))
        if request is None:
            missing = MissingRequestError("the run context carries no request")
            return self._remember(
                run_context, ("missing",), partial(self._failed, None, "no request", missing)
            )
        catalog = _catalog_of(self.visibility)
        try:
            key = ("request", request.query, request.principal, catalog.version if catalog else None)
            hash(key)
        except TypeError as exc:
            return self._failed(request, "unusable principal", exc)
        return self._remember(run_context, key, partial(self._route, request))

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
            return self._failed(request, "routing failed", exc)
        if not isinstance(allow_set, AllowSet):  # pyright: ignore[reportUnnecessaryIsInstance]
            return self._failed(
                request, "routing failed", TypeError(f"allow_set returned {type(allow_set).__name__}")
            )
        return RoutingOutcome(request, allow_set)

    @staticmethod
    def _failed(request: RouteRequest | None, what: str, exc: BaseException) -> RoutingOutcome:
        failure = f"{what}: {type(exc).__name__}: {exc}"
        _log.warning("SchemaRouter hid every routed tool for this run (%s)", failure)
        return RoutingOutcome(request, None, failure, exc)

    # -- MCP: the dynamic tool_filter ---------------------------------------------------------

    def source_for_server(self, server_name: str) -> str:
        """The catalog source whose routes an SDK MCP server's tools are matched against."""
        return self.mcp_sources.get(server_name, server_name)

    async def tool_filter(self, context: ToolFilterContext, tool: MCPTool) -> bool:
        """The SDK's dynamic MCP `tool_filter`: True when the tool is in this run's allow-set.

        Pass the bound method itself: `MCPServerStdio(..., tool_filter=router.tool_filter)`.
        """
        source = self.source_for_server(context.server_name)
        self._check_source(source, context.server_name)
        return self.outcome(context.run_context).allows(tool.name, source)

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
        own `is_enabled`: a bool or a callable) allows it.
        """
        return RoutedPredicate(self, name, source or self.function_source, inner)

    def handoff_is_enabled(
        self, tool_name: str, *, source: str | None = None, inner: Any = True
    ) -> RoutedPredicate:
        """An `is_enabled` callable for the handoff whose tool name is `tool_name`."""
        return RoutedPredicate(self, tool_name, source or self.handoff_source, inner)

    def gate(self, tool: FunctionTool, *, source: str | None = None) -> FunctionTool:
        """Route an existing `FunctionTool`: its `is_enabled` now also requires the allow-set.

        Changes only `is_enabled`, in place, and returns the same object: its approval
        policy (`needs_approval`) and guardrails are untouched. Gating again replaces the
        routing part instead of stacking it.
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
        """Route a handoff (an existing `Handoff`, changed in place, or an `Agent`, wrapped with `handoff()`)."""
        from agents import Agent, Handoff, handoff

        if isinstance(item, Agent):
            item = handoff(item)
        if not isinstance(item, Handoff):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"cannot route {type(item).__name__} as a handoff")
        item.is_enabled = self.handoff_is_enabled(item.tool_name, source=source, inner=item.is_enabled)
        return item


class RoutedPredicate:
    """An SDK `is_enabled` callable: routed in this run, then the tool's own `is_enabled`."""

    __slots__ = ("inner", "name", "router", "source")

    def __init__(self, router: OpenAIAgentsRouter, name: str, source: str, inner: Any = True) -> None:
        if isinstance(inner, RoutedPredicate):
            inner = inner.inner  # re-gating replaces the routing part, never stacks it
        if not (isinstance(inner, bool) or callable(inner)):
            raise UserError(f"is_enabled must be a bool or a callable, got {type(inner).__name__}")
        self.router = router
        self.name = name
        self.source = source
        self.inner: Any = inner

    async def __call__(self, run_context: Any, agent: Any) -> bool:
        if not self.router.outcome(run_context).allows(self.name, self.source):
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
