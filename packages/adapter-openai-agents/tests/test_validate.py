"""`python -m schemarouter_openai_agents.validate`, run from an arbitrary directory."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from schemarouter import EvidenceReport, LatencySummary, missing_evidence_fields
from schemarouter_conformance import SUPPORTED_CASES, UNSUPPORTED_QUERIES
from schemarouter_openai_agents.validate import ARTIFACT_NAME, failed_checks


@pytest.mark.slow
def test_validation_command_writes_a_passing_artifact(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "schemarouter_openai_agents.validate"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((tmp_path / "artifacts" / ARTIFACT_NAME).read_text(encoding="utf-8"))
    assert missing_evidence_fields(data) == []
    assert data["required_tool_recall"] == 1.0
    assert data["unsupported_query_rejection"] == 1.0
    assert data["tool_body_calls"] == 0
    assert data["approval_preserved"]
    assert data["input_guardrail_preserved"]
    assert data["output_guardrail_preserved"]
    assert data["schema_fidelity_identical"] == data["schema_fidelity_checked"] > 0
    assert data["boundary"]["hosted_model_used"] is False
    assert data["boundary"]["api_key_used"] is False
    assert "not tokens" in data["bytes_note"]
    kinds = [case["kind"] for case in data["cases"]]
    assert kinds.count("supported") == len(SUPPORTED_CASES)
    assert kinds.count("unsupported") == len(UNSUPPORTED_QUERIES)
    delete_case = next(c for c in data["cases"] if c["required_tools"] == ["delete_customer"])
    assert "delete_customer" in delete_case["offered_tools"]
    assert delete_case["passed"]
    assert all(c["offered_tools"] == [] for c in data["cases"] if c["kind"] == "unsupported")
    assert data["filtered_schema_bytes_mean"] < data["full_schema_bytes"]


def _report(**changes: object) -> EvidenceReport:
    base = EvidenceReport(
        adapter="schemarouter-openai-agents",
        framework="openai-agents",
        framework_version="0",
        schemarouter_version="0",
        discovered_tool_count=1,
        shortlisted_tool_count_max=1,
        full_schema_bytes=10,
        filtered_schema_bytes_mean=5.0,
        required_tool_recall=1.0,
        unsupported_query_rejection=1.0,
        shortlist_task_success=1.0,
        routing_latency=LatencySummary.of([0.1]),
        schema_fidelity_checked=1,
        schema_fidelity_identical=1,
        approval_preserved=True,
        input_guardrail_preserved=True,
        output_guardrail_preserved=True,
        tool_body_calls=0,
        cases=(),
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"required_tool_recall": 0.5}, "recall"),
        ({"unsupported_query_rejection": 0.75}, "rejection"),
        ({"tool_body_calls": 1}, "tool-body"),
        ({"approval_preserved": False}, "approvals"),
        ({"output_guardrail_preserved": False}, "guardrails"),
        ({"schema_fidelity_identical": 0}, "schema"),
    ],
)
def test_failed_checks_name_each_problem(changes: dict[str, object], needle: str) -> None:
    problems = failed_checks(_report(**changes))
    assert len(problems) == 1
    assert needle in problems[0]


def test_a_clean_report_passes() -> None:
    assert failed_checks(_report()) == []
