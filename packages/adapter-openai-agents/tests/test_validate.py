"""`python -m schemarouter_openai_agents.validate`, run from an arbitrary directory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from schemarouter.evidence import missing_evidence_fields
from schemarouter.testing import passing_evidence_report
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


def test_a_clean_report_passes() -> None:
    assert failed_checks(passing_evidence_report()) == []


def test_a_shortfall_fails_with_the_core_bar() -> None:
    """The bar itself (`EvidenceReport.failures()`) is tested in core; here, that it is applied."""
    report = passing_evidence_report(tool_body_calls=1, schema_fidelity_identical=0)
    assert failed_checks(report) == report.failures()
    assert len(failed_checks(report)) == 2


@pytest.mark.slow
async def test_the_output_guardrail_claim_comes_from_a_run(tmp_path: Path) -> None:
    """The report says the output guardrail is kept only when a routed call's result reached it:
    with the probe's tool hidden by routing, no result does, and the claim is not made."""
    from agents.mcp import MCPServerStdio

    from schemarouter import SchemaRouter, Visibility
    from schemarouter_conformance import GUARDRAIL_TRIP_VALUE, stdio_command
    from schemarouter_openai_agents import OpenAIAgentsRouter, mirror_mcp_server
    from schemarouter_openai_agents._probe import GuardrailProbe
    from schemarouter_openai_agents._validation import SOURCE, _output_guardrail_sees_a_result

    command, args = stdio_command(tmp_path / "listing.jsonl")
    async with MCPServerStdio({"command": command, "args": args}, name=SOURCE) as server:
        catalog = await mirror_mcp_server(server)
    tool = SUPPORTED_CASES[0].required_tools[0]
    for blocked, kept in (((), True), ((tool,), False)):
        routing = OpenAIAgentsRouter(Visibility(SchemaRouter(catalog), k=3, blocked=blocked))
        probe = GuardrailProbe(GUARDRAIL_TRIP_VALUE)
        run_dir = tmp_path / ("blocked" if blocked else "open")
        run_dir.mkdir()
        assert await _output_guardrail_sees_a_result(routing, probe, run_dir) is kept
