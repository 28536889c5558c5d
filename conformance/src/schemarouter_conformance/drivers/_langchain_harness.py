"""The offline parts of a scripted LangChain run, for the conformance driver and tests.

The model is `schemarouter_langchain.testing.ScriptedChatModel` (no network). `ScenarioAgent` is one `create_agent` agent built from the framework's own parts only:
`LangChainRouter`, `HumanInTheLoopMiddleware` (per-call interrupts), two `wrap_tool_call`
guardrail middlewares, an `InMemorySaver` checkpointer and `ScriptedChatModel`. Each run is
keyed by the id of its human message, so one agent serves many concurrent runs without sharing
any per-run state. A run of no conversation gets a thread of its own; in conversation mode every
run of a conversation continues that conversation's thread, as a chat application's would.
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
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from schemarouter import AllowSetProvider, SessionLimits
from schemarouter.visibility import FIND_TOOLS
from schemarouter_langchain import SESSIONS_STATE_KEY, LangChainRouter, default_conversation_from
from schemarouter_langchain._scripted import this_turn
from schemarouter_langchain.testing import Responder, ScriptedChatModel, call_then_answer, offered_names

__all__ = [
    "GUARDRAIL_BLOCK_KEY",
    "Responder",
    "ScenarioAgent",
    "ScriptedChatModel",
    "Turn",
    "call_then_answer",
    "offered_names",
]

_call_ids = itertools.count(1)

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
    """What one run did: the tools offered on each of its model calls, and the resulting state."""

    run_id: str
    query: str | None
    principal: Hashable | None
    offered: tuple[Mapping[str, Any], ...]
    messages: list[BaseMessage] = field(default_factory=list[BaseMessage])
    interrupts: tuple[Any, ...] = ()
    failure: str | None = None
    conversation: str | None = None
    """The conversation the run belongs to (conversation mode), named in its context."""
    offers: tuple[tuple[Mapping[str, Any], ...], ...] = ()
    """The tools offered on every model call of the run, in order."""
    context: dict[str, Any] = field(init=False)
    """The run's `runtime.context`: one object, passed again on every resume, as users do."""

    def __post_init__(self) -> None:
        self.context = {"query": self.query, "principal": self.principal}
        if self.conversation is not None:
            self.context["conversation"] = self.conversation

    @property
    def thread_id(self) -> str:
        """The conversation's thread, or a thread of the run's own."""
        return f"conversation-{self.conversation}" if self.conversation is not None else self.run_id

    @property
    def config(self) -> RunnableConfig:
        return {"configurable": {"thread_id": self.thread_id}}

    def tool_message(self, name: str | None = None) -> ToolMessage | None:
        """The result of the run's scripted tool call (or of its call to `name`), if it has one yet."""
        own = this_turn(self.messages)
        calls = [
            c["id"]
            for m in own
            if isinstance(m, AIMessage)
            for c in m.tool_calls
            if name in (None, c["name"])
        ]
        for message in own:
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
        sessions: SessionLimits | None = None,
    ) -> None:
        self.tools = list(tools)
        # The conversation is the one the run names (a run naming none fails closed), not the thread.
        self.router = LangChainRouter(
            visibility,
            sessions=sessions,
            conversation_from=default_conversation_from,
            thread_as_conversation=False,
        )
        self.output_guardrail = OutputGuardrail()
        self.input_guardrail = InputGuardrail(guardrail_trip_value)
        interrupt_on: dict[str, bool | InterruptOnConfig] = {
            name: InterruptOnConfig(allowed_decisions=["approve", "reject"])
            for name in sorted(approval_required)
        }
        self.approvals = HumanInTheLoopMiddleware(interrupt_on, interrupt_mode="per_call")
        self._scripts: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
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
        human = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
        run_id = human.id if human is not None else None
        if run_id is None or run_id not in self._scripts:
            return AIMessage(content="no script for this run")
        self._offers.setdefault(run_id, []).append(tuple(tools))
        step = sum(isinstance(m, AIMessage) for m in this_turn(messages))
        script = self._scripts[run_id]
        if step >= len(script):
            return AIMessage(content="done")
        tool, arguments = script[step]
        call_id = f"call_{next(_call_ids)}"
        return AIMessage(content="", tool_calls=[{"name": tool, "args": dict(arguments), "id": call_id}])

    async def run(
        self,
        query: str | None,
        principal: Hashable | None = None,
        *,
        tool: str | None = None,
        arguments: Mapping[str, Any] | None = None,
        conversation: str | None = None,
    ) -> Turn:
        """One run: the model calls `tool` (or nothing), then answers."""
        return await self.run_steps(query, principal, [(tool, arguments or {})] if tool else [], conversation)

    async def run_steps(
        self,
        query: str | None,
        principal: Hashable | None,
        steps: Sequence[tuple[str, Mapping[str, Any]]],
        conversation: str | None = None,
    ) -> Turn:
        """One run whose model makes one call per step (`(tool, arguments)`), then answers."""
        run_id = f"run-{uuid.uuid4().hex}"
        self._scripts[run_id] = list(steps)
        turn = Turn(run_id, query, principal, (), conversation=conversation)
        human = HumanMessage(content=query or "", id=run_id)
        output = await self.agent.ainvoke(
            {"messages": [human]}, turn.config, context=turn.context, version="v2"
        )
        return self._finish(turn, output)

    async def find_tools(
        self, query: str | None, principal: Hashable | None, search: str, conversation: str | None
    ) -> Turn:
        """One run whose model calls the find-tools tool with `search`, then answers."""
        return await self.run_steps(
            query, principal, [(FIND_TOOLS.name, {FIND_TOOLS.argument: search})], conversation
        )

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
        turn.offers = tuple(offers)
        turn.offered = offers[0] if offers else ()
        turn.messages = list(output.value["messages"])
        turn.interrupts = tuple(output.interrupts)
        routing = self.router.routing(
            turn.context, turn.messages, state=output.value, thread_id=turn.thread_id
        )
        turn.failure = routing.failure
        return turn

    def visible_tools(
        self, query: str | None, principal: Hashable | None = None, conversation: str | None = None
    ) -> list[BaseTool]:
        """The framework-native tools visible for a request, in allow-set order (in conversation
        mode: find-tools, then the conversation's list as its thread saved it)."""
        turn = Turn("", query, principal, (), conversation=conversation)
        messages = [HumanMessage(content=query or "")]
        state: Mapping[str, Any] | None = None
        if self.router.sessions is not None and conversation is not None:
            state = self.agent.get_state(turn.config).values
        visible = self.router.visible_tools(
            [*self.router.tools, *self.tools], turn.context, messages, state=state, thread_id=turn.thread_id
        )
        return [t for t in visible if isinstance(t, BaseTool)]

    def saved_state(self, conversation: str) -> Mapping[str, Any] | None:
        """The conversation's routing state as its checkpointer thread holds it (None: none yet)."""
        turn = Turn("", None, None, (), conversation=conversation)
        values: Mapping[str, Any] = self.agent.get_state(turn.config).values
        return (values.get(SESSIONS_STATE_KEY) or {}).get(conversation)

    def replace_state(self, conversation: str, state: Mapping[str, Any] | None) -> None:
        """Overwrite the conversation's routing state in its thread's checkpoint (removed first, so
        the state channel's reducer keeps the new one whatever its progress), as an edit of the
        checkpoint store would."""
        turn = Turn("", None, None, (), conversation=conversation)
        self.agent.update_state(turn.config, {SESSIONS_STATE_KEY: {conversation: None}})
        if state is not None:
            self.agent.update_state(turn.config, {SESSIONS_STATE_KEY: {conversation: dict(state)}})

    def output_seen(self, message: ToolMessage | None) -> bool:
        return message is not None and message.tool_call_id in self.output_guardrail.seen
