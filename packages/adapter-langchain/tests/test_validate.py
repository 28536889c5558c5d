"""`python -m schemarouter_langchain.validate` writes the evidence report, from any directory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from schemarouter.evidence import missing_evidence_fields


def test_validation_writes_a_passing_artifact(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "schemarouter_langchain.validate"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(
        (tmp_path / "artifacts" / "external-validation-langchain.json").read_text(encoding="utf-8")
    )
    assert missing_evidence_fields(data) == []
    assert data["framework"] == "langchain"
    assert data["required_tool_recall"] == 1.0
    assert data["unsupported_query_rejection"] == 1.0
    assert data["tool_body_calls"] == 0
    assert data["approval_preserved"]
    assert data["input_guardrail_preserved"]
    assert data["output_guardrail_preserved"]
    assert data["schema_fidelity_checked"] > 0
    assert data["schema_fidelity_identical"] == data["schema_fidelity_checked"]
    assert data["full_schema_bytes"] > data["filtered_schema_bytes_mean"] > 0
    assert data["boundary"]["schemarouter_executed_tools"] is False
    supported = [c for c in data["cases"] if c["kind"] == "supported"]
    assert supported
    assert all(set(c["required_tools"]) <= set(c["offered_tools"]) for c in supported)
    assert all(c["offered_tools"] == [] for c in data["cases"] if c["kind"] == "unsupported")
