"""What the standard tests share: picking scenario cases and wording failures."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

from schemarouter import AllowSet

from ._driver import CallReport
from ._harness import ConformanceRun
from ._scenarios import SUPPORTED_CASES, SupportedCase

__all__ = ["case_where", "mismatch", "not_run", "routed_in"]


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


def mismatch(query: str | None, offered: list[str], expected: Iterable[str]) -> str:
    want = list(expected)
    extra = sorted(set(offered) - set(want))
    missing = sorted(set(want) - set(offered))
    return f"request {query!r}: offered {offered}, expected the allow-set {want} (extra {extra}, missing {missing})"


def not_run(run: ConformanceRun, report: CallReport, why: str) -> None:
    calls = run.calls()
    assert not calls, (
        f"{why}, yet tool bodies ran: {calls} (call outcome {report.outcome!r}: {report.detail})"
    )
