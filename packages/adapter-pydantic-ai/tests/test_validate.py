"""The validation's pass/fail gate (the artifact itself is checked by the conformance suite)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from schemarouter import EvidenceReport, LatencySummary
from schemarouter_pydantic_ai.validate import failures


def report(**changes: object) -> EvidenceReport:
    base = EvidenceReport(
        adapter="schemarouter-pydantic-ai",
        framework="pydantic-ai",
        framework_version="2.68.0",
        schemarouter_version="0.1.0",
        discovered_tool_count=15,
        shortlisted_tool_count_max=3,
        full_schema_bytes=5000,
        filtered_schema_bytes_mean=500.0,
        required_tool_recall=1.0,
        unsupported_query_rejection=1.0,
        shortlist_task_success=1.0,
        routing_latency=LatencySummary.of([0.1]),
        schema_fidelity_checked=3,
        schema_fidelity_identical=3,
        approval_preserved=True,
        input_guardrail_preserved=True,
        output_guardrail_preserved=True,
        tool_body_calls=0,
        cases=(),
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def test_a_clean_report_passes() -> None:
    assert failures(report()) == []


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"required_tool_recall": 0.83}, "recall"),
        ({"unsupported_query_rejection": 0.75}, "rejection"),
        ({"tool_body_calls": 1}, "tool bodies"),
        ({"approval_preserved": False}, "approval_preserved"),
        ({"input_guardrail_preserved": False}, "input_guardrail_preserved"),
        ({"output_guardrail_preserved": False}, "output_guardrail_preserved"),
    ],
)
def test_each_shortfall_fails(change: dict[str, object], needle: str) -> None:
    problems = failures(report(**change))
    assert len(problems) == 1
    assert needle in problems[0]
