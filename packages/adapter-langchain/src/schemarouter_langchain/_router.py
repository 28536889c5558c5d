"""`LangChainRouter`: routing middleware for `create_agent`, enforced again at call time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain.agents.middleware.types import ExtendedModelResponse, ToolCallRequest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.types import Command

from schemarouter import AllowSetProvider

from ._checks import route_of
from ._guard import ExecutionGuard, aguarded, guarded
from ._refusal import refusal_message
from ._request import RequestFrom, messages_of
from ._turn import OnFailure, TurnRouter, TurnRouting

__all__ = ["LangChainRouter"]

ModelResult = ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]
ToolResult = ToolMessage | Command[Any]


def _tool_choice_after(tool_choice: Any, kept: Collection[str]) -> Any:
    """Drop a tool choice that names a tool hidden this turn (it would name a tool the model lacks)."""
    named: Any = None
    if isinstance(tool_choice, str) and tool_choice not in ("auto", "any", "none", "required"):
        named = tool_choice
    elif isinstance(tool_choice, dict):
        function: Any = tool_choice.get("function")  # pyright: ignore[reportUnknownMemberType]
        named = function.get("name") if isinstance(function, dict) else tool_choice.get("name")  # pyright: ignore[reportUnknownMemberType]
    if isinstance(named, str) and named not in kept:
        return None
    return tool_choice


class LangChainRouter(AgentMiddleware[Any, Any, Any]):
    """Shows the model only this turn's allow-set, and refuses any other tool call.

    `wrap_model_call` narrows `request.tools` to the allow-set (routed tools best first,
    then `always_visible` ones; provider-native dict tools are kept as they are).
    `wrap_tool_call` returns an error `ToolMessage` for a call to a tool that is not
    visible, or not registered with the agent: LangChain's tool node would otherwise
    execute any registered tool the model names, so narrowing alone is not enough. It asks
    the provider again for every call (never a cached answer), so a call approved through
    `HumanInTheLoopMiddleware` is refused on resume when routing hides the tool by then.
    The tool the tool node actually starts is checked again (`on_tool_start`), so a later
    middleware that changes the call (a reviewer's `edit`) cannot run a hidden tool. Sync
    and async paths behave the same.

    Tools are matched by route when their metadata records one (`McpToolkit` tools do), so
    a rule about one server's tool never shows another server's tool of the same name;
    tools with no route are matched by name. `always_visible` names are shown for every
    request unless the provider's `blocked` rules (as `Visibility` exposes them) match the
    tool, and not at all when routing fails.

    The request comes from `runtime.context` through `request_from` (default: the
    context's `query` and `principal`, from a mapping or attributes). Pass the same
    `context` again when resuming an interrupted run. Without one the run fails closed;
    `fallback_to_messages=True` routes on the last human message instead (no principal;
    logged at WARNING once per router).

    On a routing failure (the provider raised, or there is no request) every tool is
    hidden and every call is refused; the failure is logged at WARNING on the
    `schemarouter.langchain` logger, or raised with `on_failure="raise"`. An `McpToolkit`
    tool whose contract differs from the one in the router's catalog is hidden and refused
    too, and a tool missing from the catalog is named; both WARNING once per catalog version.

    Place it first in `middleware=[...]`, before approval and guardrail middleware: it is
    then the outermost `wrap_tool_call`, so a hidden call is refused before anything else
    sees it, and the approval and guardrail middleware run unchanged for visible calls.
    """

    def __init__(
        self,
        visibility: AllowSetProvider,
        *,
        request_from: RequestFrom | None = None,
        fallback_to_messages: bool = False,
        always_visible: Collection[str] = (),
        on_failure: OnFailure = "hide",
    ) -> None:
        super().__init__()
        self.router = TurnRouter(
            visibility,
            request_from=request_from,
            fallback_to_messages=fallback_to_messages,
            always_visible=always_visible,
            on_failure=on_failure,
        )

    @property
    def visibility(self) -> AllowSetProvider:
        return self.router.provider

    def routing(self, context: Any, messages: Sequence[Any]) -> TurnRouting:
        """This turn's routing for a run context and its conversation (what the hooks use)."""
        return self.router.route(context, messages)

    # -- model calls: narrow what the model is offered --------------------------------------

    def visible_tools(
        self, tools: Sequence[BaseTool | dict[str, Any]], context: Any, messages: Sequence[Any]
    ) -> list[BaseTool | dict[str, Any]]:
        """`tools` narrowed for this turn: visible ones in allow-set order, then provider-native dicts."""
        return self._visible(tools, self.routing(context, messages))

    def _visible(
        self, tools: Sequence[BaseTool | dict[str, Any]], routing: TurnRouting
    ) -> list[BaseTool | dict[str, Any]]:
        visible = [t for t in tools if isinstance(t, BaseTool) and self.router.shows(t, routing)]
        visible.sort(key=lambda t: routing.rank(t.name, route_of(t.metadata)))
        kept: list[BaseTool | dict[str, Any]] = [*visible]
        kept += [t for t in tools if isinstance(t, dict)]
        return kept

    def _narrow(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        context = request.runtime.context if request.runtime is not None else None  # pyright: ignore[reportUnnecessaryComparison]
        kept = self.visible_tools(request.tools, context, request.messages)
        names = {t.name for t in kept if isinstance(t, BaseTool)}
        return request.override(tools=kept, tool_choice=_tool_choice_after(request.tool_choice, names))

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResult:
        return handler(self._narrow(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResult:
        return await handler(self._narrow(request))

    # -- tool calls: refuse what is not visible ---------------------------------------------

    def _call_routing(self, request: ToolCallRequest) -> TurnRouting:
        # Asked afresh: the call may come from a run resumed after an approval, with the same
        # context object, and routing may have changed while the run waited.
        context = getattr(request.runtime, "context", None)
        return self.router.route(context, messages_of(request.state), fresh=True)

    def _refusal(self, request: ToolCallRequest, routing: TurnRouting) -> ToolMessage | None:
        call, tool = request.tool_call, request.tool
        if routing.failure is not None:
            return refusal_message(call, "routing_failed", routing.failure)
        if tool is None:
            # LangChain's own error for an unknown tool lists every registered tool, hidden ones too.
            return refusal_message(call, "hidden", "no tool of this name is registered with the agent")
        if self.router.shows(tool, routing):
            return None
        if routing.allows(tool.name, route_of(tool.metadata)):
            return refusal_message(call, "hidden", "its contract changed since the catalog was built")
        return refusal_message(call, "hidden")

    def _guard(self, request: ToolCallRequest, routing: TurnRouting) -> ExecutionGuard:
        return ExecutionGuard(
            request.tool_call, lambda name, metadata: self.router.shows_named(name, metadata, routing)
        )

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolResult],
    ) -> ToolResult:
        routing = self._call_routing(request)
        refused = self._refusal(request, routing)
        if refused is not None:
            return refused
        return guarded(self._guard(request, routing), lambda: handler(request))

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolResult]],
    ) -> ToolResult:
        routing = self._call_routing(request)
        refused = self._refusal(request, routing)
        if refused is not None:
            return refused
        return await aguarded(self._guard(request, routing), lambda: handler(request))
