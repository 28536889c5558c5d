"""The conformance driver for the OpenAI Agents SDK (`schemarouter_conformance.AdapterDriver`).

Everything here is the SDK's own machinery: MCP servers over stdio or streamable HTTP
with `require_approval` and tool input / output guardrails, the offline
`agents.testing.ScriptedModel`, approvals through `RunResult.interruptions` and
`RunState.approve` / `reject`. The router is plugged in only as the MCP `tool_filter`.

In conversation mode (`Scenario.conversations`) the agent is a `RoutedAgent` holding the
router's `find_tools` tool, and the driver keeps one context dict per conversation, as a user
keeps the context they pass to every run of a conversation: the session state lives in it.
A paused run is resumed through `RunState.to_json()` / `RunState.from_json()`, and the
resumed run's context is the one kept from then on.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import Agent, FunctionTool, ModelBehaviorError, RunContextWrapper, Runner, RunState
from agents.items import ToolCallOutputItem
from agents.mcp import MCPServer, MCPServerStdio, MCPServerStreamableHttp
from agents.testing import ScriptedModel, assistant_message, function_call

from schemarouter.visibility import FIND_TOOLS
from schemarouter_openai_agents import SESSION_KEY, OpenAIAgentsRouter, RoutedAgent, RouteRequest

from .. import (
    CallReport,
    DriverCapabilities,
    FindToolsReport,
    OfferedTool,
    OfferedTools,
    RoutingHook,
    RunRequest,
    Scenario,
    read_call_log,
)
from ._openai_agents_harness import GuardrailProbe, run_config

__all__ = ["BuiltAgent", "GuardrailProbe", "OpenAIAgentsDriver", "run_config"]


@dataclass
class BuiltAgent:
    """What `build` returns: a template agent over one filtered MCP connection (and, in
    conversation mode, the context dict of each conversation)."""

    agent: Agent[Any]
    server: MCPServer
    router: OpenAIAgentsRouter
    probe: GuardrailProbe
    call_log: Path
    contexts: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])

    @property
    def conversations(self) -> bool:
        return self.router.sessions is not None

    def context(self, request: RunRequest) -> Any:
        """The run context for `request`: a `RouteRequest` when routing per request; in
        conversation mode the conversation's own dict, updated with the request (a run with
        no conversation id gets a fresh dict without one, and fails closed)."""
        if not self.conversations:
            return None if request.query is None else RouteRequest(request.query, request.principal)
        if request.conversation is None:
            context: dict[str, Any] = {}
        else:
            context = self.contexts.setdefault(request.conversation, {"conversation": request.conversation})
        context.pop("query", None)
        if request.query is not None:
            context["query"] = request.query
        context["principal"] = request.principal
        return context


@dataclass(frozen=True)
class _Pending:
    agent: Agent[Any]
    result: Any
    call_id: str
    log_size: int
    conversation: str | None = None


def _offered(built: BuiltAgent, model: ScriptedModel, step: int, result: Any) -> OfferedTools:
    """What the model was offered on `step` (every function tool, in the order it got them)."""
    calls = model.calls
    tools = calls[step].tools if len(calls) > step else []
    offered = tuple(OfferedTool(t.name, t.params_json_schema) for t in tools if isinstance(t, FunctionTool))
    return OfferedTools(offered, built.router.outcome(result.context_wrapper).failure)


def _call_output(result: Any, call_id: str) -> str | None:
    """The output the run gave the tool call `call_id`, or None when it gave none."""
    return next(
        (
            str(i.output)
            for i in result.new_items
            if isinstance(i, ToolCallOutputItem) and i.call_id == call_id
        ),
        None,
    )


def _refusal(tool: str, error: ModelBehaviorError) -> CallReport:
    """The SDK's refusal of a call to a tool it does not hold (`Tool ... not found`), or an error."""
    if f"Tool {tool} not found" in str(error):
        return CallReport(tool, "refused_hidden", detail=str(error))
    return CallReport(tool, "error", detail=f"{type(error).__name__}: {error}")


class OpenAIAgentsDriver:
    """Expresses a conformance `Scenario` with the Agents SDK's own objects.

    `cache_tools_list` sets the MCP server's tool-list cache (a scenario may override it
    with `options={"cache_tools_list": ...}`); routing must be per run either way.
    """

    name = "openai-agents"
    capabilities = DriverCapabilities(state_access=True)

    def __init__(self, *, cache_tools_list: bool = False) -> None:
        self.cache_tools_list = cache_tools_list
        self._ids = itertools.count(1)

    async def build(self, scenario: Scenario) -> BuiltAgent:
        source = scenario.source
        router = OpenAIAgentsRouter(scenario.visibility, sessions=scenario.conversations)
        probe = GuardrailProbe(scenario.guardrail_trip_value)
        common: dict[str, Any] = {
            "name": source.source_name,
            "cache_tools_list": bool(scenario.options.get("cache_tools_list", self.cache_tools_list)),
            "tool_filter": router.tool_filter,
            "require_approval": {"always": {"tool_names": sorted(scenario.approval_required)}},
            "tool_input_guardrails": [probe.input_guardrail],
            "tool_output_guardrails": [probe.output_guardrail],
            "client_session_timeout_seconds": 20,
        }
        server: MCPServer
        if source.transport == "stdio":
            if source.command is None:
                raise ValueError("a stdio fixture source needs a command")
            params: dict[str, Any] = {"command": source.command, "args": list(source.args)}
            if source.env is not None:
                params["env"] = dict(source.env)
            server = MCPServerStdio(params, **common)  # pyright: ignore[reportArgumentType]
        else:
            if source.url is None:
                raise ValueError("an http fixture source needs a url")
            server = MCPServerStreamableHttp({"url": source.url}, **common)
        await server.connect()
        agent: Agent[Any]
        if scenario.conversations is None:
            agent = Agent(name="schemarouter-conformance", mcp_servers=[server])
        else:
            agent = RoutedAgent(
                name="schemarouter-conformance",
                mcp_servers=[server],
                tools=[router.find_tools],
                routing=router,
            )
        return BuiltAgent(agent, server, router, probe, source.call_log)

    async def _run(self, built: BuiltAgent, request: RunRequest, steps: list[Any]) -> tuple[Agent[Any], Any]:
        agent = built.agent.clone(model=ScriptedModel(steps))
        result = await Runner.run(
            agent, request.query or "(no request)", context=built.context(request), run_config=run_config()
        )
        return agent, result

    async def offered_tools(self, agent: BuiltAgent, request: RunRequest) -> OfferedTools:
        clone, result = await self._run(agent, request, [[assistant_message("no tool needed")]])
        model = clone.model
        assert isinstance(model, ScriptedModel)
        return _offered(agent, model, 0, result)

    async def call_find_tools(self, agent: BuiltAgent, request: RunRequest, query: str) -> FindToolsReport:
        """One turn whose model calls find-tools with `{"query": query}`, then no tool."""
        call_id = f"find-{next(self._ids)}"
        steps = [
            [function_call(FIND_TOOLS.name, {"query": query}, call_id=call_id)],
            [assistant_message("done")],
        ]
        try:
            clone, result = await self._run(agent, request, steps)
        except ModelBehaviorError as exc:
            report = _refusal(FIND_TOOLS.name, exc)
            return FindToolsReport("", OfferedTools(()), report.outcome, report.detail)
        model = clone.model
        assert isinstance(model, ScriptedModel)
        text = _call_output(result, call_id)
        offered_next = _offered(agent, model, 1, result)
        if text is None:
            return FindToolsReport("", offered_next, "error", "find-tools gave no result")
        return FindToolsReport(text, offered_next)

    async def call_tool(
        self, agent: BuiltAgent, request: RunRequest, tool: str, arguments: Mapping[str, Any]
    ) -> CallReport:
        call_id = f"call-{next(self._ids)}"
        log_size = len(read_call_log(agent.call_log))
        steps = [[function_call(tool, dict(arguments), call_id=call_id)], [assistant_message("done")]]
        try:
            clone, result = await self._run(agent, request, steps)
        except ModelBehaviorError as exc:
            return _refusal(tool, exc)
        pending = _Pending(clone, result, call_id, log_size, request.conversation)
        return self._report(agent, tool, pending, approved=None)

    async def resume(
        self, agent: BuiltAgent, request: RunRequest, pending: CallReport, *, approve: bool
    ) -> CallReport:
        state_of = pending.pending
        if not isinstance(state_of, _Pending):
            raise ValueError("resume needs a CallReport that is awaiting approval")
        state = state_of.result.to_state()
        if agent.conversations:
            # as a user resuming later would: the run state as JSON, the session state in its context
            state = await RunState.from_json(state_of.agent, state.to_json())
        for item in state.get_interruptions():
            if approve:
                state.approve(item)
            else:
                state.reject(item)
        try:
            result = await Runner.run(state_of.agent, state, run_config=run_config())
        except ModelBehaviorError as exc:
            # On resume the SDK lists the tools again (through the router's tool_filter) and
            # refuses an approved call to a tool that is no longer visible.
            return _refusal(pending.tool, exc)
        if state_of.conversation is not None and agent.conversations:
            # the resumed run's context is the conversation's from now on
            agent.contexts[state_of.conversation] = result.context_wrapper.context
        resumed = _Pending(state_of.agent, result, state_of.call_id, state_of.log_size, state_of.conversation)
        return self._report(agent, pending.tool, resumed, approved=approve)

    def _report(self, built: BuiltAgent, tool: str, run: _Pending, *, approved: bool | None) -> CallReport:
        result = run.result
        if result.interruptions:
            return CallReport(
                tool, "awaiting_approval", pending=run, detail="the SDK paused the run for approval"
            )
        if run.call_id in built.probe.tripped:
            return CallReport(
                tool, "blocked_by_input_guardrail", detail="the SDK tool input guardrail rejected the call"
            )
        calls = read_call_log(built.call_log)[run.log_size :]
        output = _call_output(result, run.call_id)
        if any(entry.get("tool") == tool for entry in calls):
            seen = run.call_id in built.probe.outputs
            return CallReport(tool, "ran", output=output, output_seen_by_guardrail=seen)
        if approved is False:
            return CallReport(
                tool, "rejected", output=output, detail="the approval was rejected; the tool did not run"
            )
        return CallReport(tool, "error", output=output, detail="the tool neither ran nor paused")

    async def native_tools(self, agent: BuiltAgent, request: RunRequest) -> Sequence[Any]:
        return await agent.agent.get_all_tools(RunContextWrapper(context=agent.context(request)))

    async def conversation_state(self, agent: BuiltAgent, request: RunRequest) -> Mapping[str, Any] | None:
        """The state saved in the conversation's run context (`SESSION_KEY`)."""
        context = agent.contexts.get(request.conversation or "", {})
        return context.get(SESSION_KEY)

    async def replace_conversation_state(
        self, agent: BuiltAgent, request: RunRequest, state: Mapping[str, Any] | None
    ) -> None:
        """Overwrite the state in the conversation's run context, as an edit of stored run state."""
        context = agent.contexts.setdefault(
            request.conversation or "", {"conversation": request.conversation}
        )
        if state is None:
            context.pop(SESSION_KEY, None)
        else:
            context[SESSION_KEY] = dict(state)

    def routing_hook(self, agent: BuiltAgent, request: RunRequest) -> RoutingHook:
        """The router's decision for a run (`outcome`), on a fresh `RunContextWrapper` each time."""
        return RoutingHook(agent.router.outcome, lambda: RunContextWrapper(context=agent.context(request)))

    async def validate(self, workdir: Path) -> Path:
        """`python -m schemarouter_conformance.validate openai-agents` with this driver; the
        artifact goes to `workdir / "artifacts"`."""
        from ..validate import artifact_name, validate_openai_agents

        artifacts = Path(workdir) / "artifacts"
        await validate_openai_agents(artifacts_dir=artifacts, driver=self)
        return artifacts / artifact_name("openai-agents")

    async def close(self, agent: BuiltAgent) -> None:
        await agent.server.cleanup()
