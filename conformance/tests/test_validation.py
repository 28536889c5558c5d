"""The shared validation (`driver_evidence`, `validate_driver`) reads every flag off a run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from schemarouter import RoutingConfig
from schemarouter.evidence import RoutingTimer
from schemarouter_conformance import (
    DESTRUCTIVE_TOOLS,
    SUPPORTED_CASES,
    UNSUPPORTED_QUERIES,
    CallReport,
    DriverCapabilities,
    ReferenceDriver,
    RoutingHook,
    RunRequest,
    driver_evidence,
    validate_driver,
)
from schemarouter_conformance._validation import OUTPUT_GUARDRAIL_CHECK  # pyright: ignore[reportPrivateUsage]


class _NoOutputGuardrail(ReferenceDriver):
    name = "no-output-guardrail"

    def agent_for(self, scenario: Any, tools: Any, outputs: Any) -> Any:
        agent = super().agent_for(scenario, tools, outputs)
        agent.output_guardrail = None
        return agent


class _DeclaresNoOutputGuardrail(ReferenceDriver):
    name = "declares-no-output-guardrail"
    capabilities = DriverCapabilities(output_guardrails=False)


@pytest.mark.parametrize(
    ("driver", "preserved", "says_how"),
    [
        pytest.param(ReferenceDriver(), True, True, id="kept"),
        pytest.param(_NoOutputGuardrail(), False, True, id="dropped-but-declared"),
        pytest.param(_DeclaresNoOutputGuardrail(), False, False, id="declared-missing"),
    ],
)
def test_output_guardrail_preserved_comes_from_a_run(
    driver: ReferenceDriver, preserved: bool, says_how: bool, tmp_path: Path
) -> None:
    path = asyncio.run(validate_driver(driver, tmp_path))
    report = json.loads(path.read_text(encoding="utf-8"))
    assert path == tmp_path / "artifacts" / f"external-validation-{driver.name}.json"
    assert report["output_guardrail_preserved"] is preserved
    assert (OUTPUT_GUARDRAIL_CHECK in report["boundary"]["did"]) is says_how
    assert report["tool_body_calls"] == 0  # the output check runs on its own fixture server
    assert (report["approval_preserved"], report["input_guardrail_preserved"]) == (True, True)


class _RejectionRuns(ReferenceDriver):
    """Runs an approval-gated call even when its approval is rejected."""

    name = "rejection-runs"

    async def resume(
        self, agent: Any, request: RunRequest, pending: CallReport, *, approve: bool
    ) -> CallReport:
        return await super().resume(agent, request, pending, approve=True)


def test_a_rejected_approval_that_runs_the_tool_is_not_kept(tmp_path: Path) -> None:
    report = asyncio.run(driver_evidence(_RejectionRuns(), tmp_path))
    assert report.approval_preserved is False
    assert report.tool_body_calls > 0
    assert report.failures()


class _TimedDriver(ReferenceDriver):
    """Names its routing hook, and counts how often the validation asks it to decide."""

    name = "timed"

    def __init__(self) -> None:
        self.decided: list[str] = []

    def routing_hook(self, agent: Any, request: RunRequest) -> RoutingHook:
        visibility = agent.agent.visibility

        def route(context: dict[str, str]) -> object:
            self.decided.append(context["query"])
            return visibility.allow_set(context["query"])

        return RoutingHook(route, lambda: {"query": request.query})


def test_the_adapter_hook_is_timed_and_the_config_routes(tmp_path: Path) -> None:
    """With a `routing_hook` the timed decision is the adapter's; `config` sets the allow-set
    (k=1 here); the report is returned and nothing is written but the call logs."""
    driver = _TimedDriver()
    report = asyncio.run(
        driver_evidence(driver, tmp_path, config=RoutingConfig(k=1), adapter="schemarouter-timed")
    )
    queries = [c.query for c in SUPPORTED_CASES] + list(UNSUPPORTED_QUERIES)
    assert driver.decided == [q for q in queries for _ in range(RoutingTimer().runs)]
    assert report.adapter == "schemarouter-timed"
    assert report.framework == "timed"
    assert report.shortlisted_tool_count_max == 1
    assert report.failures() == []
    assert report.shortlist_task_success == 1.0
    assert not (tmp_path / "artifacts").exists()


@pytest.mark.parametrize(
    ("blocked", "approvals_kept"),
    [
        pytest.param(("delete_invoice",), True, id="one-gated-tool-hidden"),
        pytest.param(tuple(DESTRUCTIVE_TOOLS), False, id="every-gated-tool-hidden"),
    ],
)
def test_flags_are_read_off_the_tools_the_routing_lets_through(
    blocked: tuple[str, ...], approvals_kept: bool, tmp_path: Path
) -> None:
    """A static rule hiding an approval-gated tool leaves the others to prove the approvals and
    the input guardrail; with none left, approvals are not claimed."""
    report = asyncio.run(
        driver_evidence(ReferenceDriver(), tmp_path, config=RoutingConfig(k=3, blocked=blocked))
    )
    assert report.approval_preserved is approvals_kept
    assert report.input_guardrail_preserved is True
    assert report.output_guardrail_preserved is True
    assert report.tool_body_calls == 0
