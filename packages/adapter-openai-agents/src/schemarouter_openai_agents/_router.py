"""`OpenAIAgentsRouter`: one routing policy behind the Agents SDK's own visibility hooks.

The SDK asks three questions, each through its own hook: which MCP tools to list
(`tool_filter`), whether a function tool is enabled (`FunctionTool.is_enabled`) and
whether a handoff is enabled (`Handoff.is_enabled`). All three are answered here from
the same `AllowSet`, computed once per run context and routing input.

The router only narrows what the model sees. It never touches approvals
(`require_approval`, `needs_approval`) or tool guardrails; the SDK applies those to
every tool that stays visible, and refuses calls to tools that are not.

In conversation mode (`sessions=SessionLimits()`) the same hooks read the conversation's
list of tools (a `RoutingSession` per conversation and principal, its state kept in the run
context), and the router's `find_tools` tool lets the model ask for a tool it was not offered.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from schemarouter import AllowSetProvider, SessionLimits, UserError
from schemarouter.adapter import AdapterSettings, Decider, Decision, OnFailure, adapter_provider
from schemarouter.visibility import (
    FIND_TOOLS,
    SessionKey,
    request_via,
)

from ._checks import CatalogChecks
from ._conversations import make_find_tools_tool
from ._predicate import RoutedPredicate
from ._request import (
    ConversationFrom,
    RequestFrom,
    RouteRequest,
    conversation_via,
    default_conversation_from,
    default_request_from,
)
from ._tracing import install_tracing
from .errors import AdapterSetupError

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
_T = TypeVar("_T")

RoutingOutcome = Decision
"""The routing decision for one run context: core's `schemarouter.adapter.Decision` (this
adapter's name for it, kept)."""
_MISSING_REQUEST = (
    "the run context carries no request, so every routed tool is hidden: pass it on every "
    'run, e.g. Runner.run(agent, message, context={"query": message})'
)


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

    Conversation mode, `sessions=SessionLimits(...)`: each conversation keeps one list of
    tools that only grows (`schemarouter.RoutingSession`), and the hooks show that list.
    `conversation_from` finds the conversation id in the run context (the default reads a
    mapping's `"conversation"` key or an object's `conversation` attribute); a run with no
    conversation id fails closed. The session's plain state is kept in the run context
    (`SESSION_KEY`), so it survives `RunState.to_json()` / `from_json()`. Give the agent
    `routing.find_tools` so the model can ask for what it misses, and build it as a
    `RoutedAgent` to offer tools in the conversation's order. The router remembers up to
    `cache_size` run contexts' decisions and as many conversations' sessions; a forgotten
    session is rebuilt from the state its context carries (sealed under `session_key`: give
    every process that serves a conversation the same key).

    `on_failure="raise"` raises the `RoutingError` as well as hiding every routed tool (the SDK
    then ends the run); the default, `"hide"`, logs it. Settings are checked when the router is
    built (`schemarouter.adapter.AdapterSetupError`), as in every adapter.
    """

    def __init__(
        self,
        visibility: AllowSetProvider,
        *,
        request_from: RequestFrom = default_request_from,
        mcp_sources: Mapping[str, str] | None = None,
        function_source: str = FUNCTION_SOURCE,
        handoff_source: str = HANDOFF_SOURCE,
        cache_size: int = 1024,
        sessions: SessionLimits | None = None,
        conversation_from: ConversationFrom = default_conversation_from,
        session_key: SessionKey | None = None,
        on_failure: OnFailure = "hide",
        max_contexts: int | None = None,
    ) -> None:
        visibility = adapter_provider(visibility)
        if max_contexts is not None:
            warnings.warn(
                "OpenAIAgentsRouter(max_contexts=...) is now cache_size=..., as in every adapter "
                "(the old name works until 0.2)",
                DeprecationWarning,
                stacklevel=2,
            )
            cache_size = max_contexts
        self.settings = AdapterSettings(
            sessions=sessions, session_key=session_key, on_failure=on_failure, cache_size=cache_size
        )
        if not callable(request_from):
            raise AdapterSetupError("request_from must be callable")
        if not callable(conversation_from):
            raise AdapterSetupError("conversation_from must be callable")
        install_tracing()  # routing spans also show in the SDK trace of each run
        self.visibility = visibility
        self.request_from = request_from
        self.mcp_sources: dict[str, str] = dict(mcp_sources or {})
        self.function_source = function_source
        self.handoff_source = handoff_source
        self._decider = Decider(visibility, self.settings, _log)
        self._checks = CatalogChecks(visibility, _log)
        self.sessions = sessions
        """The conversation limits, or None: routed per request (no conversation mode)."""
        self.conversation_from = conversation_from
        self._find_tool: FunctionTool | None = None

    # -- the decision ---------------------------------------------------------------------------

    def outcome(self, run_context: Any) -> RoutingOutcome:
        """The routing decision for this run context (computed at most once per routing input).

        `run_context` is the SDK's `RunContextWrapper` (anything with a `context` attribute).
        Never raises (unless `on_failure="raise"`): failures are returned, logged once per run
        context, and hide every routed tool.
        """
        context = getattr(run_context, "context", None)
        default = self.conversation_from is default_conversation_from
        return self._decider.decide(
            run_context,
            lambda: self._request(run_context),
            conversation=lambda: conversation_via(self.conversation_from, context, default=default),
            holder=context,
            missing_request=_MISSING_REQUEST,
            missing_conversation="conversation mode, and the run context names no conversation",
        )

    def _request(self, run_context: Any) -> RouteRequest | None:
        """The run's request; raises `RoutingError` saying whether the context or `request_from` failed."""
        context = getattr(run_context, "context", None)
        return request_via(self.request_from, context, default=self.request_from is default_request_from)

    @property
    def find_tools(self) -> FunctionTool:
        """The find-tools `FunctionTool` of this router's conversations (conversation mode only).

        Named, described and schema'd exactly as `schemarouter.visibility.FIND_TOOLS`. Put it in
        the agent's `tools`; it is enabled whenever the run's conversation offers it, and its
        answer adds the tools it finds to the conversation's list for the next model step. It
        never runs a tool body. Without conversation mode this raises `UserError`.
        """
        if self.sessions is None:
            raise UserError(
                "find_tools needs conversation mode: OpenAIAgentsRouter(visibility, sessions=SessionLimits())"
            )
        if self._find_tool is None:
            self._find_tool = make_find_tools_tool(self._answer_find_tools, self._find_tools_enabled)
        return self._find_tool

    async def _find_tools_enabled(self, run_context: Any, agent: Any) -> bool:
        offer = self.outcome(run_context).offer
        return offer is not None and offer.find_tools

    async def _answer_find_tools(self, tool_context: Any, query: str) -> str:
        """The find-tools result for the run's conversation ("failed" when its routing failed)."""
        decision = self.outcome(tool_context)
        result, _ = self._decider.find(decision, query, getattr(tool_context, "context", None))
        return result.text()

    def order_tools(self, run_context: Any, tools: Sequence[_T]) -> list[_T]:
        """`tools` (as the SDK lists them for a run) in the router's order: find-tools first,
        then the tools it does not route (in the SDK's order), then the routed tools in the
        conversation's order (first offered first; without conversation mode, best first).

        The SDK lists MCP tools before function tools, each in its own order; `RoutedAgent`
        calls this so the list as offered only grows at its end from one turn to the next.
        """
        outcome = self.outcome(run_context)
        rank = {name: i for i, name in enumerate(outcome.visible_names)}
        conversations = self.sessions is not None

        def place(item: tuple[int, _T]) -> tuple[int, int, int]:
            index, tool = item
            name = getattr(tool, "name", None)
            if conversations and name == FIND_TOOLS.name:
                return (0, 0, index)
            if isinstance(name, str) and name in rank:
                return (2, rank[name], index)
            return (1, 0, index)

        return [tool for _, tool in sorted(enumerate(tools), key=place)]

    # -- MCP: the dynamic tool_filter ---------------------------------------------------------

    def source_for_server(self, server_name: str) -> str:
        """The catalog source whose routes an SDK MCP server's tools are matched against."""
        return self.mcp_sources.get(server_name, server_name)

    async def tool_filter(self, context: ToolFilterContext, tool: MCPTool) -> bool:
        """The SDK's dynamic MCP `tool_filter`: True when the tool is in this run's allow-set (in
        conversation mode: the conversation's list) and its live contract is still the catalog's
        (a changed tool is hidden, WARNING once).

        Pass the bound method itself: `MCPServerStdio(..., tool_filter=router.tool_filter)`.
        """
        source = self.source_for_server(context.server_name)
        self._check_source(source, context.server_name)
        outcome = self.outcome(context.run_context)
        if outcome.allow_set is None or not self.shows(outcome, tool.name, source):
            return False
        return self._checks.mcp_contract_matches(outcome.allow_set, source, tool)

    def shows(self, outcome: RoutingOutcome, name: str, source: str) -> bool:
        """Is `source:name` visible in this run: in its decision, and permitted by the provider's
        rules now (asked on every check, never remembered: rules may change while a run or a
        conversation goes on, and a conversation's saved list never shows what they deny)."""
        return self._decider.shows(outcome, name, source)

    def _warn_if_unlisted(self, outcome: RoutingOutcome, kind: str, name: str, source: str) -> None:
        """Log once per catalog version that a gated tool is not in the catalog (it stays hidden)."""
        if outcome.allow_set is not None:
            self._checks.warn_if_unlisted(outcome.allow_set, kind, name, source)

    def _check_source(self, source: str, server_name: str) -> None:
        catalog = self.visibility.catalog
        if source not in catalog.sources:
            self._checks.warn_once(
                ("source", source),
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
