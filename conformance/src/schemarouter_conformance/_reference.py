"""`ReferenceDriver`: the suite's own driver, over `schemarouter.testing.FakeAgent`.

It is what a real driver looks like with the framework replaced by the framework-free
fake agent: connect to the fixture server with the scenario's transport, list its tools
(discovery only), and express the scenario's approvals and guardrails with the agent's
own hooks. In conversation mode it keeps one run context dict per conversation, as a user
keeps the context they pass to every run of a conversation (and to the resumed run): the
conversation's session state lives in it. The suite's self-test runs against it; it is also
a template for new drivers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import Client

import schemarouter
from schemarouter import AllowSetProvider, ToolExecutionError
from schemarouter.catalog import canonical_json
from schemarouter.testing import SESSIONS_KEY, FakeAgent, FakeRunResult, FakeTool, FakeTurn, ScriptedCall
from schemarouter.visibility import FIND_TOOLS

from ._driver import (
    CallReport,
    DriverCapabilities,
    FindToolsReport,
    OfferedTool,
    OfferedTools,
    RunRequest,
    Scenario,
)
from ._validation import validate_driver

__all__ = ["ReferenceAgent", "ReferenceDriver"]


@dataclass
class ReferenceAgent:
    """What `ReferenceDriver.build` returns: the fake agent and the connection it uses."""

    agent: FakeAgent
    connection: AsyncExitStack
    guarded_outputs: list[tuple[str, Any]] = field(default_factory=list[tuple[str, Any]])
    contexts: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    """One run context per conversation id, passed to every run of the conversation."""


def _text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def _offered(turn: FakeTurn) -> OfferedTools:
    return OfferedTools(tuple(OfferedTool(tool.name, tool.input_schema) for tool in turn.tools), turn.failure)


def _report(result: FakeRunResult) -> CallReport:
    outcome = "error" if result.outcome in ("tool_error", "no_call") else result.outcome
    output = None if result.output is None else str(result.output)
    return CallReport(
        tool=result.tool or "",
        outcome=outcome,
        output=output,
        output_seen_by_guardrail=result.output_seen_by_guardrail,
        detail=result.detail,
        pending=result.pending,
    )


class ReferenceDriver:
    """Drives `FakeAgent` against the fixture MCP server."""

    name = "reference"
    capabilities = DriverCapabilities(state_access=True)

    def visibility_for(self, scenario: Scenario) -> AllowSetProvider:
        """The provider the agent consults (a broken driver would tamper with it here)."""
        return scenario.visibility

    def approvals_for(self, scenario: Scenario) -> frozenset[str]:
        return scenario.approval_required

    def agent_for(
        self, scenario: Scenario, tools: Sequence[FakeTool], outputs: list[tuple[str, Any]]
    ) -> FakeAgent:
        trip = scenario.guardrail_trip_value

        def input_guardrail(tool: str, arguments: Mapping[str, Any]) -> str | None:
            return (
                f"input guardrail: {tool} arguments contain {trip!r}"
                if trip in canonical_json(arguments)
                else None
            )

        def output_guardrail(tool: str, output: Any) -> None:
            outputs.append((tool, output))

        return FakeAgent(
            tools,
            self.visibility_for(scenario),
            approval_required=self.approvals_for(scenario),
            input_guardrail=input_guardrail,
            output_guardrail=output_guardrail,
            sessions=scenario.conversations,
        )

    def context_for(self, agent: ReferenceAgent, request: RunRequest) -> dict[str, Any]:
        """The run context of `request`'s conversation: the same dict for all its runs (a run
        with no conversation id gets a fresh one, and the agent fails closed)."""
        if request.conversation is None:
            return {}
        return agent.contexts.setdefault(request.conversation, {})

    async def build(self, scenario: Scenario) -> ReferenceAgent:
        connection = AsyncExitStack()
        client: Client = await connection.enter_async_context(scenario.source.mcp_source().connect())
        listed = await client.list_tools()

        def invoker(name: str) -> Any:
            async def invoke(arguments: Mapping[str, Any]) -> str:
                result = await client.call_tool(name, dict(arguments))
                if result.is_error:
                    raise ToolExecutionError(f"{scenario.source.source_name}:{name}", _text(result))
                return _text(result)

            return invoke

        tools = [
            FakeTool(
                t.name,
                t.input_schema,
                invoker(t.name),
                t.description or "",
                source=scenario.source.source_name,
            )
            for t in listed.tools
        ]
        outputs: list[tuple[str, Any]] = []
        return ReferenceAgent(self.agent_for(scenario, tools, outputs), connection, outputs)

    async def _run(
        self, agent: ReferenceAgent, request: RunRequest, call: ScriptedCall | None = None
    ) -> FakeRunResult:
        context = self.context_for(agent, request)
        return await agent.agent.run(
            request.query, request.principal, call=call, conversation=request.conversation, context=context
        )

    async def offered_tools(self, agent: ReferenceAgent, request: RunRequest) -> OfferedTools:
        return _offered((await self._run(agent, request)).turn)

    async def call_tool(
        self, agent: ReferenceAgent, request: RunRequest, tool: str, arguments: Mapping[str, Any]
    ) -> CallReport:
        return _report(await self._run(agent, request, ScriptedCall(tool, arguments)))

    async def call_find_tools(
        self, agent: ReferenceAgent, request: RunRequest, query: str
    ) -> FindToolsReport:
        result = await self._run(agent, request, ScriptedCall(FIND_TOOLS.name, {FIND_TOOLS.argument: query}))
        report = _report(result)
        text = report.output if report.outcome == "ran" and report.output is not None else ""
        return FindToolsReport(
            text, _offered(result.next_turn or result.turn), outcome=report.outcome, detail=report.detail
        )

    async def resume(
        self, agent: ReferenceAgent, request: RunRequest, pending: CallReport, *, approve: bool
    ) -> CallReport:
        context = self.context_for(agent, request)
        return _report(await agent.agent.resume(pending.pending, approve=approve, context=context))

    async def native_tools(self, agent: ReferenceAgent, request: RunRequest) -> Sequence[FakeTool]:
        context = self.context_for(agent, request)
        return agent.agent.offer(
            request.query, request.principal, conversation=request.conversation, context=context
        ).tools

    async def close(self, agent: ReferenceAgent) -> None:
        await agent.connection.aclose()

    async def conversation_state(
        self, agent: ReferenceAgent, request: RunRequest
    ) -> Mapping[str, Any] | None:
        """The state `FakeAgent` saved in the conversation's run context."""
        saved = self.context_for(agent, request).get(SESSIONS_KEY) or {}
        return saved.get(request.conversation)

    async def replace_conversation_state(
        self, agent: ReferenceAgent, request: RunRequest, state: Mapping[str, Any] | None
    ) -> None:
        """Overwrite that state in the run context, as an edit of stored run state."""
        saved = self.context_for(agent, request).setdefault(SESSIONS_KEY, {})
        if state is None:
            saved.pop(request.conversation, None)
        else:
            saved[request.conversation] = dict(state)

    async def validate(self, workdir: Path) -> Path:
        """Validate against a fresh stdio fixture server; write the evidence report into `workdir`."""
        return await validate_driver(
            self,
            workdir,
            framework="schemarouter.testing",
            framework_version=schemarouter.__version__,
        )
