"""Standard tests of what the framework keeps: tests 3, 4, 8, 11 and 13 of the contract.

Approvals and guardrails must survive routing, failures must close (also when a paused run
resumes), and the validation must leave evidence. Whether a tool body ran is read from the fixture's call log.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from pathlib import Path
from typing import Any

from schemarouter.evidence import missing_evidence_fields
from schemarouter.testing import RaisingVisibility

from ._driver import AdapterDriver, CallReport, RunRequest
from ._expect import case_where, fail_if, gated_cases, not_run, outcome, routed_in, tripping
from ._fixture import READ_ONLY_TOOLS
from ._guard import needs
from ._harness import ConformanceRun
from ._providers import ChangingVisibility

__all__ = ["BoundaryTests"]


class BoundaryTests:
    """Routing leaves approvals, guardrails and failures to the framework, intact."""

    # 3 ----------------------------------------------------------------------------------------
    @needs("approvals")
    def test_approval_kept_for_routed_tool(self, conformance: ConformanceRun) -> None:
        """Proves: every approval-gated tool that routing lets in (one request per tool of
        `APPROVAL_CASES`, all gated on one agent) still interrupts for approval; it does not run
        while pending, never runs after a rejection, and runs exactly once after an approval.

        Fix a failure: the adapter must only filter; keep the framework's approval objects
        (needs_approval / require_approval / HITL middleware) on every tool it lets through,
        not only on some of them.
        """
        run = conformance
        cases = gated_cases(run)
        gated = [case.required_tools[0] for case in cases]

        async def body() -> None:
            async with run.agent(run.scenario(approval_required=gated)) as agent:
                for case, tool in zip(cases, gated, strict=True):
                    request = RunRequest(case.query)
                    first = await run.call(agent, request, tool, case.arguments)
                    assert first.outcome == "awaiting_approval", (
                        f"calling approval-gated {tool} gave {outcome(first)}, expected a pending approval"
                    )
                    not_run(run, first, f"{tool} is awaiting approval")
                    rejected = await run.resume(agent, request, first, approve=False)
                    assert rejected.outcome == "rejected", f"rejecting {tool} gave {outcome(rejected)}"
                    not_run(run, rejected, f"the approval of {tool} was rejected")
                for case, tool in zip(cases, gated, strict=True):
                    request = RunRequest(case.query)
                    second = await run.call(agent, request, tool, case.arguments)
                    assert second.outcome == "awaiting_approval", (
                        f"calling {tool} again gave {outcome(second)}, expected a pending approval"
                    )
                    approved = await run.resume(agent, request, second, approve=True)
                    assert approved.outcome == "ran", f"approving {tool} gave {outcome(approved)}"
            ran = [call["tool"] for call in run.calls()]
            assert ran == gated, (
                f"after one approval each, {gated} must each run exactly once; the call log shows {ran}"
            )

        run.run(body)

    # 4 ----------------------------------------------------------------------------------------
    @needs("input_guardrails")
    def test_input_guardrail_kept(self, conformance: ConformanceRun) -> None:
        """Proves: the framework's input guardrail still trips on a routed-in read-only tool and on
        every routed-in approval-gated tool (`APPROVAL_CASES`), and no body runs. A framework that
        asks for the approval before running its guardrails passes when the guardrail blocks
        the approved call.

        Fix a failure: do not replace or rebuild the tool objects in a way that drops the
        framework's input guardrails, and do not exempt approval-gated tools from them (an
        approver does not replace a guardrail); filter the list, keep the objects.
        """
        run = conformance
        read_only = case_where(run, routed_in(READ_ONLY_TOOLS), "a read-only tool routed in")
        cases = [("read-only", read_only), *(("approval-gated", case) for case in gated_cases(run))]

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario()) as agent:
                for kind, case in cases:
                    tool, arguments, request = case.required_tools[0], tripping(case), RunRequest(case.query)
                    report = await run.call(agent, request, tool, arguments)
                    said = [outcome(report)]
                    if report.outcome == "awaiting_approval":
                        report = await run.resume(agent, request, report, approve=True)
                        said.append(f"{outcome(report)} once approved")
                    if report.outcome != "blocked_by_input_guardrail":
                        problems.append(f"{kind} {tool} called with {arguments} gave {', then '.join(said)}")
            fail_if(problems, "the input guardrail did not block these calls (it must):")
            calls = run.calls()
            assert not calls, f"the input guardrail blocked every call, yet tool bodies ran: {calls}"

        run.run(body)

    @needs("output_guardrails")
    def test_output_guardrail_sees_result(self, conformance: ConformanceRun) -> None:
        """Proves: a routed-in tool runs once and the framework's output guardrail sees its result.

        Fix a failure: keep the framework's output guardrails on the tools you let through.
        """
        run = conformance
        case = case_where(run, routed_in(READ_ONLY_TOOLS), "a read-only tool routed in")
        tool = case.required_tools[0]

        async def body() -> None:
            async with run.agent(run.scenario()) as agent:
                report = await run.call(agent, RunRequest(case.query), tool, case.arguments)
            assert report.outcome == "ran", f"{tool} with {case.arguments} gave {outcome(report)}"
            assert report.output_seen_by_guardrail, f"the output guardrail did not see the result of {tool}"
            ran = [call["tool"] for call in run.calls()]
            assert ran == [tool], f"{tool} must run exactly once; the call log shows {ran}"

        run.run(body)

    # 8 ----------------------------------------------------------------------------------------
    def test_fail_closed_when_router_raises(self, conformance: ConformanceRun) -> None:
        """Proves: when the router raises, no routed tool is offered, a scripted call does not run,
        and the failure is visible (`OfferedTools.failure`, or a WARNING+ record on a
        `schemarouter*` logger).

        Fix a failure: catch the routing error, expose nothing routed, and log or surface it;
        never fall back to showing every tool.
        """
        run = conformance
        raising = RaisingVisibility(run.router, k=run.k)
        case = case_where(run, routed_in(READ_ONLY_TOOLS), "a read-only tool routed in")

        async def body() -> None:
            async with run.agent(run.scenario(raising)) as agent:
                mark = run.log_mark()
                offered = await run.offered(agent, RunRequest(case.query))
                seen = run.routing_failure_seen(offered, mark)
                report = await run.call(agent, RunRequest(case.query), case.required_tools[0], case.arguments)
            assert raising.calls >= 1, "the adapter never consulted the scenario's visibility"
            assert not run.routed(offered), f"a raising router still exposed {run.routed(offered)}"
            assert seen, (
                "the routing failure was not visible: no OfferedTools.failure and no schemarouter* warning"
            )
            assert report.outcome in ("refused_hidden", "error"), (
                f"call under a raising router: {outcome(report)}"
            )
            not_run(run, report, "the router raised")

        run.run(body)

    def test_fail_closed_without_request(self, conformance: ConformanceRun) -> None:
        """Proves: a run whose context carries no request exposes no routed tool, runs nothing,
        and says so (`OfferedTools.failure`, or a WARNING+ record on a `schemarouter*` logger).

        Fix a failure: when the request cannot be derived from the run context, hide routed
        tools and log why; do not route on an empty string or on stale state.
        """
        run = conformance
        case = case_where(run, routed_in(READ_ONLY_TOOLS), "a read-only tool routed in")

        async def body() -> None:
            async with run.agent(run.scenario()) as agent:
                mark = run.log_mark()
                offered = await run.offered(agent, RunRequest(None))
                seen = run.routing_failure_seen(offered, mark)
                report = await run.call(agent, RunRequest(None), case.required_tools[0], case.arguments)
            assert not run.routed(offered), f"a run with no request was offered {run.routed(offered)}"
            assert seen, (
                "the missing request was not visible: no OfferedTools.failure and no schemarouter* warning"
            )
            assert report.outcome in ("refused_hidden", "error"), f"call with no request: {outcome(report)}"
            not_run(run, report, "the run had no request")

        run.run(body)

    # 11 ---------------------------------------------------------------------------------------
    def test_evidence_report_is_complete(self, conformance_driver: AdapterDriver, tmp_path: Path) -> None:
        """Proves: the adapter's validation writes an evidence report of its own (its `adapter`
        is the driver's `name` or `schemarouter-<name>`, or its `framework` is the `name`) with
        every field, every required tool routed, every unsupported request refused, every
        offered schema the server's own, zero tool-body calls, and approvals and guardrails
        preserved where the driver claims them.

        Fix a failure: run your adapter's own validation, e.g.
        `schemarouter_conformance.validate_driver(self, workdir)`, or build the report with
        `schemarouter.evidence.EvidenceReport` and `write()` it; count the fixture's call log for
        `tool_body_calls`.
        """
        driver = conformance_driver

        async def body() -> Path:
            result = driver.validate(tmp_path)
            return Path(await result if inspect.isawaitable(result) else result)

        path = asyncio.run(asyncio.wait_for(body(), 300))
        assert path.is_file(), f"driver.validate returned {path}, which is not a file"
        data = json.loads(path.read_text(encoding="utf-8"))
        problems: list[str] = []
        if missing := missing_evidence_fields(data):
            problems.append(f"evidence fields missing: {missing}")
        name = driver.name
        if data.get("adapter") not in (name, f"schemarouter-{name}") and data.get("framework") != name:
            problems.append(
                f"the report is for adapter {data.get('adapter')!r} (framework {data.get('framework')!r}), "
                f"not for this driver {name!r}: validate must run this adapter's own validation"
            )
        for field, what in (
            ("required_tool_recall", "required-tool recall"),
            ("unsupported_query_rejection", "unsupported-query rejection"),
        ):
            if data.get(field) != 1.0:
                problems.append(f"{what} is {data.get(field)}, expected 1.0")
        if data.get("schema_fidelity_identical") != data.get("schema_fidelity_checked"):
            problems.append(
                f"offered schemas differ from the server's: {data.get('schema_fidelity_identical')} of "
                f"{data.get('schema_fidelity_checked')} identical"
            )
        if data.get("tool_body_calls") != 0:
            problems.append(f"validation ran tool bodies: tool_body_calls = {data.get('tool_body_calls')}")
        flags = {
            "approval_preserved": driver.capabilities.approvals,
            "input_guardrail_preserved": driver.capabilities.input_guardrails,
            "output_guardrail_preserved": driver.capabilities.output_guardrails,
        }
        weakened = [name for name, claimed in flags.items() if claimed and data.get(name) is not True]
        if weakened:
            problems.append(f"the evidence reports these as not preserved: {weakened}")
        fail_if(problems, f"evidence report {path}:")

    # 13 ---------------------------------------------------------------------------------------
    @needs("approvals")
    def test_resume_rechecks_visibility(self, conformance: ConformanceRun) -> None:
        """Proves: a call paused for approval is checked against the routing again when the run
        resumes. An approval-gated tool routed in for a request pauses; with routing unchanged,
        approving it runs it exactly once. Paused again, and before the approval arrives the
        allow-set source now blocks the tool (then, in a second run, raises): approving it must
        not run it, and the resumed call is reported as refused or failed, never as run.

        Fix a failure: check visibility at call time after a resume too, asking the allow-set
        source again instead of reusing the allow-set the run was paused with (a cache keyed
        on the run context or the catalog version alone survives the pause). An approval
        answers "may this call run?", not "is this tool still routed?".
        """
        run = conformance
        case = gated_cases(run)[0]
        tool, request = case.required_tools[0], RunRequest(case.query)
        blocking = run.visibility(blocked={tool})
        assert tool not in run.expected(case.query, blocking).names, (
            f"suite precondition: the core let blocked {tool} through"
        )
        source = ChangingVisibility(run.visibility())
        changes = {f"now blocks {tool}": blocking, "now raises": RaisingVisibility(run.router, k=run.k)}

        async def paused(agent: Any, why: str) -> CallReport:
            report = await run.call(agent, request, tool, case.arguments)
            assert report.outcome == "awaiting_approval", (
                f"{why}: calling approval-gated {tool} for {case.query!r} gave {outcome(report)}, "
                "expected a pending approval"
            )
            return report

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario(source, approval_required=[tool])) as agent:
                first = await paused(agent, "routing unchanged")
                not_run(run, first, f"{tool} is awaiting approval")
                approved = await run.resume(agent, request, first, approve=True)
                ran = [call["tool"] for call in run.calls()]
                assert (approved.outcome, ran) == ("ran", [tool]), (
                    f"with routing unchanged, approving {tool} gave {outcome(approved)} and the call log "
                    f"shows {ran}; it must run exactly once (the control for the changed routing below)"
                )
                for change, provider in changes.items():
                    pending = await paused(agent, f"before the allow-set source {change}")
                    source.change_to(provider)
                    try:
                        resumed = await run.resume(agent, request, pending, approve=True)
                    finally:
                        asked = source.asked_since_change
                        source.restore()
                    if resumed.outcome not in ("refused_hidden", "error"):
                        problems.append(
                            f"the allow-set source {change} while {tool} awaits approval; approving it "
                            f"gave {outcome(resumed)}, expected 'refused_hidden' or 'error' (the source "
                            f"was asked {asked} times after the change)"
                        )
            calls = run.calls()
            if [call["tool"] for call in calls] != [tool]:
                problems.append(f"only the control may run {tool}, yet the call log shows {calls}")
            fail_if(problems, "an approved call was not checked again on resume:")

        run.run(body)
