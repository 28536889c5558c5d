"""Deprecated: the external validation moved to the conformance package, with the drivers.

Run `python -m schemarouter_conformance.validate openai-agents` (install `schemarouter-conformance`
beside this adapter). This module forwards there, with a DeprecationWarning, until 0.2.
"""

from __future__ import annotations

import sys

from schemarouter.adapter import MovedValidation
from schemarouter.evidence import EvidenceReport

__all__ = ["ARTIFACT_NAME", "main", "run_validation"]

ARTIFACT_NAME = "external-validation-openai-agents.json"
"""The evidence file the validation writes into its artifacts folder."""

_moved = MovedValidation(
    __name__,
    "openai-agents",
    "validate_openai_agents",
    {
        "failed_checks": ("report.failures()", lambda: EvidenceReport.failures),
    },
)
run_validation = _moved.run_validation
main = _moved.main
__getattr__ = _moved.attribute

if __name__ == "__main__":
    sys.exit(main())
