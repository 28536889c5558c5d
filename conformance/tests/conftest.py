"""Self-test helpers: inner pytest sessions (pytester) that run the suite against test drivers."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator

import pytest

# Imported once by the outer session: pytester drops the modules an inner session imported,
# and numpy (under schemarouter) cannot be loaded twice in one process.
import schemarouter  # noqa: F401  # pyright: ignore[reportUnusedImport]
from schemarouter_conformance import http_fixture_server

pytest_plugins = ["pytester"]

InnerRun = Callable[..., dict[str, pytest.TestReport]]

_URL_ENV = "SCHEMAROUTER_SHARED_FIXTURE_URL"
_LOG_ENV = "SCHEMAROUTER_SHARED_FIXTURE_LOG"

SHARED_ENDPOINT = f'''
"""`SharedServerEndpoint`: put it first among a suite class's bases to run the class's http
tests against the outer test module's fixture server (`shared_fixture_server`)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from schemarouter import SchemaRouter
from schemarouter_conformance import FixtureEndpoint, read_call_log


class SharedServerEndpoint:
    @pytest.fixture(scope="class")
    @classmethod
    def conformance_endpoint(cls, conformance_transport, tmp_path_factory):
        """The outer module's HTTP fixture server, and a router over its catalog, discovered
        here with the call log emptied first, as the suite's own endpoint does."""
        assert conformance_transport == "http", "the shared server is an http one"
        url, log = os.environ["{_URL_ENV}"], Path(os.environ["{_LOG_ENV}"])
        log.write_text("", encoding="utf-8")
        router = asyncio.run(SchemaRouter.from_url(url, name="fixture"))
        assert read_call_log(log) == [], "discovery ran a tool body"
        return FixtureEndpoint("http", router, url=url, shared_call_log=log)
'''
"""An inner-session module (`shared_endpoint`, written by `inner_pytester`)."""


@pytest.fixture(scope="module")
def shared_fixture_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One HTTP fixture server for every inner session of a test module whose suite classes
    take `shared_endpoint.SharedServerEndpoint` as a base. The server's tools only read, and
    each inner session empties its call log before it starts, so nothing carries over."""
    workdir = tmp_path_factory.mktemp("shared-fixture-server")
    log = workdir / "calls.jsonl"
    with http_fixture_server(log, workdir / "server.log") as url, pytest.MonkeyPatch.context() as env:
        env.setenv(_URL_ENV, url)
        env.setenv(_LOG_ENV, os.fspath(log))
        yield


@pytest.fixture
def inner_pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory whose inner sessions are configured like a third party's would be."""
    if importlib.util.find_spec("pytest_asyncio") is not None:
        pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(shared_endpoint=SHARED_ENDPOINT)
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
