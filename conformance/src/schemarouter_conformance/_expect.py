"""What the standard tests share: picking scenario cases and wording failures."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

from schemarouter import AllowSet

from ._driver import CallReport
from ._harness import ConformanceRun
from ._scenarios import APPROVAL_CASES, GUARDRAIL_TRIP_VALUE, SUPPORTED_CASES, SupportedCase

__all__ = ["case_where", "gated_cases", "mismatch", "not_run", "outcome", "routed_in", "tripping"]


def case_where(
    run: ConformanceRun, wanted: Callable[[SupportedCase, AllowSet], bool], what: str
) -> SupportedCase:
    for case in SUPPORTED_CASES:
        if wanted(case, run.expected(case.query)):
            return case
    pytest.fail(f"suite precondition: no supported case has {what} at k={run.k} (a core routing change?)")


def routed_in(tools: Iterable[str]) -> Callable[[SupportedCase, AllowSet], bool]:
    pool = frozenset(tools)
    return lambda case, allow: case.required_tools[0] in pool and case.required_tools[0] in allow.names


def gated_cases(run: ConformanceRun) -> tuple[SupportedCase, ...]:
    """`APPROVAL_CASES`: one request per approval-gated tool, each routing its tool in."""
    for case in APPROVAL_CASES:
        if case.required_tools[0] not in run.expected(case.query).names:
            pytest.fail(
                f"suite precondition: {case.query!r} does not route {case.required_tools[0]} in at "
                f"k={run.k} (a core routing change?)"
            )
    return APPROVAL_CASES


def tripping(case: SupportedCase) -> dict[str, object]:
    """The case's arguments with its first text argument replaced by the guardrail trip value."""
    text_arg = next(name for name, value in case.arguments.items() if isinstance(value, str))
    return {**case.arguments, text_arg: GUARDRAIL_TRIP_VALUE}


def outcome(report: CallReport) -> str:
    """A call's outcome for a message: `'ran'`, or `'error' (what went wrong)` when there is a detail."""
    return f"{report.outcome!r} ({report.detail})" if report.detail else repr(report.outcome)


def mismatch(query: str | None, offered: list[str], expected: Iterable[str]) -> str:
    want = list(expected)
    extra = sorted(set(offered) - set(want))
    missing = sorted(set(want) - set(offered))
    return f"request {query!r}: offered {offered}, expected the allow-set {want} (extra {extra}, missing {missing})"


def not_run(run: ConformanceRun, report: CallReport, why: str) -> None:
    calls = run.calls()
    assert not calls, f"{why}, yet tool bodies ran: {calls} (call outcome {outcome(report)})"
