"""The external validation, once for every adapter: `driver_evidence` and `validate_driver`.

The shared validation requests run through an adapter's own conformance driver (`build`,
`offered_tools`, `call_tool`, `resume`) against a fresh stdio fixture server, so the report
describes the adapter the driver drives; every boundary flag is read off a run, none is taken
from the driver's declared capabilities. Each bundled adapter's
`python -m schemarouter_<adapter>.validate` is this with its own driver and names.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

import schemarouter
from schemarouter import AllowSetProvider, Catalog, RoutingConfig, SchemaRouter, Visibility
from schemarouter.catalog import canonical_json
from schemarouter.evidence import BoundaryStatement, EvidenceCase, EvidenceReport, RoutingTimer

from ._driver import AdapterDriver, FixtureSource, OfferedTools, RunRequest, Scenario
from ._expect import tripping
from ._fixture import DESTRUCTIVE_TOOLS, READ_ONLY_TOOLS, read_call_log, stdio_command
from ._harness import _settle  # pyright: ignore[reportPrivateUsage]
from ._scenarios import (
    APPROVAL_CASES,
    GUARDRAIL_TRIP_VALUE,
    SUPPORTED_CASES,
    UNSUPPORTED_QUERIES,
    SupportedCase,
)

__all__ = ["RoutingHook", "driver_evidence", "validate_driver"]

SOURCE = "fixture"
"""The catalog source the validation's fixture server is routed as."""

OUTPUT_GUARDRAIL_CHECK = (
    "checked the output guardrail with one call to a read-only fixture tool on a second agent "
    "over its own fixture server, whose call log `tool_body_calls` does not count"
)


@dataclass(frozen=True, slots=True)
class RoutingHook:
    """An adapter's own routing decision for one request, as `RoutingTimer` times it.

    `route(context)` is what the framework's hook does for a run (find the request in the run
    context, then ask for the allow-set); `fresh_context()` makes a new run context for the
    request each time, so no per-run memo of the adapter answers. A driver offers it through an
    optional `routing_hook(agent, request)` method; without one, the validation times the
    allow-set provider alone.
    """

    route: Callable[[Any], object]
    fresh_context: Callable[[], Any]


@dataclass
class _Tally:
    """What the report counts across requests."""

    required: int = 0
    found: int = 0
    tasks: int = 0
    checked: int = 0
    identical: int = 0


def _scenario(visibility: AllowSetProvider, call_log: Path) -> Scenario:
    command, args = stdio_command(call_log)
    return Scenario(
        FixtureSource("stdio", call_log, command=command, args=tuple(args), source_name=SOURCE),
        visibility,
        approval_required=frozenset(DESTRUCTIVE_TOOLS),
        guardrail_trip_value=GUARDRAIL_TRIP_VALUE,
    )


async def _latency(
    driver: AdapterDriver, built: Any, visibility: AllowSetProvider, timer: RoutingTimer, request: RunRequest
) -> float:
    """The request's routing latency: the adapter's own hook when the driver names it."""
    hook_of = getattr(driver, "routing_hook", None)
    if hook_of is None:
        query = request.query or ""
        return timer.measure(visibility.allow_set, lambda: query)
    hook: RoutingHook = await _settle(hook_of(built, request))
    return timer.measure(hook.route, hook.fresh_context)


def _arguments_fit(offered: OfferedTools, tool: str, arguments: Mapping[str, object]) -> bool:
    schema = next((t.input_schema for t in offered.tools if t.name == tool), None)
    return schema is not None and Draft202012Validator(dict(schema)).is_valid(dict[str, Any](arguments))


async def _case(
    driver: AdapterDriver,
    built: Any,
    visibility: AllowSetProvider,
    catalog: Catalog,
    timer: RoutingTimer,
    tally: _Tally,
    query: str,
    case: SupportedCase | None,
) -> EvidenceCase:
    """One request (`case` None: an unsupported one): one offline turn, what it was offered."""
    request = RunRequest(query)
    latency = await _latency(driver, built, visibility, timer, request)
    allow = visibility.allow_set(query)
    offered = await _settle(driver.offered_tools(built, request))
    listed = [(tool, catalog.lookup(SOURCE, tool.name)) for tool in offered.tools]
    same = True
    for tool, cap in listed:
        identical = cap is not None and canonical_json(tool.input_schema) == canonical_json(cap.input_schema)
        tally.checked += 1
        tally.identical += identical
        same &= identical
    routed = [tool.name for tool, cap in listed if cap is not None]
    if case is None:
        passed = not routed
    else:
        hits = [tool for tool in case.required_tools if tool in offered.names]
        tally.required += len(case.required_tools)
        tally.found += len(hits)
        passed = len(hits) == len(case.required_tools) and set(routed) == set(allow.names) and same
        tally.tasks += passed and _arguments_fit(offered, case.required_tools[0], case.arguments)
    return EvidenceCase(
        query=query,
        kind="unsupported" if case is None else "supported",
        required_tools=() if case is None else case.required_tools,
        allow_set=allow.names,
        offered_tools=offered.names,
        no_route=allow.no_route,
        offered_schema_bytes=sum(cap.schema_bytes for _, cap in listed if cap is not None),
        routing_latency_ms=latency,
        passed=passed,
    )


def _routed_in(visibility: AllowSetProvider, cases: Iterable[SupportedCase]) -> list[SupportedCase]:
    """The cases whose tool the routing lets through for their request (a static rule may hide one)."""
    return [c for c in cases if c.required_tools[0] in visibility.allow_set(c.query).names]


async def _approvals_kept(
    driver: AdapterDriver, built: Any, gated: Sequence[SupportedCase], call_log: Path
) -> bool:
    """Each approval-gated tool in `gated` pauses for approval, and is rejected without running.
    Not kept when there is none to check."""
    kept = bool(gated)
    for case in gated:
        request = RunRequest(case.query)
        report = await _settle(driver.call_tool(built, request, case.required_tools[0], case.arguments))
        if report.outcome != "awaiting_approval" or read_call_log(call_log):
            kept = False
            continue
        rejected = await _settle(driver.resume(built, request, report, approve=False))
        kept &= rejected.outcome == "rejected" and not read_call_log(call_log)
    return kept


async def _input_guardrail_kept(driver: AdapterDriver, built: Any, cases: Sequence[SupportedCase]) -> bool:
    """Calls carrying the trip value to each tool of `cases` are blocked (an approval the framework
    asks for first is given: the guardrail must then block). Not kept when there is none to check."""
    kept = bool(cases)
    for case in cases:
        request = RunRequest(case.query)
        report = await _settle(driver.call_tool(built, request, case.required_tools[0], tripping(case)))
        if report.outcome == "awaiting_approval":
            report = await _settle(driver.resume(built, request, report, approve=True))
        kept &= report.outcome == "blocked_by_input_guardrail"
    return kept


async def _output_guardrail_kept(driver: AdapterDriver, visibility: AllowSetProvider, workdir: Path) -> bool:
    """A routed-in read-only tool runs once and the output guardrail sees its result (not kept
    when the routing lets no read-only tool of the shared requests through).

    It runs on a second agent over its own fixture server, so the validation's call log
    (`tool_body_calls`) still counts only what must not run.
    """
    read_only = _routed_in(visibility, (c for c in SUPPORTED_CASES if c.required_tools[0] in READ_ONLY_TOOLS))
    if not read_only:
        return False
    case = read_only[0]
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


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


async def driver_evidence(
    driver: AdapterDriver,
    workdir: Path | None = None,
    *,
    config: RoutingConfig | None = None,
    adapter: str | None = None,
    framework: str | None = None,
    framework_version: str = "unknown",
) -> EvidenceReport:
    """The evidence report of the adapter `driver` drives, from runs against a fresh stdio
    fixture server whose call logs go to `workdir` (a temporary directory when None).

    Routing is `config.visibility(router)` over the server's catalog (`Visibility(router, k=3)`
    when `config` is None). Each shared request runs one offline turn through the driver: what
    was offered, whether each offered schema is the server's own. A supported request passes
    when its required tools are offered, the routed tools offered are its allow-set and every
    offered schema is identical; it is a task success when, besides, its scripted arguments
    fit the offered schema of its first required tool. An unsupported request passes when no
    routed tool is offered. Routing latency is the driver's `routing_hook` (the adapter's own
    hook, see `RoutingHook`) or else the allow-set provider, timed by `RoutingTimer`.

    Every boundary flag comes from a run, on the tools the routing lets through for their
    request (a static rule of `config` may hide some; a flag with nothing to check is `false`):
    `approval_preserved` from calling each approval-gated tool of `APPROVAL_CASES` (each must
    pause, then be rejected without running), `input_guardrail_preserved` from calls carrying
    the trip value to a read-only tool and to each approval-gated one (each must be blocked,
    after the approval if the framework asks for it first); none may run a tool body, and
    `tool_body_calls` counts the fixture's call log. `output_guardrail_preserved` needs a tool
    to run: one read-only call on a second agent over its own fixture server must run once with
    the output guardrail seeing its result (the report's `boundary.did` says so); a driver
    declaring `capabilities.output_guardrails=False` is not asked and gets `false`. `adapter`
    and `framework` default to the driver's `name`.
    """
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="schemarouter-validation-") as tmp:
            return await driver_evidence(
                driver,
                Path(tmp),
                config=config,
                adapter=adapter,
                framework=framework,
                framework_version=framework_version,
            )
    call_log = workdir / "validation-calls.jsonl"
    command, args = stdio_command(call_log)
    router = await SchemaRouter.from_stdio(command, args, name=SOURCE)
    catalog = router.catalog
    visibility = config.visibility(router) if config is not None else Visibility(router, k=3)
    visibility.allow_set("warm up")  # one-off index build and lazy tables, kept out of per-request timing
    timer = RoutingTimer()
    tally = _Tally()
    requests = [(c.query, c) for c in SUPPORTED_CASES] + [(q, None) for q in UNSUPPORTED_QUERIES]
    cases: list[EvidenceCase] = []
    built = await _settle(driver.build(_scenario(visibility, call_log)))
    try:
        for query, case in requests:
            cases.append(await _case(driver, built, visibility, catalog, timer, tally, query, case))
        gated = _routed_in(visibility, APPROVAL_CASES)
        read_only = _routed_in(
            visibility, (c for c in SUPPORTED_CASES if c.required_tools[0] in READ_ONLY_TOOLS)
        )
        approvals_kept = await _approvals_kept(driver, built, gated, call_log)
        input_kept = await _input_guardrail_kept(driver, built, [*read_only[:1], *gated])
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
    return EvidenceReport(
        adapter=adapter or driver.name,
        framework=framework or driver.name,
        framework_version=framework_version,
        schemarouter_version=schemarouter.__version__,
        discovered_tool_count=len(catalog),
        shortlisted_tool_count_max=max((len(c.offered_tools) for c in cases), default=0),
        full_schema_bytes=catalog.total_schema_bytes(),
        filtered_schema_bytes_mean=round(
            sum(c.offered_schema_bytes for c in supported) / max(len(supported), 1), 2
        ),
        required_tool_recall=_ratio(tally.found, tally.required),
        unsupported_query_rejection=_ratio(sum(c.passed for c in unsupported), len(unsupported)),
        shortlist_task_success=_ratio(tally.tasks, len(supported)),
        routing_latency=timer.summary(),
        schema_fidelity_checked=tally.checked,
        schema_fidelity_identical=tally.identical,
        approval_preserved=approvals_kept,
        input_guardrail_preserved=input_kept,
        output_guardrail_preserved=output_kept,
        tool_body_calls=len(read_call_log(call_log)),
        cases=tuple(cases),
        boundary=boundary,
    )


async def validate_driver(
    driver: AdapterDriver,
    workdir: Path,
    *,
    config: RoutingConfig | None = None,
    adapter: str | None = None,
    framework: str | None = None,
    framework_version: str = "unknown",
) -> Path:
    """Validate the adapter `driver` drives (`driver_evidence`, call logs in `workdir`); write the
    evidence report as `workdir / "artifacts" / "external-validation-<adapter>.json"` and return
    its path."""
    report = await driver_evidence(
        driver,
        workdir,
        config=config,
        adapter=adapter,
        framework=framework,
        framework_version=framework_version,
    )
    name = (adapter or driver.name).replace("/", "_")
    return report.write(workdir / "artifacts" / f"external-validation-{name}.json")
