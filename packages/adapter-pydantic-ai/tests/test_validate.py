"""The validation's pass/fail gate (the artifact itself is checked by the conformance suite).

The bar itself (`EvidenceReport.failures()`) is tested in core; here, that `failures` applies it.
"""

from __future__ import annotations

from schemarouter.testing import passing_evidence_report
from schemarouter_pydantic_ai.validate import failures


def test_a_clean_report_passes() -> None:
    assert failures(passing_evidence_report()) == []


def test_a_shortfall_fails_with_the_core_bar() -> None:
    report = passing_evidence_report(unsupported_query_rejection=0.75, input_guardrail_preserved=False)
    assert failures(report) == report.failures()
    assert len(failures(report)) == 2
