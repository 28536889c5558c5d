"""`EvidenceReport.summary()`: what the validation commands print about a report."""

from __future__ import annotations

from dataclasses import replace

from schemarouter import EvidenceReport, LatencySummary


def report(**changes: object) -> EvidenceReport:
    base = EvidenceReport(
        adapter="schemarouter-example",
        framework="example-framework",
        framework_version="1.2.3",
        schemarouter_version="0.1.0",
        discovered_tool_count=15,
        shortlisted_tool_count_max=3,
        full_schema_bytes=5000,
        filtered_schema_bytes_mean=512.5,
        required_tool_recall=1.0,
        unsupported_query_rejection=1.0,
        shortlist_task_success=1.0,
        routing_latency=LatencySummary(0.12, 0.5, 0.75),
        schema_fidelity_checked=3,
        schema_fidelity_identical=3,
        approval_preserved=True,
        input_guardrail_preserved=True,
        output_guardrail_preserved=True,
        tool_body_calls=0,
        cases=(),
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def test_summary_states_every_headline_number() -> None:
    text = "\n".join(report().summary())
    for needle in (
        "example-framework 1.2.3",
        "schemarouter 0.1.0",
        "15 tools discovered",
        "at most 3 offered",
        "5000 full catalog vs 512.5 offered",
        "bytes, not tokens",
        "recall 1.000",
        "rejection 1.000",
        "task success 1.000",
        "p50 0.12 ms",
        "p95 0.5 ms",
        "approvals kept",
        "input guardrail kept",
        "output guardrail kept",
        "tool-body calls 0",
        "schemas identical 3/3",
    ):
        assert needle in text, needle


def test_summary_shows_shortfalls_without_judging() -> None:
    lines = report(
        required_tool_recall=0.8333, approval_preserved=False, tool_body_calls=2, schema_fidelity_identical=1
    ).summary()
    text = "\n".join(lines)
    assert "recall 0.833" in text
    assert "approvals NOT kept" in text
    assert "tool-body calls 2" in text
    assert "schemas identical 1/3" in text
    assert not any("FAILED" in line for line in lines)
    assert all("\n" not in line for line in lines)
