"""`AdapterConformanceSuite`: the standard tests every SchemaRouter adapter must pass.

Subclass it in your adapter's tests and point it at your driver:

    class TestMyAdapter(AdapterConformanceSuite):
        driver_factory = MyDriver

Each standard test builds scenarios against the bundled fixture MCP server (stdio, and
streamable HTTP on 127.0.0.1), computes what the adapter should do with the core
`Visibility` itself, asks the driver what the framework actually did, and reads the
fixture's call log to prove which tool bodies ran. The tests are synchronous and run
each driver interaction in a fresh asyncio event loop, so no async pytest plugin or
configuration is needed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from schemarouter import SchemaRouter

from ._boundary_tests import BoundaryTests
from ._conversation_tests import ConversationTests
from ._driver import AdapterDriver, DriverCapabilities
from ._find_tools_tests import FindToolsTests
from ._fixture import read_call_log, stdio_command
from ._guard import GUARD_TEST, STANDARD_TESTS, required_capabilities, weakened_standard_tests
from ._harness import ConformanceRun, FixtureEndpoint
from ._native_tests import NativeTests
from ._servers import http_fixture_server
from ._state_tests import StateTests
from ._visibility_tests import VisibilityTests
from .errors import ConformanceSetupError

__all__ = ["AdapterConformanceSuite"]

_SOURCE_NAME = "fixture"
_TRANSPORTS = ("stdio", "http")
_DRIVER_METHODS = ("build", "offered_tools", "call_tool", "resume", "native_tools", "validate", "close")


def _check_discovery_log(call_log: Path) -> None:
    calls = read_call_log(call_log)
    if calls:
        raise ConformanceSetupError(f"loading the fixture catalog ran tool bodies: {calls}")


def _over_http_only(suite: object, request: pytest.FixtureRequest, driver: AdapterDriver) -> bool:
    """Native-mode tests run over one transport: http, when the class and the driver run it."""
    return (
        "native_mode" in required_capabilities(request.function)
        and "http" in getattr(suite, "transports", ())
        and driver.capabilities.http_transport
    )


class AdapterConformanceSuite(
    VisibilityTests, BoundaryTests, FindToolsTests, ConversationTests, StateTests, NativeTests
):
    """Base class of an adapter's conformance tests. Configure it with class attributes.

    - `driver_factory` (required): a zero-argument callable returning your `AdapterDriver`
      (usually the driver class). Or override the `conformance_driver` fixture.
    - `transports`: fixture transports to run every transport-bound test over (the tests of
      a transport left out are still collected, and skipped with the reason). The native-mode
      tests run over http alone when it is among them, and over stdio otherwise.
    - `k`: the allow-set size of the suite's `Visibility`.
    - `scenario_options`: passed to the driver as `Scenario.options` (driver-specific knobs).
    - `concurrent_runs`: runs in flight at once in the concurrency test (at least 20).
    - `run_timeout`: seconds one test's driver interactions may take.
    - `known_failures`: `{"test_name": "why, in words"}`: strict expected failures.
    """

    driver_factory: ClassVar[Callable[[], AdapterDriver] | None] = None
    transports: ClassVar[tuple[str, ...]] = ("stdio", "http")
    k: ClassVar[int] = 3
    scenario_options: ClassVar[Mapping[str, Any]] = {}
    concurrent_runs: ClassVar[int] = 24
    run_timeout: ClassVar[float] = 90.0
    known_failures: ClassVar[Mapping[str, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for protected in (GUARD_TEST, "_conformance_policy"):
            if protected in cls.__dict__:
                raise ConformanceSetupError(f"{cls.__name__} must not override {protected}")

    # -- pytest wiring ----------------------------------------------------------------------

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """Run every transport-bound test once per transport (one server per class and transport).

        Both transports are always collected: a transport left out of `transports` shows as
        skipped, with the reason, instead of silently dropping its tests.
        """
        if "conformance_transport" in metafunc.fixturenames:
            unknown = set(self.transports) - set(_TRANSPORTS)
            if unknown or not self.transports:
                raise ConformanceSetupError(
                    f"transports must be a non-empty subset of {_TRANSPORTS}, got {self.transports}"
                )
            metafunc.parametrize("conformance_transport", list(_TRANSPORTS), scope="class")

    @pytest.fixture
    def conformance_driver(self) -> AdapterDriver:
        """The driver under test, built fresh for every test from `driver_factory`."""
        factory: Callable[[], AdapterDriver] | None = getattr(type(self), "driver_factory", None)
        if factory is None:
            raise ConformanceSetupError(
                f"{type(self).__name__} has no driver: set `driver_factory = YourDriver` on the class "
                "or override the `conformance_driver` fixture"
            )
        driver = factory()
        missing = [name for name in ("name", "capabilities", *_DRIVER_METHODS) if not hasattr(driver, name)]
        if missing:
            raise ConformanceSetupError(f"driver {type(driver).__name__} lacks {missing} (see AdapterDriver)")
        if not isinstance(driver.capabilities, DriverCapabilities):
            raise ConformanceSetupError("driver.capabilities must be a DriverCapabilities instance")
        return driver

    @pytest.fixture(autouse=True)
    def _conformance_policy(self, request: pytest.FixtureRequest, conformance_driver: AdapterDriver) -> None:
        """Apply capability skips (visible, with the reason) and declared known failures."""
        name = request.function.__name__
        needed = required_capabilities(request.function)
        for capability in needed:
            if capability == "native_mode" and not conformance_driver.capabilities.native_mode:
                pytest.skip(
                    f"driver {conformance_driver.name!r} has no native mode (capabilities.native_mode=()): "
                    f"{name} runs the adapter's prompt-cache-keeping mode"
                )
            if not getattr(conformance_driver.capabilities, capability):
                pytest.skip(
                    f"driver {conformance_driver.name!r} declares capabilities.{capability}=False; "
                    f"{name} needs it"
                )
        if "conversations" in needed and not hasattr(conformance_driver, "call_find_tools"):
            pytest.fail(
                f"driver {type(conformance_driver).__name__} has no call_find_tools, which {name} needs. "
                "Fix: implement conversation mode in the driver (docs/adapters.md, Conversations), or "
                "declare DriverCapabilities(conversations=False) to skip the conversation tests visibly"
            )
        if "native_mode" in needed and not hasattr(conformance_driver, "native_turn"):
            pytest.fail(
                f"driver {type(conformance_driver).__name__} declares capabilities.native_mode but has no "
                f"native_turn, which {name} needs. Fix: implement native_turn (docs/adapters.md, Native "
                "mode), or leave capabilities.native_mode empty to skip the native-mode tests visibly"
            )
        reason = type(self).known_failures.get(name) if name in STANDARD_TESTS else None
        if reason is not None:
            request.applymarker(pytest.mark.xfail(reason=f"known failure: {reason}", strict=True))

    @pytest.fixture(scope="class")
    @classmethod
    def conformance_endpoint(
        cls, conformance_transport: str, tmp_path_factory: pytest.TempPathFactory
    ) -> Iterator[FixtureEndpoint]:
        """The fixture server for this class and transport, and a router over its catalog."""
        workdir = tmp_path_factory.mktemp(f"fixture-{conformance_transport}")
        discovery_log = workdir / "discovery-calls.jsonl"
        if conformance_transport == "stdio":
            command, args = stdio_command(discovery_log)
            router = asyncio.run(SchemaRouter.from_stdio(command, args, name=_SOURCE_NAME))
            _check_discovery_log(discovery_log)
            yield FixtureEndpoint("stdio", router)
            return
        with http_fixture_server(discovery_log, workdir / "server-output.log") as url:
            router = asyncio.run(SchemaRouter.from_url(url, name=_SOURCE_NAME))
            _check_discovery_log(discovery_log)
            yield FixtureEndpoint("http", router, url=url, shared_call_log=discovery_log)

    @pytest.fixture
    def conformance(
        self,
        request: pytest.FixtureRequest,
        conformance_transport: str,
        conformance_driver: AdapterDriver,
        tmp_path: Path,
        caplog: pytest.LogCaptureFixture,
    ) -> ConformanceRun:
        """Everything one standard test needs; its call log starts empty."""
        name = request.function.__name__
        if conformance_transport not in self.transports:
            pytest.skip(
                f"{type(self).__name__}.transports = {tuple(self.transports)!r} leaves out "
                f"{conformance_transport}: {name}[{conformance_transport}] is not run"
            )
        if conformance_transport == "http" and not conformance_driver.capabilities.http_transport:
            pytest.skip(
                f"driver {conformance_driver.name!r} declares capabilities.http_transport=False; "
                f"{name}[http] needs it"
            )
        if conformance_transport == "stdio" and _over_http_only(self, request, conformance_driver):
            pytest.skip(
                f"{name} runs over http only: it tests what the model provider is sent, and tests 1 "
                "to 24 cover both fixture transports"
            )
        endpoint: FixtureEndpoint = request.getfixturevalue("conformance_endpoint")
        if endpoint.shared_call_log is not None:
            endpoint.shared_call_log.write_text("", encoding="utf-8")
            call_log = endpoint.shared_call_log
        else:
            call_log = tmp_path / "calls.jsonl"
        if self.concurrent_runs < 20:
            raise ConformanceSetupError("concurrent_runs must be at least 20")
        return ConformanceRun(
            conformance_driver,
            endpoint,
            call_log,
            k=self.k,
            options=self.scenario_options,
            caplog=caplog,
            run_timeout=self.run_timeout,
            concurrent_runs=self.concurrent_runs,
        )

    # -- the guard --------------------------------------------------------------------------

    def test_no_standard_test_weakened(self) -> None:
        """Proves no standard test was deleted or overridden without a reasoned known-failure marker.

        Fix a failure: remove the override, or declare it in `known_failures` (or decorate
        the override with `@known_failure(...)`) with a reason of a few words.
        """
        problems = weakened_standard_tests(type(self), AdapterConformanceSuite)
        assert not problems, "the standard tests were weakened:\n- " + "\n- ".join(problems)
