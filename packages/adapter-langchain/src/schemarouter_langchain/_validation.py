"""External validation against the bundled fixture MCP server; builds the `EvidenceReport`.

Everything runs offline: the fixture server over stdio (started with this interpreter),
`create_agent` with `ScriptedChatModel`, approvals through `HumanInTheLoopMiddleware` and
guardrails as `wrap_tool_call` middleware. No tool body may run: the approval check ends
in a rejection and the guardrail check trips the input guardrail.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, cast

from jsonschema import Draft202012Validator
from langchain_core.messages import HumanMessage

from schemarouter import Catalog, RoutingConfig, SchemaRouter
from schemarouter import __version__ as core_version
from schemarouter.catalog import canonical_bytes, offered_bytes
from schemarouter.evidence import EvidenceCase, EvidenceReport, RoutingTimer
from schemarouter_conformance import (
    DESTRUCTIVE_TOOLS,
    GUARDRAIL_TRIP_VALUE,
    SUPPORTED_CASES,
    UNSUPPORTED_QUERIES,
    read_call_log,
    stdio_command,
)

from ._harness import GUARDRAIL_BLOCK_KEY, ScenarioAgent, Turn
from ._mcp_tools import McpToolkit
from ._refusal import refusal_of

__all__ = ["ARTIFACT_NAME", "build_evidence", "problems", "run_validation"]

ARTIFACT_NAME = "external-validation-langchain.json"
_SOURCE = "fixture"
_APPROVAL_QUERY = "permanently delete customer c-200 from the CRM"


def _version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "unknown"


def _offered_functions(turn: Turn) -> dict[str, Mapping[str, Any]]:
    """The function specs offered on the run's first model call, by tool name (OpenAI format;
    provider-native entries without a function name are left out, as `offered_names` does)."""
    functions: dict[str, Mapping[str, Any]] = {}
    for tool in turn.offered:
        function = tool.get("function")
        if isinstance(function, Mapping):
            name = cast("Mapping[str, Any]", function).get("name")
            if isinstance(name, str):
                functions[name] = cast("Mapping[str, Any]", function)
    return functions


def _offered_bytes(functions: Mapping[str, Mapping[str, Any]]) -> int:
    """Bytes of what the model was offered, measured as `Capability.schema_bytes` is."""
    return sum(
        offered_bytes(name, function.get("description"), function.get("parameters"))
        for name, function in functions.items()
    )


async def _case(
    harness: ScenarioAgent,
    timer: RoutingTimer,
    catalog: Catalog,
    query: str,
    kind: str,
    required: tuple[str, ...],
    arguments: Any,
) -> tuple[EvidenceCase, int, int, bool]:
    """One query: what was offered, whether it passed, schema fidelity counts, task success."""
    messages = [HumanMessage(content=query)]
    latency = timer.measure(
        lambda context: harness.router.routing(context, messages), lambda: {"query": query}
    )
    turn = await harness.run(query)
    functions = _offered_functions(turn)
    names = tuple(functions)
    known = {cap.name for cap in catalog}
    routed = tuple(n for n in names if n in known)
    checked = identical = 0
    for name, function in functions.items():
        cap = catalog.lookup(_SOURCE, name)
        if cap is not None:
            checked += 1
            identical += canonical_bytes(function.get("parameters")) == canonical_bytes(cap.input_schema)
    offered_size = _offered_bytes(functions)
    allow_set = harness.router.routing({"query": query}, []).allow_set
    if kind == "supported":
        passed = all(tool in routed for tool in required)
        first = required[0]
        task = passed and Draft202012Validator(functions[first]["parameters"]).is_valid(arguments)
    else:
        passed = not routed
        task = passed
    case = EvidenceCase(
        query=query,
        kind=kind,
        required_tools=required,
        allow_set=allow_set.names if allow_set is not None else (),
        offered_tools=names,
        no_route=allow_set.no_route if allow_set is not None else True,
        offered_schema_bytes=offered_size,
        routing_latency_ms=latency,
        passed=passed,
    )
    return case, checked, identical, task


async def _approval_preserved(harness: ScenarioAgent, call_log: Path) -> bool:
    """A routed-in destructive tool interrupts, does not run, and never runs after a rejection."""
    target = "delete_customer"
    if target not in [t.name for t in harness.visible_tools(_APPROVAL_QUERY)]:
        return False
    turn = await harness.run(_APPROVAL_QUERY, tool=target, arguments={"customer_id": "c-200"})
    interrupted = bool(turn.interrupts) and not read_call_log(call_log)
    turn = await harness.resume(turn, approve=False)
    message = turn.tool_message()
    rejected = message is not None and message.status == "error" and not turn.interrupts
    return interrupted and rejected and not read_call_log(call_log)


async def _guardrails_preserved(harness: ScenarioAgent, call_log: Path) -> tuple[bool, bool]:
    """The input guardrail trips on a routed-in tool (body not run); the output guardrail sees that result."""
    case = SUPPORTED_CASES[0]
    tool = case.required_tools[0]
    arguments = {**case.arguments, "query": GUARDRAIL_TRIP_VALUE}
    turn = await harness.run(case.query, tool=tool, arguments=arguments)
    message = turn.tool_message()
    artifact: Any = message.artifact if message is not None else None
    blocked = isinstance(artifact, dict) and bool(artifact.get(GUARDRAIL_BLOCK_KEY))  # pyright: ignore[reportUnknownMemberType]
    input_ok = blocked and refusal_of(message) is None and not read_call_log(call_log)  # pyright: ignore[reportArgumentType]
    return input_ok, harness.output_seen(message)


async def build_evidence(config: RoutingConfig | None = None) -> EvidenceReport:
    """Run the whole validation and return the report (nothing is written).

    The default configuration is `RoutingConfig()`: k=`DEFAULT_K` (5), no static rules, the
    core's no-route gate, i.e. `Visibility(router)`.
    """
    config = config or RoutingConfig()
    with tempfile.TemporaryDirectory(prefix="schemarouter-langchain-") as tmp:
        call_log = Path(tmp) / "calls.jsonl"
        command, args = stdio_command(call_log)
        router = await SchemaRouter.from_stdio(command, args, name=_SOURCE)
        visibility = config.visibility(router)
        visibility.allow_set("warm up")  # one-off index build and lazy tables, kept out of per-request timing
        catalog = router.catalog
        async with McpToolkit(router.sources[_SOURCE]) as toolkit:  # pyright: ignore[reportArgumentType]
            harness = ScenarioAgent(
                visibility,
                toolkit.tools,
                approval_required=DESTRUCTIVE_TOOLS,
                guardrail_trip_value=GUARDRAIL_TRIP_VALUE,
            )
            timer = RoutingTimer()
            cases: list[EvidenceCase] = []
            checked = identical = tasks = 0
            for supported in SUPPORTED_CASES:
                case, c, i, task = await _case(
                    harness,
                    timer,
                    catalog,
                    supported.query,
                    "supported",
                    supported.required_tools,
                    supported.arguments,
                )
                cases.append(case)
                checked, identical, tasks = checked + c, identical + i, tasks + task
            for query in UNSUPPORTED_QUERIES:
                case, c, i, _ = await _case(harness, timer, catalog, query, "unsupported", (), None)
                cases.append(case)
                checked, identical = checked + c, identical + i
            approval = await _approval_preserved(harness, call_log)
            input_guardrail, output_guardrail = await _guardrails_preserved(harness, call_log)
        body_calls = len(read_call_log(call_log))

    supported_cases = [c for c in cases if c.kind == "supported"]
    unsupported_cases = [c for c in cases if c.kind == "unsupported"]
    return EvidenceReport(
        adapter="schemarouter-langchain",
        framework="langchain",
        framework_version=f"{_version('langchain')} (langchain-core {_version('langchain-core')})",
        schemarouter_version=core_version,
        discovered_tool_count=len(catalog),
        shortlisted_tool_count_max=max((len(c.offered_tools) for c in cases), default=0),
        full_schema_bytes=catalog.total_schema_bytes(),
        filtered_schema_bytes_mean=round(
            sum(c.offered_schema_bytes for c in supported_cases) / max(len(supported_cases), 1), 2
        ),
        required_tool_recall=sum(c.passed for c in supported_cases) / max(len(supported_cases), 1),
        unsupported_query_rejection=sum(c.passed for c in unsupported_cases) / max(len(unsupported_cases), 1),
        shortlist_task_success=tasks / max(len(supported_cases), 1),
        routing_latency=timer.summary(),
        schema_fidelity_checked=checked,
        schema_fidelity_identical=identical,
        approval_preserved=approval,
        input_guardrail_preserved=input_guardrail,
        output_guardrail_preserved=output_guardrail,
        tool_body_calls=body_calls,
        cases=tuple(cases),
    )


def problems(report: EvidenceReport) -> list[str]:
    """Why the report fails the acceptance bar (empty when it passes)."""
    return report.failures()


async def run_validation(config: RoutingConfig, *, artifacts_dir: str | Path) -> EvidenceReport:
    """Entry point for `schemarouter demo`: validate with `config`, write the artifact, return the report."""
    report = await build_evidence(config)
    report.write(Path(artifacts_dir) / ARTIFACT_NAME)
    return report
