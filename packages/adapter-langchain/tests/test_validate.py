"""`python -m schemarouter_conformance.validate langchain` (and the old `python -m schemarouter_langchain.validate`,
which forwards to it), run from an arbitrary directory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from schemarouter.evidence import missing_evidence_fields
from schemarouter_conformance import SUPPORTED_CASES, UNSUPPORTED_QUERIES
from schemarouter_langchain import validate


@pytest.mark.slow
def test_validation_command_writes_a_passing_artifact(tmp_path: Path) -> None:
    """Exit code 0 means the report meets the acceptance bar (`EvidenceReport.failures()`)."""
    command = [sys.executable, "-m", "schemarouter_conformance.validate", "langchain"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((tmp_path / "artifacts" / validate.ARTIFACT_NAME).read_text(encoding="utf-8"))
    assert missing_evidence_fields(data) == []
    assert (data["adapter"], data["framework"]) == ("schemarouter-langchain", "langchain")
    assert len(data["cases"]) == len(SUPPORTED_CASES) + len(UNSUPPORTED_QUERIES)


def test_the_old_command_forwards_with_a_deprecation_warning(tmp_path: Path) -> None:
    """The old module runs the same validation (here: its usage error, quickly) and says where it moved."""
    command = [
        sys.executable,
        "-W",
        "always::DeprecationWarning",
        "-m",
        "schemarouter_langchain.validate",
        "--help",
    ]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "python -m schemarouter_conformance.validate langchain" in done.stdout + done.stderr
    assert "DeprecationWarning" in done.stderr
