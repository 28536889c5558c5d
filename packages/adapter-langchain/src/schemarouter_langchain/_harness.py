"""The offline parts of a scripted LangChain run, for the conformance driver and tests.

`ScriptedChatModel` never calls a network. It converts the tools it is bound to into the
OpenAI function format, keeping each `BaseTool`'s argument schema exactly as the agent
handed it over (real provider integrations may reformat it), passes them with the
conversation to a `respond` function, and returns that function's `AIMessage`. It is safe to
share between concurrent runs: it keeps no per-run state of its own.

`ScenarioAgent` is one `create_agent` agent built from the framework's own parts only:
`LangChainRouter`, `HumanInTheLoopMiddleware` (per-call interrupts), two `wrap_tool_call`
guardrail middlewares, an `InMemorySaver` checkpointer and `ScriptedChatModel`. Each run is
keyed by the id of its human message, so one agent serves many concurrent runs without sharing
any per-run state.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Awaitable, Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, HumanInTheLoopMiddleware
from langchain.agents.middleware.human_in_the_loop import InterruptOnConfig
from langchain.agents.middleware.types import ToolCallRequest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from schemarouter import AllowSetProvider

from ._mirror import tool_input_schema
from ._router import LangChainRouter

__all__ = [
    "GUARDRAIL_BLOCK_KEY",
    "Responder",
    "ScenarioAgent",
    "ScriptedChatModel",
    "Turn",
    "call_then_answer",
    "offered_names",
]

Responder = Callable[[Sequence[BaseMessage], Sequence[Mapping[str, Any]]], AIMessage]
"""`(conversation, offered tools in OpenAI format) -> next AIMessage`."""

_call_ids = itertools.count(1)


def _offer(tool: Mapping[str, Any] | type | Callable[..., Any] | BaseTool) -> dict[str, Any]:
    """OpenAI function format; a `BaseTool`'s JSON schema is kept exactly as the agent gave it."""
    if isinstance(tool, BaseTool):
        function = {"name": tool.name, "description": tool.description, "parameters": tool_input_schema(tool)}
        return {"type": "function", "function": function}
    return convert_to_openai_tool(tool)


def offered_names(tools: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """Tool names from OpenAI-format tool dicts (provider-native dicts without a function name are skipped)."""
    names: list[str] = []
    for tool in tools:
        function = tool.get("function")
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):  # pyright: ignore[reportUnknownMemberType]
            names.append(function["name"])  # pyright: ignore[reportUnknownArgumentType]
    return tuple(names)


def call_then_answer(
    tool: str | None, arguments: Mapping[str, Any] | None = None, *, answer: str = "done"
) -> Responder:
    """A script: call `tool` with `arguments` once, then answer with text after the tool result.

    With `tool=None` it answers at once without calling anything.
    """

    def respond(messages: Sequence[BaseMessage], _tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        if tool is None or any(isinstance(m, ToolMessage) for m in messages):
            return AIMessage(content=answer)
        call_id = f"call_{next(_call_ids)}"
        return AIMessage(
            content="", tool_calls=[{"name": tool, "args": dict(arguments or {}), "id": call_id}]
        )

    return respond


class ScriptedChatModel(BaseChatModel):
    """A chat model for tests: `respond(messages, offered_tools)` writes every reply."""

    respond: Responder
    """Called once per model turn with the conversation and the tools bound for that turn."""

    @property
    def _llm_type(self) -> str:
        return "schemarouter-scripted"

    def bind_tools(
        self,
        tools: Sequence[Mapping[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        formatted = [_offer(t) for t in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools: Sequence[Mapping[str, Any]] = kwargs.get("tools") or ()
        message = self.respond(list(messages), list(tools))
        return ChatResult(generations=[ChatGeneration(message=message)])


GUARDRAIL_BLOCK_KEY = "input_guardrail_blocked"
ToolResult = ToolMessage | Command[Any]


class InputGuardrail(AgentMiddleware[Any, Any, Any]):
    """Rejects any tool call whose arguments contain `trip_value`; the tool never runs."""

    def __init__(self, trip_value: str) -> None:
        super().__init__()
        self.trip_value = trip_value

    def _block(self, request: ToolCallRequest) -> ToolMessage | None:
        if self.trip_value not in repr(request.tool_call["args"]):
            return None
        return ToolMessage(
            content="Blocked by the input guardrail.",
            tool_call_id=request.tool_call.get("id") or "",
            name=request.tool_call["name"],
            status="error",
            artifact={GUARDRAIL_BLOCK_KEY: True},
        )

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolResult]
    ) -> ToolResult:
        return self._block(request) or handler(request)

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[ToolResult]]
    ) -> ToolResult:
        return self._block(request) or await handler(request)


class OutputGuardrail(AgentMiddleware[Any, Any, Any]):
    """Observes every tool result that reaches it (here: records the tool call ids)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[str, str] = {}

    def _observe(self, result: ToolResult) -> ToolResult:
        if isinstance(result, ToolMessage):
            self.seen[result.tool_call_id] = result.text
        return result

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolResult]
    ) -> ToolResult:
        return self._observe(handler(request))

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[ToolResult]]
    ) -> ToolResult:
        return self._observe(await handler(request))


@dataclass
class Turn:
    """What one run did: the tools offered on its first model call, and the resulting state."""

    run_id: str
    query: str | None
    principal: Hashable | None
    offered: tuple[Mapping[str, Any], ...]
    messages: list[BaseMessage] = field(default_factory=list[BaseMessage])
    interrupts: tuple[Any, ...] = ()
    failure: str | None = None
    context: dict[str, Any] = field(init=False)
    """The run's `runtime.context`: one object, passed again on every resume, as users do."""

    def __post_init__(self) -> None:
        self.context = {"query": self.query, "principal": self.principal}

    @property
    def config(self) -> RunnableConfig:
        return {"configurable": {"thread_id": self.run_id}}

    def tool_message(self) -> ToolMessage | None:
        """The result of the run's scripted tool call, if it has one yet."""
        calls = [c["id"] for m in self.messages if isinstance(m, AIMessage) for c in m.tool_calls]
        for message in self.messages:
            if isinstance(message, ToolMessage) and message.tool_call_id in calls:
                return message
        return None


class ScenarioAgent:
    """One agent for many scripted runs: routed, approval-gated and guarded."""

    def __init__(
        self,
        visibility: AllowSetProvider,
        tools: Sequence[BaseTool],
        *,
        approval_required: Collection[str] = (),
        guardrail_trip_value: str = "__guardrail_trip__",
    ) -> None:
        self.tools = list(tools)
        self.router = LangChainRouter(visibility)
        self.output_guardrail = OutputGuardrail()
        self.input_guardrail = InputGuardrail(guardrail_trip_value)
        interrupt_on: dict[str, bool | InterruptOnConfig] = {
            name: InterruptOnConfig(allowed_decisions=["approve", "reject"])
            for name in sorted(approval_required)
        }
        self.approvals = HumanInTheLoopMiddleware(interrupt_on, interrupt_mode="per_call")
        self._scripts: dict[str, tuple[str | None, Mapping[str, Any] | None]] = {}
        self._offers: dict[str, list[tuple[Mapping[str, Any], ...]]] = {}
        self.agent = create_agent(
            ScriptedChatModel(respond=self._respond),
            tools=self.tools,
            # Order matters: the router is the outermost tool-call wrapper, so a hidden call is
            # refused before approvals or guardrails see it; visible calls pass through unchanged.
            middleware=[self.router, self.approvals, self.output_guardrail, self.input_guardrail],
            checkpointer=InMemorySaver(),
        )

    def _respond(self, messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        run_id = next((m.id for m in messages if isinstance(m, HumanMessage) and m.id), None)
        if run_id is None or run_id not in self._scripts:
            return AIMessage(content="no script for this run")
        self._offers.setdefault(run_id, []).append(tuple(tools))
        tool, arguments = self._scripts[run_id]
        return call_then_answer(tool, arguments)(messages, tools)

    async def run(
        self,
        query: str | None,
        principal: Hashable | None = None,
        *,
        tool: str | None = None,
        arguments: Mapping[str, Any] | None = None,
    ) -> Turn:
        """One run: the model calls `tool` (or nothing), then answers."""
        run_id = f"run-{uuid.uuid4().hex}"
        self._scripts[run_id] = (tool, arguments)
        turn = Turn(run_id, query, principal, ())
        human = HumanMessage(content=query or "", id=run_id)
        output = await self.agent.ainvoke(
            {"messages": [human]}, turn.config, context=turn.context, version="v2"
        )
        return self._finish(turn, output)

    async def resume(self, turn: Turn, *, approve: bool) -> Turn:
        """Answer every pending approval of `turn` and let the run continue."""
        decision = (
            {"type": "approve"} if approve else {"type": "reject", "message": "rejected by the reviewer"}
        )
        answers = {interrupt.id: decision for interrupt in turn.interrupts}
        output = await self.agent.ainvoke(
            Command(resume=answers), turn.config, context=turn.context, version="v2"
        )
        return self._finish(turn, output)

    def _finish(self, turn: Turn, output: Any) -> Turn:
        offers = self._offers.get(turn.run_id, [])
        turn.offered = offers[0] if offers else ()
        turn.messages = list(output.value["messages"])
        turn.interrupts = tuple(output.interrupts)
        turn.failure = self.router.routing(turn.context, turn.messages).failure
        return turn

    def visible_tools(self, query: str | None, principal: Hashable | None = None) -> list[BaseTool]:
        """The framework-native tools visible for a request, in allow-set order."""
        context = {"query": query, "principal": principal}
        messages = [HumanMessage(content=query or "")]
        return [
            t for t in self.router.visible_tools(self.tools, context, messages) if isinstance(t, BaseTool)
        ]

    def output_seen(self, message: ToolMessage | None) -> bool:
        return message is not None and message.tool_call_id in self.output_guardrail.seen
