"""The conformance driver for PydanticAI (`schemarouter_conformance.AdapterDriver`).

Expresses a suite scenario with PydanticAI's own mechanisms: an `MCPToolset` for the fixture
server (entered once and shared by every run, so its tool cache is shared too), approvals
through `.approval_required()`, guardrails as `Hooks` (`before_tool_execute` /
`after_tool_execute`), and `FunctionModel` scripts as the offline model. In conversation mode it
keeps one deps object per conversation, as a user would, and passes it to every run of that
conversation (and to the run that resumes after an approval): the conversation's routing state
lives there. In native mode (`Scenario.native`) the agent carries `router.native_tools()` and
each native turn runs PydanticAI's real OpenAI Responses or Anthropic model class against the
suite's fake provider, the conversation's messages carried from turn to turn.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, RetryPromptPart
from pydantic_ai.models.test import TestModel
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults, ToolDefinition, ToolDenied
from pydantic_ai.usage import RunUsage

from schemarouter.visibility import FIND_TOOLS
from schemarouter_pydantic_ai import NativeRoutedTools, PydanticAIRouter, RoutingUnavailableError

from .. import (
    CallReport,
    DriverCapabilities,
    FindToolsReport,
    NativeProvider,
    NativeTurnReport,
    OfferedTool,
    OfferedTools,
    RoutingHook,
    RunRequest,
    Scenario,
    read_call_log,
)
from ._pydantic_ai_harness import (
    Layout,
    RunDeps,
    ScriptedTurn,
    build_agent,
    call_turn,
    find_call_result,
    fixture_toolset,
    offer_turn,
)
from ._pydantic_ai_native import native_agent, native_apis, provider_model

__all__ = ["BuiltAgent", "PydanticAIDriver"]

_DENIAL = "denied by the reviewer"


@dataclass
class BuiltAgent:
    """What `PydanticAIDriver.build` returns: the agent and what it holds open."""

    agent: Agent[RunDeps, str | DeferredToolRequests]
    toolset: MCPToolset[Any]
    router: PydanticAIRouter
    scenario: Scenario
    conversations: dict[str, RunDeps] = field(default_factory=dict[str, RunDeps])
    """The deps of each conversation, kept from run to run (they carry its routing state)."""
    histories: dict[str, list[ModelMessage]] = field(default_factory=dict[str, list[ModelMessage]])
    """Native mode: the messages of each conversation so far, passed to its next turn."""


@dataclass(frozen=True)
class _Pending:
    messages: list[ModelMessage]
    call_id: str
    arguments: Mapping[str, Any]


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("schemarouter"):
            self.messages.append(record.getMessage())


@contextmanager
def _captured_failures() -> Iterator[_Capture]:
    handler = _Capture()
    logger = logging.getLogger("schemarouter")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def _deps(request: RunRequest) -> RunDeps:
    return RunDeps(request.query, request.principal, request.conversation)


def _run_deps(agent: BuiltAgent, request: RunRequest) -> RunDeps:
    """The deps of this run: its conversation's (the same object every run, with this run's
    request and nothing the hooks saw before), or fresh ones outside a conversation."""
    if request.conversation is None:
        return _deps(request)
    deps = agent.conversations.setdefault(request.conversation, _deps(request))
    deps.query, deps.principal = request.query, request.principal
    deps.input_blocked.clear()
    deps.outputs_seen.clear()
    return deps


def _offered(tool_defs: Sequence[ToolDefinition], failure: str | None = None) -> OfferedTools:
    return OfferedTools(tuple(OfferedTool(d.name, d.parameters_json_schema) for d in tool_defs), failure)


class PydanticAIDriver:
    """Driver for the SchemaRouter conformance suite.

    `Scenario.options` understood: `layout` (`"toolset"`, `"approval_outside"` or
    `"capability"`; see `build_agent`) and `cache_tools` (default True). `Scenario.conversations`
    builds the router in conversation mode (`PydanticAIRouter(..., sessions=...)`);
    `Scenario.native` builds the agent in native mode (`router.native_tools()`), whose turns run
    with the model class of each provider API whose SDK is installed.
    """

    name = "pydantic-ai"
    capabilities = DriverCapabilities(state_access=True, native_mode=native_apis())

    def __init__(self, layout: Layout = "toolset") -> None:
        self.layout: Layout = layout

    async def build(self, scenario: Scenario) -> BuiltAgent:
        source = scenario.source
        toolset = fixture_toolset(
            command=source.command,
            args=source.args,
            env=source.env,
            url=source.url if source.transport == "http" else None,
            cache_tools=bool(scenario.options.get("cache_tools", True)),
        )
        await toolset.__aenter__()
        router = PydanticAIRouter(scenario.visibility, sessions=scenario.conversations)
        if scenario.native:
            native = native_agent(
                self.native_capability(router, source.source_name),
                toolset,
                approval_required=scenario.approval_required,
                trip_value=scenario.guardrail_trip_value,
            )
            return BuiltAgent(native, toolset, router, scenario)
        agent = build_agent(
            router,
            toolset,
            approval_required=scenario.approval_required,
            trip_value=scenario.guardrail_trip_value,
            layout=scenario.options.get("layout", self.layout),
            source=source.source_name,
        )
        return BuiltAgent(agent, toolset, router, scenario)

    def native_capability(self, router: PydanticAIRouter, source: str) -> NativeRoutedTools:
        """The native-mode capability a `Scenario.native` agent carries: `router.native_tools()`."""
        return router.native_tools(source=source)

    async def offered_tools(self, agent: BuiltAgent, request: RunRequest) -> OfferedTools:
        offered: list[ToolDefinition] = []
        failure: str | None = None
        with _captured_failures() as captured:
            try:
                offered = await offer_turn(agent.agent, _run_deps(agent, request))
            except RoutingUnavailableError as exc:
                failure = str(exc)
        if failure is None and captured.messages:
            failure = captured.messages[0]
        return _offered(offered, failure)

    def _ran(self, agent: BuiltAgent, tool: str, before: int) -> bool:
        calls = read_call_log(agent.scenario.source.call_log)
        return any(c.get("tool") == tool for c in calls[before:])

    async def call_tool(
        self, agent: BuiltAgent, request: RunRequest, tool: str, arguments: Mapping[str, Any]
    ) -> CallReport:
        before = len(read_call_log(agent.scenario.source.call_log))
        deps = _run_deps(agent, request)
        try:
            turn, result = await call_turn(agent.agent, deps, tool, arguments)
        except Exception as exc:
            return CallReport(tool, "error", detail=f"{type(exc).__name__}: {exc}")
        output = result.output
        if isinstance(output, DeferredToolRequests) and any(
            c.tool_call_id == turn.call_id for c in output.approvals
        ):
            pending = _Pending(result.all_messages(), turn.call_id, dict(arguments))
            return CallReport(tool, "awaiting_approval", pending=pending)
        return self._report(agent, tool, deps, result.all_messages(), turn.call_id, before)

    def _report(
        self,
        agent: BuiltAgent,
        tool: str,
        deps: RunDeps,
        messages: Sequence[ModelMessage],
        call_id: str,
        before: int,
        *,
        rejected: bool = False,
    ) -> CallReport:
        answer = find_call_result(messages, call_id)
        seen = any(name == tool for name, _ in deps.outputs_seen)
        if tool in deps.input_blocked:
            return CallReport(
                tool, "blocked_by_input_guardrail", detail="before_tool_execute hook refused the call"
            )
        if self._ran(agent, tool, before):
            content = None if answer is None else str(answer.content)
            return CallReport(tool, "ran", output=content, output_seen_by_guardrail=seen)
        if rejected and answer is not None and _DENIAL in str(answer.content):
            return CallReport(tool, "rejected", detail="approval denied; the tool did not run")
        if answer is not None and str(answer.content).startswith("Unknown tool name"):
            return CallReport(tool, "refused_hidden", detail=str(answer.content))
        detail = "no tool answer" if answer is None else str(answer.content)
        return CallReport(tool, "error", detail=detail)

    async def resume(
        self, agent: BuiltAgent, request: RunRequest, pending: CallReport, *, approve: bool
    ) -> CallReport:
        state = pending.pending
        if not isinstance(state, _Pending):
            return CallReport(pending.tool, "error", detail="nothing to resume")
        before = len(read_call_log(agent.scenario.source.call_log))
        deps = _run_deps(agent, request)
        decision: bool | ToolDenied = True if approve else ToolDenied(_DENIAL)
        turn = ScriptedTurn()
        try:
            result = await agent.agent.run(
                deps=deps,
                model=turn.model(),
                message_history=state.messages,
                deferred_tool_results=DeferredToolResults(approvals={state.call_id: decision}),
            )
        except Exception as exc:
            return CallReport(pending.tool, "error", detail=f"{type(exc).__name__}: {exc}")
        return self._report(
            agent, pending.tool, deps, result.all_messages(), state.call_id, before, rejected=not approve
        )

    async def call_find_tools(self, agent: BuiltAgent, request: RunRequest, query: str) -> FindToolsReport:
        """One turn of `request.conversation` whose model calls find-tools, then nothing."""
        deps = _run_deps(agent, request)
        with _captured_failures() as captured:
            try:
                turn, result = await call_turn(
                    agent.agent, deps, FIND_TOOLS.name, {FIND_TOOLS.argument: query}
                )
            except Exception as exc:
                detail = f"{type(exc).__name__}: {exc}"
                return FindToolsReport("", OfferedTools((), detail), "error", detail)
        failure = captured.messages[0] if captured.messages else None
        offered_next = _offered(turn.offered[1] if len(turn.offered) > 1 else [], failure)
        answer = find_call_result(result.all_messages(), turn.call_id)
        if answer is None:
            return FindToolsReport("", offered_next, "error", "no tool answer")
        text = str(answer.content)
        if not isinstance(answer, RetryPromptPart) and answer.outcome == "success":
            return FindToolsReport(text, offered_next)
        if FIND_TOOLS.name in deps.input_blocked:
            return FindToolsReport(text, offered_next, "blocked_by_input_guardrail", text)
        if text.startswith("Unknown tool name"):
            return FindToolsReport(text, offered_next, "refused_hidden", text)
        return FindToolsReport(text, offered_next, "error", text)

    async def native_turn(
        self, agent: BuiltAgent, request: RunRequest, provider: NativeProvider
    ) -> NativeTurnReport:
        """One turn of `request.conversation` with the provider's model class, after its history."""
        conversation = request.conversation or ""
        history = agent.histories.get(conversation, [])
        failure: str | None = None
        with _captured_failures() as captured:
            try:
                result = await agent.agent.run(
                    request.query if request.query is not None else "a run without a routing request",
                    deps=_deps(request),
                    model=provider_model(provider),
                    message_history=history,
                )
            except RoutingUnavailableError as exc:
                return NativeTurnReport(None, str(exc), f"{type(exc).__name__}: {exc}")
            except Exception as exc:
                failure = captured.messages[0] if captured.messages else None
                return NativeTurnReport(None, failure, f"{type(exc).__name__}: {exc}")
        agent.histories[conversation] = result.all_messages()
        failure = captured.messages[0] if captured.messages else None
        output = result.output
        if isinstance(output, DeferredToolRequests):
            return NativeTurnReport(None, failure, f"the run paused for {len(output.approvals)} approval(s)")
        return NativeTurnReport(output, failure)

    async def native_tools(self, agent: BuiltAgent, request: RunRequest) -> Sequence[Any]:
        return await offer_turn(agent.agent, _run_deps(agent, request))

    async def conversation_state(self, agent: BuiltAgent, request: RunRequest) -> Mapping[str, Any] | None:
        """The state the conversation's deps carry (`schemarouter_session`)."""
        deps = agent.conversations.get(request.conversation or "")
        return None if deps is None else deps.schemarouter_session

    async def replace_conversation_state(
        self, agent: BuiltAgent, request: RunRequest, state: Mapping[str, Any] | None
    ) -> None:
        """Overwrite the state in the conversation's deps, as an edit of stored run state."""
        deps = agent.conversations.setdefault(request.conversation or "", _deps(request))
        deps.schemarouter_session = None if state is None else dict(state)

    def routing_hook(self, agent: BuiltAgent, request: RunRequest) -> RoutingHook:
        """The router's allow-set for a run step, on a fresh `RunContext` each time (no run id:
        nothing the router memoises per run step is reused; the model is never called)."""
        model = TestModel()
        return RoutingHook(
            agent.router.allow_set, lambda: RunContext(deps=_deps(request), model=model, usage=RunUsage())
        )

    async def validate(self, workdir: Path) -> Path:
        """`python -m schemarouter_conformance.validate pydantic-ai` with this driver (and its
        layout); the artifact goes to `workdir / "artifacts"`."""
        from ..validate import artifact_name, validate_pydantic_ai

        artifacts = Path(workdir) / "artifacts"
        await validate_pydantic_ai(artifacts_dir=artifacts, driver=self)
        return artifacts / artifact_name("pydantic-ai")

    async def close(self, agent: BuiltAgent) -> None:
        await agent.toolset.__aexit__(None, None, None)
