"""The shared pieces of the standard tests: approval cases and how outcomes are worded."""

from __future__ import annotations

import pytest

from schemarouter_conformance import APPROVAL_CASES, DESTRUCTIVE_TOOLS, GUARDRAIL_TRIP_VALUE, CallReport
from schemarouter_conformance._expect import outcome, tripping  # pyright: ignore[reportPrivateUsage]


def test_every_approval_gated_tool_has_a_case() -> None:
    """The approval and guardrail tests call every tool the suite gates, not only the first."""
    assert [case.required_tools[0] for case in APPROVAL_CASES] == list(DESTRUCTIVE_TOOLS)


@pytest.mark.parametrize(
    ("report", "text"),
    [
        pytest.param(CallReport("add", "ran"), "'ran'", id="no-detail"),
        pytest.param(CallReport("add", "error", detail="boom"), "'error' (boom)", id="detail"),
    ],
)
def test_an_outcome_reads_cleanly_with_or_without_a_detail(report: CallReport, text: str) -> None:
    assert outcome(report) == text


def test_tripping_replaces_the_first_text_argument() -> None:
    case = APPROVAL_CASES[1]
    assert tripping(case) == {"invoice_id": GUARDRAIL_TRIP_VALUE}
