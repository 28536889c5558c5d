"""`validate_driver`: an adapter's evidence report, made through its own conformance driver.

The shared validation requests run through the driver's `build`, `offered_tools` and
`call_tool`, so the report describes the adapter the driver drives, not another one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import schemarouter
from schemarouter import EvidenceCase, EvidenceReport, RoutingTimer, SchemaRouter, Visibility, canonical_json

from ._driver import AdapterDriver, FixtureSource, RunRequest, Scenario
from ._fixture import DESTRUCTIVE_TOOLS, read_call_log, stdio_command
from ._harness import _settle  # pyright: ignore[reportPrivateUsage]
from ._scenarios import GUARDRAIL_TRIP_VALUE, SUPPORTED_CASES, UNSUPPORTED_QUERIES

__all__ = ["validate_driver"]


async def validate_driver(
    driver: AdapterDriver,
    workdir: Path,
    *,
    adapter: str | None = None,
    framework: str | None = None,
    framework_version: str = "unknown",
    output_guardrail_kept: Callable[[Any], bool] | None = None,
) -> Path:
    """Validate the adapter `driver` drives against a fresh stdio fixture server; write the
    evidence report into `workdir / "artifacts"` and return its path.

    Every shared request runs one offline turn through the driver (what was offered, whether
    each offered schema is the server's own). The approval is checked by calling a destructive
    tool, the input guardrail by a call carrying the trip value: both must stop before any
    tool body runs, and `tool_body_calls` counts the fixture's call log. The output guardrail
    cannot be seen without running a tool, so the report takes it from
    `output_guardrail_kept(agent)` (the agent `build` returned) when given, else from the
    driver's declared capabilities; the suite's output-guardrail test runs a tool and checks
    it. Routing latency
    is the allow-set provider's (`RoutingTimer`), not the framework's hook. `adapter` and
    `framework` default to the driver's `name`.
    """
    call_log = workdir / "validation-calls.jsonl"
    command, args = stdio_command(call_log)
    router = await SchemaRouter.from_stdio(command, args, name="fixture")
    visibility = Visibility(router, k=3)
    visibility.allow_set("warm up")  # one-off index build, kept out of per-request timing
    source = FixtureSource("stdio", call_log, command=command, args=tuple(args))
    scenario = Scenario(
        source,
        visibility,
        approval_required=frozenset(DESTRUCTIVE_TOOLS),
        guardrail_trip_value=GUARDRAIL_TRIP_VALUE,
    )
    catalog = {cap.name: cap for cap in router.catalog}
    timer = RoutingTimer()
    cases: list[EvidenceCase] = []
    identical = checked = 0
    requests = [(c.query, c.required_tools) for c in SUPPORTED_CASES] + [(q, ()) for q in UNSUPPORTED_QUERIES]
    built = await _settle(driver.build(scenario))
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
        destructive = next(c for c in SUPPORTED_CASES if c.required_tools[0] in DESTRUCTIVE_TOOLS)
        gated = await _settle(
            driver.call_tool(
                built, RunRequest(destructive.query), destructive.required_tools[0], destructive.arguments
            )
        )
        first = SUPPORTED_CASES[0]
        tripping = {
            key: GUARDRAIL_TRIP_VALUE if isinstance(v, str) else v for key, v in first.arguments.items()
        }
        tripped = await _settle(
            driver.call_tool(built, RunRequest(first.query), first.required_tools[0], tripping)
        )
        output_kept = (
            output_guardrail_kept(built) if output_guardrail_kept else driver.capabilities.output_guardrails
        )
    finally:
        await _settle(driver.close(built))
    supported = [c for c in cases if c.kind == "supported"]
    unsupported = [c for c in cases if c.kind == "unsupported"]
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
        approval_preserved=gated.outcome == "awaiting_approval",
        input_guardrail_preserved=tripped.outcome == "blocked_by_input_guardrail",
        output_guardrail_preserved=output_kept,
        tool_body_calls=len(read_call_log(call_log)),
        cases=tuple(cases),
    )
    name = (adapter or driver.name).replace("/", "_")
    return report.write(workdir / "artifacts" / f"external-validation-{name}.json")
