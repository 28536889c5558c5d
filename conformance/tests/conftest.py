"""Self-test helpers: inner pytest sessions (pytester) that run the suite against test drivers."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import pytest

# Imported once by the outer session: pytester drops the modules an inner session imported,
# and numpy (under schemarouter) cannot be loaded twice in one process.
import schemarouter  # noqa: F401  # pyright: ignore[reportUnusedImport]

pytest_plugins = ["pytester"]

InnerRun = Callable[..., dict[str, pytest.TestReport]]


@pytest.fixture
def inner_pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory whose inner sessions are configured like a third party's would be."""
    if importlib.util.find_spec("pytest_asyncio") is not None:
        pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester


def _setup_skip(report: pytest.TestReport) -> bool:
    return report.when == "setup" and report.skipped


@pytest.fixture
def inner_run(inner_pytester: pytest.Pytester) -> InnerRun:
    """`inner_run(modules, *pytest_args)`: write the modules, run pytest inline, return
    `{test name: report}` (the call report, or the setup report when setup did not pass).

    Per name, the first report of a parametrisation that was not skipped at setup wins; a
    setup skip is kept only when every parametrisation was skipped (e.g. a transport left out)."""

    def run(modules: dict[str, str], *args: str) -> dict[str, pytest.TestReport]:
        inner_pytester.makepyfile(**modules)
        recorder = inner_pytester.inline_run("-p", "no:cacheprovider", *args)
        reports: dict[str, pytest.TestReport] = {}
        for report in recorder.getreports("pytest_runtest_logreport"):
            if report.when == "call" or not report.passed:
                name = report.nodeid.split("::")[-1].split("[")[0]
                if name not in reports or (_setup_skip(reports[name]) and not _setup_skip(report)):
                    reports[name] = report
        return reports

    return run
