"""What one suite test works with: the driver, the fixture server, the router and the call log.

Every driver method may be sync or async; the harness awaits what needs awaiting, checks
the types the driver returns and bounds every run in time, so a broken driver fails a
test with a readable message instead of hanging the suite.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Hashable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import pytest

from schemarouter import AllowSet, AllowSetProvider, RoutingSession, SchemaRouter, SessionLimits, Visibility
from schemarouter.visibility import FIND_TOOLS

from ._driver import (
    AdapterDriver,
    CallReport,
    FindToolsReport,
    FixtureSource,
    NativeDriver,
    NativeProvider,
    NativeTurnReport,
    OfferedTools,
    RunRequest,
    Scenario,
)
from ._fixture import DESTRUCTIVE_TOOLS, read_call_log, stdio_command
from ._scenarios import GUARDRAIL_TRIP_VALUE

__all__ = ["ConformanceRun", "FixtureEndpoint"]

Transport = Literal["stdio", "http"]


@dataclass(frozen=True, slots=True)
class FixtureEndpoint:
    """The fixture server as one suite class sees it (shared by the class's tests)."""

    transport: Transport
    router: SchemaRouter
    url: str | None = None
    shared_call_log: Path | None = None
    """HTTP only: the running server's call log, emptied before every test."""


async def _settle(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def _expect_type(value: Any, expected: type, method: str) -> None:
    if not isinstance(value, expected):
        pytest.fail(
            f"driver.{method}() returned {type(value).__name__}, expected {expected.__name__}. "
            "Fix: return the dataclass from schemarouter_conformance."
        )


class ConformanceRun:
    """Per-test access to the driver and the fixture, with the suite's expectations."""

    def __init__(
        self,
        driver: AdapterDriver,
        endpoint: FixtureEndpoint,
        call_log: Path,
        *,
        k: int,
        options: Mapping[str, Any],
        caplog: pytest.LogCaptureFixture,
        run_timeout: float,
        concurrent_runs: int = 24,
    ) -> None:
        self.driver = driver
        self.endpoint = endpoint
        self.router = endpoint.router
        self.call_log = call_log
        self.k = k
        self.options = options
        self.caplog = caplog
        self.run_timeout = run_timeout
        self.concurrent_runs = concurrent_runs
        if endpoint.transport == "stdio":
            command, args = stdio_command(call_log)
            self.source = FixtureSource("stdio", call_log, command=command, args=tuple(args))
        else:
            self.source = FixtureSource("http", call_log, url=endpoint.url)

    # -- expectations, computed by the suite itself -----------------------------------------

    @property
    def catalog_names(self) -> frozenset[str]:
        return frozenset(cap.name for cap in self.router.catalog)

    @property
    def listing_order(self) -> tuple[str, ...]:
        """The fixture's tool names in the order the server lists them."""
        return tuple(cap.name for cap in self.router.catalog)

    def visibility(
        self,
        *,
        blocked: Collection[str] | None = None,
        allowed: Collection[str] | None = None,
        always_visible: Collection[str] | None = None,
    ) -> Visibility:
        return Visibility(
            self.router, k=self.k, blocked=blocked, allowed=allowed, always_visible=always_visible
        )

    def scenario(
        self,
        visibility: AllowSetProvider | None = None,
        *,
        approval_required: Collection[str] = DESTRUCTIVE_TOOLS,
        conversations: SessionLimits | None = None,
        native: bool = False,
    ) -> Scenario:
        return Scenario(
            source=self.source,
            visibility=visibility if visibility is not None else self.visibility(),
            approval_required=frozenset(approval_required),
            guardrail_trip_value=GUARDRAIL_TRIP_VALUE,
            options=dict(self.options),
            conversations=conversations,
            native=native,
        )

    def expected(self, query: str, visibility: Visibility | None = None) -> AllowSet:
        return (visibility or self.visibility()).allow_set(query)

    def session(
        self,
        provider: AllowSetProvider | None = None,
        *,
        limits: SessionLimits | None = None,
        principal: Hashable | None = None,
    ) -> RoutingSession:
        """The suite's own `RoutingSession`, for what a conversation should be offered."""
        return RoutingSession(
            provider if provider is not None else self.visibility(),
            conversation_id="expected",
            principal=principal,
            limits=limits,
        )

    def calls(self) -> list[dict[str, object]]:
        return read_call_log(self.call_log)

    def routed(self, offered: OfferedTools) -> list[str]:
        """Offered names that are fixture tools (whatever else the framework adds is ignored)."""
        return [name for name in offered.names if name in self.catalog_names]

    def listed(self, offered: OfferedTools) -> tuple[str, ...]:
        """Offered names that are fixture tools or find-tools, in the order the model got them."""
        return tuple(name for name in offered.names if name in self.catalog_names or name == FIND_TOOLS.name)

    # -- running ----------------------------------------------------------------------------

    def run(self, body: Callable[[], Awaitable[None]], *, timeout: float | None = None) -> None:
        """Run one async test body in a fresh event loop, bounded by `run_timeout`."""
        limit = timeout or self.run_timeout

        async def bounded() -> None:
            scope: asyncio.Timeout | None = None
            try:
                async with asyncio.timeout(limit) as scope:
                    await body()
            except TimeoutError:
                if scope is None or not scope.expired():
                    raise
                pytest.fail(
                    f"the test did not finish within {limit:g} s: a driver call hangs "
                    "(an unanswered approval, a server that never starts, a model that loops?)"
                )

        asyncio.run(bounded())

    @asynccontextmanager
    async def agent(self, scenario: Scenario) -> AsyncIterator[Any]:
        """Build an agent for `scenario` and close it afterwards, whatever happens."""
        agent = await _settle(self.driver.build(scenario))
        try:
            yield agent
        finally:
            await _settle(self.driver.close(agent))

    async def offered(self, agent: Any, request: RunRequest) -> OfferedTools:
        offered = await _settle(self.driver.offered_tools(agent, request))
        _expect_type(offered, OfferedTools, "offered_tools")
        return offered

    async def call(
        self, agent: Any, request: RunRequest, tool: str, arguments: Mapping[str, Any]
    ) -> CallReport:
        report = await _settle(self.driver.call_tool(agent, request, tool, dict(arguments)))
        _expect_type(report, CallReport, "call_tool")
        return report

    async def resume(
        self, agent: Any, request: RunRequest, pending: CallReport, *, approve: bool
    ) -> CallReport:
        report = await _settle(self.driver.resume(agent, request, pending, approve=approve))
        _expect_type(report, CallReport, "resume")
        return report

    async def find(self, agent: Any, request: RunRequest, query: str) -> FindToolsReport:
        report = await _settle(self.driver.call_find_tools(agent, request, query))
        _expect_type(report, FindToolsReport, "call_find_tools")
        if not isinstance(report.offered_next, OfferedTools):  # pyright: ignore[reportUnnecessaryIsInstance]
            pytest.fail(
                f"driver.call_find_tools() reported offered_next as {type(report.offered_next).__name__}, "
                "expected OfferedTools (what the model was offered on the step after find-tools)"
            )
        return report

    async def native_turn(
        self, agent: Any, request: RunRequest, provider: NativeProvider
    ) -> NativeTurnReport:
        driver = cast("NativeDriver", self.driver)
        report = await _settle(driver.native_turn(agent, request, provider))
        _expect_type(report, NativeTurnReport, "native_turn")
        return report

    async def native(self, agent: Any, request: RunRequest) -> Sequence[Any]:
        return list(await _settle(self.driver.native_tools(agent, request)))

    def log_mark(self) -> int:
        """A position in the captured log; pass it to `routing_failure_seen`."""
        return len(self.caplog.records)

    def routing_failure_seen(self, offered: OfferedTools, since: int) -> str | None:
        """How the adapter made a routing failure visible, or None if it did not.

        Visible means `OfferedTools.failure` is set, or a WARNING (or worse) record from a
        logger whose name starts with `schemarouter` was emitted during the run.
        """
        if offered.failure:
            return f"OfferedTools.failure = {offered.failure!r}"
        for record in self.caplog.records[since:]:
            if record.name.startswith("schemarouter") and record.levelno >= logging.WARNING:
                return f"log record {record.name}:{record.levelname}: {record.getMessage()}"
        return None
