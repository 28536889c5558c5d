"""A broken adapter's failures stay readable: a problem repeated across runs is listed once,
with its count, and the list is not printed a second time as an assertion's value."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from schemarouter_conformance._expect import fail_if, summarised  # pyright: ignore[reportPrivateUsage]

LEAKY = '''
from typing import ClassVar

from schemarouter import AllowSet
from schemarouter_conformance import AdapterConformanceSuite, ReferenceDriver


class _EverythingVisible:
    def __init__(self, names):
        self.names = tuple(names)

    def allow_set(self, query, principal=None):
        routes = tuple(f"fixture:{name}" for name in self.names)
        return AllowSet(query, principal, "", self.names, routes, False, "routed", ())


class LeakyDriver(ReferenceDriver):
    """An adapter that forgot to filter: every tool for every request."""

    name = "leaky"

    def agent_for(self, scenario, tools, outputs):
        agent = super().agent_for(scenario, tools, outputs)
        agent.visibility = _EverythingVisible([tool.name for tool in tools])
        return agent


class TestLeaky(AdapterConformanceSuite):
    driver_factory = LeakyDriver
    transports: ClassVar[tuple[str, ...]] = ("http",)
'''


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


def test_the_concurrency_failure_of_a_leaky_adapter_repeats_no_line(inner_run: Any) -> None:
    reports = inner_run({"test_leaky": LEAKY}, "-k", "test_context_isolation_concurrent")
    report = reports["test_context_isolation_concurrent"]
    assert report.failed
    message = report.longreprtext[report.longreprtext.index("AssertionError: ") :]
    lines = [line for line in message.splitlines() if "was offered" in line or "offered [" in line]
    assert lines, message
    repeated = {line: count for line, count in Counter(lines).items() if count > 1}
    assert not repeated, f"lines printed more than once: {repeated}"
    assert "concurrent runs saw another allow-set:" in message
    assert any(line.endswith(")") and " (x" in line for line in lines), message
    assert "assert not [" not in report.longreprtext, "the problem list is not printed twice"
