"""`validate_driver`: an adapter's evidence report, made through its own conformance driver.

The shared validation requests run through the driver's `build`, `offered_tools`,
`call_tool` and `resume`, so the report describes the adapter the driver drives, not
another one; every boundary flag is read off a run, none is taken from the driver's
declared capabilities.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import schemarouter
from schemarouter import SchemaRouter, Visibility
from schemarouter.catalog import canonical_json
from schemarouter.evidence import BoundaryStatement, EvidenceCase, EvidenceReport, RoutingTimer

from ._driver import AdapterDriver, FixtureSource, RunRequest, Scenario
from ._expect import tripping
from ._fixture import DESTRUCTIVE_TOOLS, READ_ONLY_TOOLS, read_call_log, stdio_command
from ._harness import _settle  # pyright: ignore[reportPrivateUsage]
from ._scenarios import APPROVAL_CASES, GUARDRAIL_TRIP_VALUE, SUPPORTED_CASES, UNSUPPORTED_QUERIES

__all__ = ["validate_driver"]

OUTPUT_GUARDRAIL_CHECK = (
    "checked the output guardrail with one call to a read-only fixture tool on a second agent "
    "over its own fixture server, whose call log `tool_body_calls` does not count"
)


def _scenario(visibility: Visibility, call_log: Path) -> Scenario:
    command, args = stdio_command(call_log)
    return Scenario(
        FixtureSource("stdio", call_log, command=command, args=tuple(args)),
        visibility,
        approval_required=frozenset(DESTRUCTIVE_TOOLS),
        guardrail_trip_value=GUARDRAIL_TRIP_VALUE,
    )


async def _approvals_kept(driver: AdapterDriver, built: Any) -> bool:
    """Every approval-gated tool (`APPROVAL_CASES`) pauses for approval (left pending, never run)."""
    kept = True
    for case in APPROVAL_CASES:
        report = await _settle(
            driver.call_tool(built, RunRequest(case.query), case.required_tools[0], case.arguments)
        )
        kept &= report.outcome == "awaiting_approval"
    return kept


async def _input_guardrail_kept(driver: AdapterDriver, built: Any) -> bool:
    """Calls carrying the trip value, to a read-only tool and to every approval-gated tool, are
    blocked (an approval the framework asks for first is given: the guardrail must then block)."""
    read_only = next(c for c in SUPPORTED_CASES if c.required_tools[0] in READ_ONLY_TOOLS)
    kept = True
    for case in (read_only, *APPROVAL_CASES):
        request = RunRequest(case.query)
        report = await _settle(driver.call_tool(built, request, case.required_tools[0], tripping(case)))
        if report.outcome == "awaiting_approval":
            report = await _settle(driver.resume(built, request, report, approve=True))
        kept &= report.outcome == "blocked_by_input_guardrail"
    return kept


async def _output_guardrail_kept(driver: AdapterDriver, visibility: Visibility, workdir: Path) -> bool:
    """A routed-in read-only tool runs once and the output guardrail sees its result.

    It runs on a second agent over its own fixture server, so the validation's call log
    (`tool_body_calls`) still counts only what must not run.
    """
    case = next(c for c in SUPPORTED_CASES if c.required_tools[0] in READ_ONLY_TOOLS)
    call_log = workdir / "output-guardrail-check-calls.jsonl"
    built = await _settle(driver.build(_scenario(visibility, call_log)))
    try:
        report = await _settle(
            driver.call_tool(built, RunRequest(case.query), case.required_tools[0], case.arguments)
        )
    finally:
        await _settle(driver.close(built))
    ran = [call.get("tool") for call in read_call_log(call_log)]
    return report.outcome == "ran" and report.output_seen_by_guardrail and ran == [case.required_tools[0]]


async def validate_driver(
    driver: AdapterDriver,
    workdir: Path,
    *,
    adapter: str | None = None,
    framework: str | None = None,
    framework_version: str = "unknown",
) -> Path:
    """Validate the adapter `driver` drives against a fresh stdio fixture server; write the
    evidence report into `workdir / "artifacts"` and return its path.

    Every shared request runs one offline turn through the driver (what was offered, whether
    each offered schema is the server's own). Every boundary flag comes from a run:
    `approval_preserved` from calling each approval-gated tool of `APPROVAL_CASES` (each must
    pause), `input_guardrail_preserved` from calls carrying the trip value to a read-only tool
    and to each approval-gated one (each must be blocked, after the approval if the framework
    asks for it first); none may run a tool body, and `tool_body_calls` counts the fixture's
    call log. `output_guardrail_preserved` needs a tool to run: one read-only call on a second
    agent over its own fixture server must run once with the output guardrail seeing its
    result (the report's `boundary.did` says so); a driver declaring
    `capabilities.output_guardrails=False` is not asked and gets `false`. Routing latency is
    the allow-set provider's (`RoutingTimer`), not the framework's hook. `adapter` and
    `framework` default to the driver's `name`.
    """
    call_log = workdir / "validation-calls.jsonl"
    command, args = stdio_command(call_log)
    router = await SchemaRouter.from_stdio(command, args, name="fixture")
    visibility = Visibility(router, k=3)
    visibility.allow_set("warm up")  # one-off index build, kept out of per-request timing
    catalog = {cap.name: cap for cap in router.catalog}
    timer = RoutingTimer()
    cases: list[EvidenceCase] = []
    identical = checked = 0
    requests = [(c.query, c.required_tools) for c in SUPPORTED_CASES] + [(q, ()) for q in UNSUPPORTED_QUERIES]
    built = await _settle(driver.build(_scenario(visibility, call_log)))
    try:
        for query, required in requests:
            latency = timer.measure(visibility.allow_set, lambda query=query: query)
            allow = visibility.allow_set(query)
            offered = await _settle(driver.offered_tools(built, RunRequest(query)))
            for tool in offered.tools:
                cap = catalog.get(tool.name)
                checked += 1
                identical += cap is not None and canonical_json(tool.input_schema) == canonical_json(
                    cap.input_schema
                )
            cases.append(
                EvidenceCase(
                    query=query,
                    kind="supported" if required else "unsupported",
                    required_tools=tuple(required),
                    allow_set=allow.names,
                    offered_tools=offered.names,
                    no_route=allow.no_route,
                    offered_schema_bytes=sum(catalog[n].schema_bytes for n in offered.names if n in catalog),
                    routing_latency_ms=latency,
                    passed=set(required) <= set(offered.names) if required else not offered.names,
                )
            )
        approvals_kept = await _approvals_kept(driver, built)
        input_kept = await _input_guardrail_kept(driver, built)
    finally:
        await _settle(driver.close(built))
    output_kept = driver.capabilities.output_guardrails and await _output_guardrail_kept(
        driver, visibility, workdir
    )
    supported = [c for c in cases if c.kind == "supported"]
    unsupported = [c for c in cases if c.kind == "unsupported"]
    boundary = BoundaryStatement()
    if driver.capabilities.output_guardrails:
        boundary = BoundaryStatement(did=(*boundary.did, OUTPUT_GUARDRAIL_CHECK))
    report = EvidenceReport(
        adapter=adapter or driver.name,
        framework=framework or driver.name,
        framework_version=framework_version,
        schemarouter_version=schemarouter.__version__,
        discovered_tool_count=len(catalog),
        shortlisted_tool_count_max=max(len(c.offered_tools) for c in cases),
        full_schema_bytes=sum(cap.schema_bytes for cap in catalog.values()),
        filtered_schema_bytes_mean=round(sum(c.offered_schema_bytes for c in supported) / len(supported), 2),
        required_tool_recall=sum(c.passed for c in supported) / len(supported),
        unsupported_query_rejection=sum(c.passed for c in unsupported) / len(unsupported),
        shortlist_task_success=sum(c.passed for c in supported) / len(supported),
        routing_latency=timer.summary(),
        schema_fidelity_checked=checked,
        schema_fidelity_identical=identical,
        approval_preserved=approvals_kept,
        input_guardrail_preserved=input_kept,
        output_guardrail_preserved=output_kept,
        tool_body_calls=len(read_call_log(call_log)),
        cases=tuple(cases),
        boundary=boundary,
    )
    name = (adapter or driver.name).replace("/", "_")
    return report.write(workdir / "artifacts" / f"external-validation-{name}.json")
