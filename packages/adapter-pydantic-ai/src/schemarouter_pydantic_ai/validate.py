"""Deprecated: the external validation moved to the conformance package, with the drivers.

Run `python -m schemarouter_conformance.validate pydantic-ai` (install `schemarouter-conformance`
beside this adapter). This module forwards there, with a DeprecationWarning, until 0.2.
"""

from __future__ import annotations

import sys
from pathlib import Path

from schemarouter.adapter import MovedValidation
from schemarouter.evidence import EvidenceReport

__all__ = ["ARTIFACT_NAME", "main", "run_validation"]

ARTIFACT_NAME = "external-validation-pydantic-ai.json"
"""The evidence file the validation writes into its artifacts folder."""

_moved = MovedValidation(
    __name__,
    "pydantic-ai",
    "validate_pydantic_ai",
    {
        "ARTIFACT": ("ARTIFACT_NAME", lambda: Path("artifacts") / ARTIFACT_NAME),
        "failures": ("report.failures()", lambda: EvidenceReport.failures),
    },
)
run_validation = _moved.run_validation
main = _moved.main
__getattr__ = _moved.attribute

if __name__ == "__main__":
    sys.exit(main())
