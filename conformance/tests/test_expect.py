"""The shared pieces of the standard tests: approval cases and how outcomes and failures are worded.

A failure lists a problem repeated across runs once, with its count (a broken adapter's whole
failure: `test_broken_drivers`)."""

from __future__ import annotations

import pytest

from schemarouter_conformance import APPROVAL_CASES, DESTRUCTIVE_TOOLS, GUARDRAIL_TRIP_VALUE, CallReport
from schemarouter_conformance._expect import (  # pyright: ignore[reportPrivateUsage]
    fail_if,
    outcome,
    summarised,
    tripping,
)


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


def test_a_repeated_line_is_listed_once_with_its_count() -> None:
    lines = ["a was offered [x]", "b was offered [y]", "a was offered [x]", "a was offered [x]"]
    assert summarised(lines) == "a was offered [x] (x3)\nb was offered [y]"
    assert summarised(["once"]) == "once"
    assert summarised([]) == ""


def test_fail_if_names_the_problems_once_between_headline_and_footer() -> None:
    fail_if([])  # no problem, no failure
    with pytest.raises(AssertionError) as raised:
        fail_if(["same"] * 24 + ["other"], "24 runs went wrong:", "look at the adapter")
    assert str(raised.value) == "24 runs went wrong:\nsame (x24)\nother\nlook at the adapter"
