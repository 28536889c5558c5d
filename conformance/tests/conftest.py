"""Self-test helpers: inner pytest sessions (pytester) that run the suite against test drivers."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import pytest

pytest_plugins = ["pytester"]

InnerRun = Callable[..., dict[str, pytest.TestReport]]


@pytest.fixture
def inner_pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory whose inner sessions are configured like a third party's would be."""
    if importlib.util.find_spec("pytest_asyncio") is not None:
        pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester


@pytest.fixture
def inner_run(inner_pytester: pytest.Pytester) -> InnerRun:
    """`inner_run(modules, *pytest_args)`: write the modules, run pytest inline, return
    `{test name: report}` (the call report, or the setup report when setup did not pass)."""

    def run(modules: dict[str, str], *args: str) -> dict[str, pytest.TestReport]:
        inner_pytester.makepyfile(**modules)
        recorder = inner_pytester.inline_run("-p", "no:cacheprovider", *args)
        reports: dict[str, pytest.TestReport] = {}
        for report in recorder.getreports("pytest_runtest_logreport"):
            if report.when == "call" or not report.passed:
                reports.setdefault(report.nodeid.split("::")[-1].split("[")[0], report)
        return reports

    return run
