"""The suite can fail: deliberately broken drivers make exactly the relevant standard tests fail.

Each broken driver is the reference driver with one guarantee removed. It runs in an inner
pytest session (pytester) over the HTTP fixture server, restricted to the tests that
matter, and the test asserts which fail, which pass, and what the failure says.
"""

from __future__ import annotations

from typing import Any

import pytest

BROKEN_DRIVERS = '''
from __future__ import annotations

from typing import Any, ClassVar

from schemarouter import AllowSet
from schemarouter.testing import FakeAgent
from schemarouter_conformance import AdapterConformanceSuite, CallReport, ReferenceDriver


class _EverythingVisible:
    """What an adapter that forgot to filter amounts to: every tool, every time."""

    def __init__(self, names: list[str]) -> None:
        self.names = tuple(names)

    def allow_set(self, query: str, principal: Any = None) -> AllowSet:
        routes = tuple(f"fixture:{name}" for name in self.names)
        return AllowSet(query, principal, "", self.names, routes, False, "routed", ())


class LeakyDriver(ReferenceDriver):
    name = "leaky"

    def agent_for(self, scenario, tools, outputs):
        agent = super().agent_for(scenario, tools, outputs)
        agent.visibility = _EverythingVisible([tool.name for tool in tools])
        return agent


class CallTimeLeakDriver(ReferenceDriver):
    """Offers the right tools but runs whatever the model names (no call-time enforcement)."""

    name = "call-time-leak"

    async def call_tool(self, agent, request, tool, arguments):
        report = await super().call_tool(agent, request, tool, arguments)
        if report.outcome != "refused_hidden":
            return report
        body = next(t for t in agent.agent.tools if t.name == tool)
        return CallReport(tool, "ran", output=str(await body.invoke(arguments)))


class NoApprovalDriver(ReferenceDriver):
    name = "no-approval"

    def approvals_for(self, scenario):
        return frozenset()


class NoGuardrailDriver(ReferenceDriver):
    name = "no-guardrail"

    def agent_for(self, scenario, tools, outputs):
        return FakeAgent(tools, scenario.visibility, approval_required=scenario.approval_required)


class BorrowingDriver(ReferenceDriver):
    """Validates another adapter and hands in its report."""

    name = "borrower"

    async def validate(self, workdir):
        return await ReferenceDriver().validate(workdir)


class _OverHttp(AdapterConformanceSuite):
    transports: ClassVar[tuple[str, ...]] = ("http",)
'''


def _run(inner_run: Any, driver: str, tests: list[str]) -> dict[str, pytest.TestReport]:
    """Run the named standard tests against `driver`; `{test name: its report}`."""
    test_module = f"from broken import _OverHttp, {driver}\n\n\nclass TestBroken(_OverHttp):\n    driver_factory = {driver}\n"
    return inner_run({"broken": BROKEN_DRIVERS, "test_broken": test_module}, "-k", " or ".join(tests))


def _outcomes(reports: dict[str, pytest.TestReport]) -> dict[str, str]:
    return {name: report.outcome for name, report in reports.items()}


def _failure_text(reports: dict[str, pytest.TestReport]) -> str:
    return "\n".join(report.longreprtext for report in reports.values() if report.failed)


def test_leaking_hidden_tools_fails_the_visibility_tests(inner_run: Any) -> None:
    failing = [
        "test_supported_query_offers_exactly_the_allow_set",
        "test_unsupported_query_offers_no_routed_tool",
        "test_hidden_tool_call_never_runs",
        "test_context_isolation_sequential",
        "test_context_isolation_concurrent",
        "test_fail_closed_when_router_raises",
        "test_blocked_wins_over_allowed",
        "test_static_rules_match_whole_names",
    ]
    failing.append("test_evidence_report_is_complete")
    passing = ["test_approval_kept_for_routed_tool", "test_discovery_and_filtering_run_no_tool"]
    reports = _run(inner_run, "LeakyDriver", failing + passing)
    assert _outcomes(reports) == {**dict.fromkeys(failing, "failed"), **dict.fromkeys(passing, "passed")}
    text = _failure_text(reports)
    assert "expected the allow-set" in text
    assert "(no route) was offered" in text
    assert "calls to hidden tools were not refused" in text
    assert "a raising router still exposed" in text
    assert "unsupported-query rejection is 0.0, expected 1.0" in text  # its own report says so


def test_handing_in_another_adapters_report_fails_the_evidence_test(inner_run: Any) -> None:
    reports = _run(inner_run, "BorrowingDriver", ["test_evidence_report_is_complete"])
    assert _outcomes(reports) == {"test_evidence_report_is_complete": "failed"}
    assert "the report is for adapter 'reference'" in _failure_text(reports)
    assert "not for this driver 'borrower'" in _failure_text(reports)


def test_running_hidden_calls_fails_the_call_time_test(inner_run: Any) -> None:
    reports = _run(
        inner_run,
        "CallTimeLeakDriver",
        ["test_hidden_tool_call_never_runs", "test_supported_query_offers_exactly_the_allow_set"],
    )
    assert _outcomes(reports) == {
        "test_hidden_tool_call_never_runs": "failed",
        "test_supported_query_offers_exactly_the_allow_set": "passed",
    }
    text = _failure_text(reports)
    assert "calls to hidden tools were not refused" in text
    assert "'ran'" in text


def test_dropping_approval_fails_the_approval_test(inner_run: Any) -> None:
    reports = _run(
        inner_run,
        "NoApprovalDriver",
        [
            "test_approval_kept_for_routed_tool",
            "test_evidence_report_is_complete",
            "test_input_guardrail_kept",
        ],
    )
    assert _outcomes(reports) == {
        "test_approval_kept_for_routed_tool": "failed",
        "test_evidence_report_is_complete": "failed",
        "test_input_guardrail_kept": "passed",
    }
    text = _failure_text(reports)
    assert "calling approval-gated delete_customer gave 'ran'" in text
    assert "expected a pending approval" in text
    assert "the evidence reports these as not preserved: ['approval_preserved']" in text


def test_dropping_guardrails_fails_the_guardrail_tests(inner_run: Any) -> None:
    reports = _run(
        inner_run,
        "NoGuardrailDriver",
        [
            "test_input_guardrail_kept",
            "test_output_guardrail_sees_result",
            "test_approval_kept_for_routed_tool",
        ],
    )
    assert _outcomes(reports) == {
        "test_input_guardrail_kept": "failed",
        "test_output_guardrail_sees_result": "failed",
        "test_approval_kept_for_routed_tool": "passed",
    }
    text = _failure_text(reports)
    assert "the input guardrail must block it" in text
    assert "the output guardrail did not see the result of search_customers" in text
