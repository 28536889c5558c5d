"""What the standard tests share: picking scenario cases and wording failures.

A failure lists each problem once: a broken adapter tends to get the same thing wrong for every
run (24 concurrent runs offered the same wrong tools), and a line repeated is shown once with
its count, `(x24)`, so the report stays readable.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence

import pytest

from schemarouter import AllowSet

from ._driver import CallReport, FindToolsReport
from ._harness import ConformanceRun
from ._scenarios import APPROVAL_CASES, GUARDRAIL_TRIP_VALUE, SUPPORTED_CASES, SupportedCase

__all__ = [
    "case_where",
    "conversation_fix",
    "difference",
    "fail_if",
    "gated_cases",
    "in_words",
    "mismatch",
    "not_run",
    "outcome",
    "routed_in",
    "summarised",
    "tripping",
]


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


def outcome(report: CallReport | FindToolsReport) -> str:
    """A call's (or a find-tools call's) outcome for a message: `'ran'`, or `'error' (what went
    wrong)` when there is a detail."""
    return f"{report.outcome!r} ({report.detail})" if report.detail else repr(report.outcome)


def in_words(tool: str) -> str:
    """What a model would ask find-tools for to get `tool`: its name in words."""
    return tool.replace("_", " ")


def difference(offered: Collection[str], expected: Collection[str]) -> str:
    """`extra [...], missing [...]`: how two lists of tool names differ, as sets."""
    extra = sorted(set(offered) - set(expected))
    missing = sorted(set(expected) - set(offered))
    return f"extra {extra}, missing {missing}"


def conversation_fix(how: str) -> str:
    """The footer of a conversation test's failure: how to fix it, and the mode it runs in."""
    return (
        f"Fix: {how}. With `Scenario.conversations` set, build the agent in conversation mode (your "
        "adapter's `sessions=` argument) and run each request in `RunRequest.conversation`."
    )


def mismatch(query: str | None, offered: list[str], expected: Iterable[str]) -> str:
    want = list(expected)
    return (
        f"request {query!r}: offered {offered}, expected the allow-set {want} ({difference(offered, want)})"
    )


def summarised(lines: Iterable[str]) -> str:
    """The lines, each once, in the order first seen; one that came more than once ends in
    `(xN)`, N its count."""
    counts = Counter(lines)
    return "\n".join(line if count == 1 else f"{line} (x{count})" for line, count in counts.items())


def fail_if(problems: Sequence[str], headline: str = "", footer: str = "") -> None:
    """Fail the test when there are problems: the headline, the problems summarised (a repeated
    line once, with its count), then the footer. Raised as it stands, so that pytest does not
    print the list of problems a second time, unsummarised, as the failed assertion's value."""
    __tracebackhide__ = True
    if problems:
        text = "\n".join(part for part in (headline, summarised(problems), footer) if part)
        raise AssertionError(text)


def not_run(run: ConformanceRun, report: CallReport, why: str) -> None:
    calls = run.calls()
    assert not calls, f"{why}, yet tool bodies ran: {calls} (call outcome {outcome(report)})"
