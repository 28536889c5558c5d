"""The conformance driver for LangChain (`schemarouter_conformance.AdapterDriver`):

    from schemarouter_conformance import AdapterConformanceSuite
    from schemarouter_conformance.drivers import LangChainDriver

    class TestLangChain(AdapterConformanceSuite):
        driver_factory = LangChainDriver

Each scenario becomes one `create_agent` agent over the fixture MCP server's tools
(`McpToolkit`), with `LangChainRouter` first, `HumanInTheLoopMiddleware` for the tools that
need approval (resumed with `Command(resume=...)`), and `wrap_tool_call` input and output
guardrail middleware, driven by `schemarouter_langchain.testing.ScriptedChatModel`. A scenario with `conversations` builds the
router in conversation mode (`sessions=`): the conversation is named in `runtime.context`, and
every run of one conversation continues its own checkpointer thread, where its state is kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage

from schemarouter.visibility import FIND_TOOLS
from schemarouter_langchain import McpToolkit, refusal_of

from .. import (
    CallReport,
    DriverCapabilities,
    FindToolsReport,
    OfferedTool,
    OfferedTools,
    RoutingHook,
    RunRequest,
    Scenario,
)
from ._langchain_harness import (
    GUARDRAIL_BLOCK_KEY,
    Responder,
    ScenarioAgent,
    ScriptedChatModel,
    Turn,
    call_then_answer,
    offered_names,
)

__all__ = [
    "BuiltAgent",
    "LangChainDriver",
    "Responder",
    "ScriptedChatModel",
    "call_then_answer",
    "offered_names",
]


@dataclass
class BuiltAgent:
    """What `LangChainDriver.build` returns: the scenario's agent and the toolkit it holds open."""

    toolkit: McpToolkit
    harness: ScenarioAgent


def _report(built: BuiltAgent, turn: Turn, tool: str) -> CallReport:
    if turn.interrupts:
        return CallReport(
            tool, "awaiting_approval", pending=turn, detail="interrupted by HumanInTheLoopMiddleware"
        )
    message = turn.tool_message()
    seen = built.harness.output_seen(message)
    if message is None:
        return CallReport(tool, "error", detail="the run produced no result for the tool call")
    artifact: Any = message.artifact
    refusal = refusal_of(message)
    if refusal is not None:
        return CallReport(tool, "refused_hidden", output=message.text, detail=str(refusal.get("reason")))
    if isinstance(artifact, Mapping) and artifact.get(GUARDRAIL_BLOCK_KEY):  # pyright: ignore[reportUnknownMemberType]
        return CallReport(
            tool, "blocked_by_input_guardrail", output=message.text, output_seen_by_guardrail=seen
        )
    extra: Mapping[str, Any] = message.additional_kwargs
    if (
        extra.get("lc_source") == "hitl_interrupt_decision"
        and extra.get("lc_data", {}).get("decision") == "reject"
    ):
        return CallReport(tool, "rejected", output=message.text, output_seen_by_guardrail=seen)
    if message.status == "error":
        return CallReport(
            tool, "error", output=message.text, output_seen_by_guardrail=seen, detail=message.text
        )
    return CallReport(tool, "ran", output=message.text, output_seen_by_guardrail=seen)


def _offered(offered: Sequence[Mapping[str, Any]], failure: str | None) -> OfferedTools:
    """The tools of one model call, in the order the model received them."""
    tools: list[OfferedTool] = []
    for name, spec in zip(offered_names(offered), offered, strict=False):
        tools.append(OfferedTool(name, spec["function"].get("parameters") or {}))
    return OfferedTools(tuple(tools), failure=failure)


class LangChainDriver:
    """Drives `create_agent` + `LangChainRouter` for the shared conformance suite."""

    name = "langchain"
    capabilities = DriverCapabilities(state_access=True)

    async def build(self, scenario: Scenario) -> BuiltAgent:
        toolkit = await McpToolkit(scenario.source.mcp_source()).open()
        harness = ScenarioAgent(
            scenario.visibility,
            toolkit.tools,
            approval_required=scenario.approval_required,
            guardrail_trip_value=scenario.guardrail_trip_value,
            sessions=scenario.conversations,
        )
        return BuiltAgent(toolkit, harness)

    async def offered_tools(self, agent: BuiltAgent, request: RunRequest) -> OfferedTools:
        turn = await agent.harness.run(request.query, request.principal, conversation=request.conversation)
        return _offered(turn.offered, turn.failure)

    async def call_tool(
        self, agent: BuiltAgent, request: RunRequest, tool: str, arguments: Mapping[str, Any]
    ) -> CallReport:
        turn = await agent.harness.run(
            request.query,
            request.principal,
            tool=tool,
            arguments=arguments,
            conversation=request.conversation,
        )
        return _report(agent, turn, tool)

    async def call_find_tools(self, agent: BuiltAgent, request: RunRequest, query: str) -> FindToolsReport:
        """A run of `request.conversation` whose model calls find-tools with `query`, then answers."""
        turn = await agent.harness.find_tools(request.query, request.principal, query, request.conversation)
        offered_next = _offered(turn.offers[1] if len(turn.offers) > 1 else (), turn.failure)
        message = turn.tool_message(FIND_TOOLS.name)
        if message is None:
            return FindToolsReport("", offered_next, "error", "the run produced no find-tools result")
        refusal = refusal_of(message)
        if refusal is not None:
            return FindToolsReport(message.text, offered_next, "refused_hidden", str(refusal.get("reason")))
        if message.status == "error":
            return FindToolsReport(message.text, offered_next, "error", message.text)
        return FindToolsReport(message.text, offered_next)

    async def resume(
        self, agent: BuiltAgent, request: RunRequest, pending: CallReport, *, approve: bool
    ) -> CallReport:
        turn = pending.pending
        if not isinstance(turn, Turn):
            raise TypeError("resume needs the CallReport returned for an awaiting_approval call")
        turn = await agent.harness.resume(turn, approve=approve)
        return _report(agent, turn, pending.tool)

    async def native_tools(self, agent: BuiltAgent, request: RunRequest) -> Sequence[Any]:
        return agent.harness.visible_tools(request.query, request.principal, request.conversation)

    async def conversation_state(self, agent: BuiltAgent, request: RunRequest) -> Mapping[str, Any] | None:
        """The state the conversation's checkpointer thread holds (`SESSIONS_STATE_KEY`)."""
        return agent.harness.saved_state(request.conversation or "")

    async def replace_conversation_state(
        self, agent: BuiltAgent, request: RunRequest, state: Mapping[str, Any] | None
    ) -> None:
        """Overwrite the state in the thread's checkpoint, as an edit of the checkpoint store."""
        agent.harness.replace_state(request.conversation or "", state)

    def routing_hook(self, agent: BuiltAgent, request: RunRequest) -> RoutingHook:
        """The router's routing of a turn, for a fresh `runtime.context` each time."""
        router = agent.harness.router
        messages = [HumanMessage(content=request.query or "")]
        return RoutingHook(
            lambda context: router.routing(context, messages),
            lambda: {"query": request.query, "principal": request.principal},
        )

    async def validate(self, workdir: Path) -> Path:
        """`python -m schemarouter_conformance.validate langchain` with this driver; the artifact
        goes to `workdir / "artifacts"`."""
        from ..validate import artifact_name, validate_langchain

        artifacts = Path(workdir) / "artifacts"
        await validate_langchain(artifacts_dir=artifacts, driver=self)
        return artifacts / artifact_name("langchain")

    async def close(self, agent: BuiltAgent) -> None:
        await agent.toolkit.aclose()
