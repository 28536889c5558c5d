"""External validation against the real Agents SDK and the bundled fixture MCP server.

1. An unfiltered `MCPServerStdio` connection discovers the catalog; SchemaRouter mirrors it.
2. A second connection uses the router's dynamic `tool_filter`, `require_approval="always"`,
   one SDK tool input guardrail and one tool output guardrail.
3. Each shared scenario runs through `Runner.run` with the offline `ScriptedModel`:
   supported queries script a call to the required tool, which must reach the SDK's own
   approval gate and is then rejected; unsupported queries must be offered no MCP tool.
   One approved call carries the guardrail trip value and must be stopped by the input
   guardrail. No tool body may run: the fixture's call log must stay empty.

"Shortlist task success" counts supported cases whose required tools were offered, whose
scripted arguments validate against the offered schema, and whose call reached the
approval gate and was not executed after rejection. Routing latency is the adapter's
per-request decision (request from the run context, then the allow-set), timed by
`schemarouter.evidence.RoutingTimer` as every adapter's validation times it, after one warm-up request
that pays the one-off index build.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from agents import Agent, FunctionTool, ModelBehaviorError, RunContextWrapper, Runner
from agents.mcp import MCPServerStdio
from agents.testing import ScriptedModel, assistant_message, function_call
from jsonschema import Draft202012Validator

import schemarouter
from schemarouter import Catalog, RoutingConfig, SchemaRouter
from schemarouter.catalog import canonical_bytes, offered_bytes
from schemarouter.evidence import EvidenceCase, EvidenceReport, RoutingTimer
from schemarouter_conformance import (
    GUARDRAIL_TRIP_VALUE,
    SUPPORTED_CASES,
    UNSUPPORTED_QUERIES,
    read_call_log,
    stdio_command,
)

from ._mirror import mirror_mcp_server
from ._probe import GuardrailProbe, run_config
from ._request import RouteRequest
from ._router import OpenAIAgentsRouter

__all__ = ["ARTIFACT_NAME", "ValidationChecks", "failed_checks", "run_validation"]

ARTIFACT_NAME = "external-validation-openai-agents.json"
SOURCE = "fixture"


@dataclass
class ValidationChecks:
    """Running tallies the report is built from."""

    required_total: int = 0
    required_hit: int = 0
    rejected: int = 0
    task_success: int = 0
    fidelity_checked: int = 0
    fidelity_identical: int = 0
    approval_ok: bool = True
    input_guardrail_ok: bool = True
    output_guardrail_ok: bool = True
    exposed_checked: int = 0


def _offered_bytes(tool: FunctionTool) -> int:
    return offered_bytes(tool.name, tool.description, tool.params_json_schema)


def _fresh_run(query: str) -> Callable[[], RunContextWrapper[RouteRequest]]:
    """A new run context for `query` each call: nothing the adapter memoised per run is reused."""
    return lambda: RunContextWrapper(context=RouteRequest(query))


def _check_exposed(tools: list[Any], probe: GuardrailProbe, checks: ValidationChecks) -> bool:
    """Every tool the SDK exposes keeps the server's approval policy and both guardrail lists."""
    ok = True
    for tool in tools:
        checks.exposed_checked += 1
        approval = isinstance(tool, FunctionTool) and tool.needs_approval is True
        inputs = isinstance(tool, FunctionTool) and any(
            g is probe.input_guardrail for g in tool.tool_input_guardrails or []
        )
        outputs = isinstance(tool, FunctionTool) and any(
            g is probe.output_guardrail for g in tool.tool_output_guardrails or []
        )
        checks.approval_ok &= approval
        checks.input_guardrail_ok &= inputs
        checks.output_guardrail_ok &= outputs
        ok &= approval and inputs and outputs
    return ok


def _check_fidelity(offered: list[FunctionTool], catalog: Catalog, checks: ValidationChecks) -> bool:
    ok = True
    for tool in offered:
        cap = catalog.lookup(SOURCE, tool.name)
        checks.fidelity_checked += 1
        same = cap is not None and canonical_bytes(tool.params_json_schema) == canonical_bytes(
            cap.input_schema
        )
        checks.fidelity_identical += int(same)
        ok &= same
    return ok


async def _scripted_run(
    agent: Agent[Any], query: str, steps: list[Any]
) -> tuple[Agent[Any], ScriptedModel, Any]:
    model = ScriptedModel(steps)
    clone = agent.clone(model=model)
    result = await Runner.run(clone, query, context=RouteRequest(query), run_config=run_config())
    return clone, model, result


async def _supported_case(
    agent: Agent[Any],
    routing: OpenAIAgentsRouter,
    catalog: Catalog,
    probe: GuardrailProbe,
    case: Any,
    checks: ValidationChecks,
    timer: RoutingTimer,
    call_log: Path,
) -> EvidenceCase:
    latency = timer.measure(routing.outcome, _fresh_run(case.query))
    outcome = routing.outcome(RunContextWrapper(context=RouteRequest(case.query)))
    allow_set = outcome.allow_set
    exposed = await agent.get_all_tools(RunContextWrapper(context=RouteRequest(case.query)))
    preserved = _check_exposed(exposed, probe, checks)

    target = case.required_tools[0]
    steps = [
        [function_call(target, dict(case.arguments), call_id="validation-call")],
        [assistant_message("done")],
    ]
    offered: list[FunctionTool] = []
    reached_approval = not_executed = args_valid = False
    try:
        clone, model, result = await _scripted_run(agent, case.query, steps)
        first = model.first_call
        offered = (
            [tool for tool in first.tools if isinstance(tool, FunctionTool)] if first is not None else []
        )
        pending = [item for item in result.interruptions if item.tool_name == target]
        reached_approval = len(pending) == 1 and len(result.interruptions) == 1
        if reached_approval:
            state = result.to_state()
            state.reject(pending[0])
            await Runner.run(clone, state, run_config=run_config())
            not_executed = not read_call_log(call_log)
    except ModelBehaviorError:
        pass  # the SDK refused the call: the required tool was not offered
    names = tuple(tool.name for tool in offered)
    checks.required_total += len(case.required_tools)
    hits = sum(1 for name in case.required_tools if name in names)
    checks.required_hit += hits
    offered_target = next((tool for tool in offered if tool.name == target), None)
    if offered_target is not None:
        args_valid = Draft202012Validator(offered_target.params_json_schema).is_valid(case.arguments)
    fidelity = _check_fidelity(offered, catalog, checks)
    success = hits == len(case.required_tools) and args_valid and reached_approval and not_executed
    checks.task_success += int(success)
    checks.approval_ok &= reached_approval
    return EvidenceCase(
        query=case.query,
        kind="supported",
        required_tools=tuple(case.required_tools),
        allow_set=allow_set.names if allow_set is not None else (),
        offered_tools=names,
        no_route=allow_set.no_route if allow_set is not None else True,
        offered_schema_bytes=sum(_offered_bytes(tool) for tool in offered),
        routing_latency_ms=latency,
        passed=success and preserved and fidelity,
    )


async def _unsupported_case(
    agent: Agent[Any],
    routing: OpenAIAgentsRouter,
    probe: GuardrailProbe,
    query: str,
    checks: ValidationChecks,
    timer: RoutingTimer,
) -> EvidenceCase:
    latency = timer.measure(routing.outcome, _fresh_run(query))
    outcome = routing.outcome(RunContextWrapper(context=RouteRequest(query)))
    allow_set = outcome.allow_set
    exposed = await agent.get_all_tools(RunContextWrapper(context=RouteRequest(query)))
    _check_exposed(exposed, probe, checks)
    _, model, _ = await _scripted_run(agent, query, [[assistant_message("I have no tool for that.")]])
    first = model.first_call
    offered = [tool for tool in first.tools if isinstance(tool, FunctionTool)] if first is not None else []
    rejected = first is not None and not first.tools and not exposed
    checks.rejected += int(rejected)
    return EvidenceCase(
        query=query,
        kind="unsupported",
        required_tools=(),
        allow_set=allow_set.names if allow_set is not None else (),
        offered_tools=tuple(tool.name for tool in offered),
        no_route=allow_set.no_route if allow_set is not None else True,
        offered_schema_bytes=sum(_offered_bytes(tool) for tool in offered),
        routing_latency_ms=latency,
        passed=rejected,
    )


async def _input_guardrail_trips(agent: Agent[Any], probe: GuardrailProbe, call_log: Path) -> bool:
    """Approve one call whose arguments carry the trip value: the SDK guardrail must stop it."""
    case = next(c for c in SUPPORTED_CASES if any(isinstance(v, str) for v in c.arguments.values()))
    target = case.required_tools[0]
    arguments = {
        key: GUARDRAIL_TRIP_VALUE if isinstance(value, str) else value
        for key, value in case.arguments.items()
    }
    steps = [[function_call(target, arguments, call_id="guardrail-call")], [assistant_message("done")]]
    clone, _, result = await _scripted_run(agent, case.query, steps)
    if len(result.interruptions) != 1:
        return False
    state = result.to_state()
    state.approve(result.interruptions[0])
    await Runner.run(clone, state, run_config=run_config())
    return "guardrail-call" in probe.tripped and not read_call_log(call_log)


async def _output_guardrail_sees_a_result(
    routing: OpenAIAgentsRouter, probe: GuardrailProbe, tmp: Path
) -> bool:
    """Run one routed, read-only call for real, on its own server process and call log (the
    report's `tool_body_calls` counts only calls that must not run): the SDK output guardrail
    must see its result. Attaching the guardrail is not enough to claim it is kept."""
    case = SUPPORTED_CASES[0]  # a read-only lookup
    command, args = stdio_command(tmp / "output-calls.jsonl")
    params: Any = {"command": command, "args": args}
    async with MCPServerStdio(
        params,
        name=SOURCE,
        client_session_timeout_seconds=30,
        tool_filter=routing.tool_filter,
        tool_output_guardrails=[probe.output_guardrail],
    ) as server:
        agent: Agent[Any] = Agent(name="schemarouter-validation-output", mcp_servers=[server])
        steps = [
            [function_call(case.required_tools[0], case.arguments, call_id="output-call")],
            [assistant_message("done")],
        ]
        try:
            await _scripted_run(agent, case.query, steps)
        except ModelBehaviorError:  # the SDK refused the call: the tool was not offered
            return False
    ran = [entry.get("tool") for entry in read_call_log(tmp / "output-calls.jsonl")]
    return "output-call" in probe.outputs and ran == [case.required_tools[0]]


async def run_validation(
    config: RoutingConfig | None = None, *, artifacts_dir: str | Path = "artifacts"
) -> EvidenceReport:
    """Run the validation with `config` (default `RoutingConfig()`, the default allow-set size), write
    `<artifacts_dir>/external-validation-openai-agents.json` and return the report.

    This is also the `schemarouter.adapters` entry point `schemarouter demo` calls.
    """
    with tempfile.TemporaryDirectory(prefix="schemarouter-validation-") as tmp:
        call_log = Path(tmp) / "calls.jsonl"
        command, args = stdio_command(call_log)
        params: Any = {"command": command, "args": args}
        async with MCPServerStdio(params, name=SOURCE, client_session_timeout_seconds=30) as unfiltered:
            catalog = await mirror_mcp_server(unfiltered)
        schema_router = SchemaRouter(catalog)
        visibility = (config or RoutingConfig()).visibility(schema_router)
        visibility.allow_set("warm up")  # one-off index build and lazy tables, kept out of per-request timing
        routing = OpenAIAgentsRouter(visibility)
        probe = GuardrailProbe(GUARDRAIL_TRIP_VALUE)
        checks = ValidationChecks()
        timer = RoutingTimer()
        cases: list[EvidenceCase] = []
        async with MCPServerStdio(
            params,
            name=SOURCE,
            client_session_timeout_seconds=30,
            cache_tools_list=True,
            tool_filter=routing.tool_filter,
            require_approval="always",
            tool_input_guardrails=[probe.input_guardrail],
            tool_output_guardrails=[probe.output_guardrail],
        ) as server:
            agent: Agent[Any] = Agent(name="schemarouter-validation", mcp_servers=[server])
            for case in SUPPORTED_CASES:
                cases.append(
                    await _supported_case(agent, routing, catalog, probe, case, checks, timer, call_log)
                )
            for query in UNSUPPORTED_QUERIES:
                cases.append(await _unsupported_case(agent, routing, probe, query, checks, timer))
            checks.input_guardrail_ok &= await _input_guardrail_trips(agent, probe, call_log)
        checks.output_guardrail_ok &= await _output_guardrail_sees_a_result(routing, probe, Path(tmp))
        tool_body_calls = len(read_call_log(call_log))

    supported = [c for c in cases if c.kind == "supported"]
    report = EvidenceReport(
        adapter="schemarouter-openai-agents",
        framework="openai-agents",
        framework_version=version("openai-agents"),
        schemarouter_version=schemarouter.__version__,
        discovered_tool_count=len(catalog),
        shortlisted_tool_count_max=max((len(c.offered_tools) for c in cases), default=0),
        full_schema_bytes=catalog.total_schema_bytes(),
        filtered_schema_bytes_mean=round(
            sum(c.offered_schema_bytes for c in supported) / max(len(supported), 1), 2
        ),
        required_tool_recall=checks.required_hit / max(checks.required_total, 1),
        unsupported_query_rejection=checks.rejected / max(len(UNSUPPORTED_QUERIES), 1),
        shortlist_task_success=checks.task_success / max(len(supported), 1),
        routing_latency=timer.summary(),
        schema_fidelity_checked=checks.fidelity_checked,
        schema_fidelity_identical=checks.fidelity_identical,
        approval_preserved=checks.approval_ok and checks.exposed_checked > 0,
        input_guardrail_preserved=checks.input_guardrail_ok and checks.exposed_checked > 0,
        output_guardrail_preserved=checks.output_guardrail_ok and checks.exposed_checked > 0,
        tool_body_calls=tool_body_calls,
        cases=tuple(cases),
    )
    report.write(Path(artifacts_dir) / ARTIFACT_NAME)
    return report


def failed_checks(report: EvidenceReport) -> list[str]:
    """The acceptance checks this report misses (empty when it passes)."""
    return report.failures()
