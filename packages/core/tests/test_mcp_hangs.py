"""A hung MCP server: a call or a connect fails with a typed timeout error soon after its
timeout, nothing runs twice, and a stdio server is gone afterwards (stopped, or killed when it
will not stop). Real servers (tests/servers/hang_server.py) over real stdio, and over
streamable HTTP on 127.0.0.1 for a server that never answers the session's closing DELETE.

The timeouts waited out are sub-second: a call's answer (`timeout`), a silent server's
connection, and closing an HTTP session (`close_grace`). Starting a server for each call gets
its own generous bound (`connect_timeout`), which a loaded test run may need and no test waits
out. Stopping a hung stdio server is the MCP SDK's: it waits up to 2 s for the server to exit
once its stdin closes and 2 s more after SIGTERM, then kills the process group (shielded, so no
caller can shorten it); the tests of servers that need SIGTERM or SIGKILL take those seconds.
A frozen HTTP server used to hold the caller up to 5 minutes more: the session's closing DELETE
got the HTTP client's read timeout. Closing is now bounded by `close_grace`, and the error that
ended the session is the one raised."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest

from schemarouter import (
    Catalog,
    ExecutionPolicy,
    McpSource,
    PlanRequest,
    SchemaRouter,
    ServerTimeoutError,
    ToolOutcomeUnknownError,
    ToolTransportError,
    UserError,
    execute_selective_plan,
)
from schemarouter_conformance import http_mcp_server

pytestmark = pytest.mark.slow

HANG_SERVER = str(Path(__file__).parent / "servers" / "hang_server.py")
TIMEOUT = 0.5
"""Seconds for an answer (a call's, a listing's, a silent server's to `initialize`)."""
START = 30.0
"""Seconds to start a server and initialise its session: a loaded test run slows it, and no
test waits it out (`connect_timeout` bounds it apart from `TIMEOUT`)."""
CLOSE_GRACE = 0.2
"""Seconds an HTTP session may take to close."""
SLACK = 2.5
"""How long past the timeout an HTTP failure may take: closing the session."""
STDIO_SLACK = 6.0
"""How long past the timeout a stdio failure may take: the SDK's 2 s + 2 s stop, and a loaded machine."""
POLICY = ExecutionPolicy(allow_unclassified_remote=True)


def logged_calls(call_log: Path) -> list[dict[str, Any]]:
    if not call_log.exists():
        return []
    return [json.loads(line) for line in call_log.read_text(encoding="utf-8").splitlines() if line]


def gone(pid: int) -> bool:
    """No process with this id (not even an unreaped one), and none left in its process group."""
    for probe in (os.kill, os.killpg):
        try:
            probe(pid, 0)
        except ProcessLookupError:
            continue
        return False
    return True


def server_gone(pid_file: Path) -> bool:
    """The server that was to write `pid_file` is gone. With sub-second timeouts it may have
    been stopped before it wrote it: then no process may name that file on its command line."""
    if pid_file.exists():
        return gone(int(pid_file.read_text(encoding="utf-8")))
    proc = Path("/proc")
    assert proc.is_dir(), "the server never wrote its pid, and this system has no /proc to look in"
    for cmdline in proc.glob("[0-9]*/cmdline"):
        try:
            if str(pid_file).encode() in cmdline.read_bytes():
                return False
        except OSError:  # the process ended while it was looked at
            continue
    return True


def hang_source(call_log: Path, *flags: str) -> McpSource:
    """The hang server over stdio, answering within `TIMEOUT` once started."""
    args = [HANG_SERVER, "--call-log", str(call_log), *flags]
    return McpSource.stdio(sys.executable, args, name="hang", timeout=TIMEOUT, connect_timeout=START)


@pytest.fixture(scope="module")
def hang_catalog() -> Catalog:
    """The hang server's tools, listed once for the module, with time to spare (a listing runs
    no tool; each call starts a server of its own)."""

    async def listed() -> Catalog:
        return (
            await SchemaRouter.from_stdio(sys.executable, [HANG_SERVER], name="hang", timeout=START)
        ).catalog

    return anyio.run(listed)


def hang_router(catalog: Catalog, call_log: Path, *flags: str) -> SchemaRouter:
    """A router over the hang server's tools, calling a server started with `flags`."""
    return SchemaRouter(catalog, sources=[hang_source(call_log, *flags)], execution=POLICY)


# -- stdio ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "flags"),
    [
        pytest.param("wait_forever", [], id="exits-when-stdin-closes"),
        pytest.param("block_forever", [], id="needs-sigterm"),
        pytest.param("block_forever", ["--ignore-sigterm"], id="needs-sigkill"),
        pytest.param("freeze_server", ["--ignore-sigterm"], id="frozen-needs-sigkill"),
    ],
)
async def test_a_hung_stdio_call_fails_soon_after_its_timeout_and_the_server_is_gone(
    tool: str, flags: list[str], call_log: Path, hang_catalog: Catalog
) -> None:
    router = hang_router(hang_catalog, call_log, *flags)
    with pytest.raises(ToolTransportError) as info:
        await router.ainvoke(PlanRequest("x", {"reason": "test"}, preferred_route=f"hang:{tool}"))
    failed = time.time()
    assert info.value.route == f"hang:{tool}"
    assert f"no answer within {TIMEOUT:g} s" in str(info.value)
    (call,) = logged_calls(call_log)
    assert call["tool"] == tool
    assert failed - call["started"] < TIMEOUT + STDIO_SLACK
    assert gone(call["pid"])


async def test_after_a_hung_call_no_fallback_runs_and_the_server_is_gone(
    call_log: Path, hang_catalog: Catalog
) -> None:
    """The hung tool may have done its work: running the fallback too could do it twice."""
    router = hang_router(hang_catalog, call_log, "--ignore-sigterm")
    request = PlanRequest("block forever or echo the reason", {"reason": "test"})
    retrieval = router.retrieve_executable(request, 4)
    plan = router.plan_executable(request, route="hang:block_forever", fallback_routes=["hang:echo_reason"])
    with pytest.raises(ToolOutcomeUnknownError) as info:
        await execute_selective_plan(router, retrieval, plan)
    assert info.value.route == "hang:block_forever"
    assert info.value.__notes__ == ["not tried, as the tool may have run: hang:echo_reason"]
    (hung,) = logged_calls(call_log)
    assert hung["tool"] == "block_forever"
    assert gone(hung["pid"])


@pytest.mark.parametrize(
    "flags",
    [pytest.param([], id="exits-when-stdin-closes"), pytest.param(["--ignore-sigterm"], id="needs-sigkill")],
)
async def test_a_server_that_never_answers_fails_discovery_soon_after_the_timeout(
    flags: list[str], tmp_path: Path
) -> None:
    pid_file = tmp_path / "server.pid"
    args = [HANG_SERVER, "--silent", "--pid-file", str(pid_file), *flags]
    started = time.monotonic()
    with pytest.raises(ServerTimeoutError, match=f"no answer within {TIMEOUT:g} s while connecting") as info:
        await SchemaRouter.from_stdio(sys.executable, args, name="silent", timeout=TIMEOUT)
    assert time.monotonic() - started < TIMEOUT + STDIO_SLACK
    assert "silent" in str(info.value)
    assert server_gone(pid_file)


async def test_a_call_to_a_server_that_never_answers_is_a_transport_error(
    call_log: Path, tmp_path: Path, hang_catalog: Catalog
) -> None:
    pid_file = tmp_path / "server.pid"
    silent = McpSource.stdio(
        sys.executable,
        [HANG_SERVER, "--silent", "--ignore-sigterm", "--pid-file", str(pid_file)],
        name="hang",
        timeout=TIMEOUT,
    )
    router = SchemaRouter(hang_catalog, sources=[silent], execution=POLICY)
    started = time.monotonic()
    with pytest.raises(ToolTransportError, match=f"no answer within {TIMEOUT:g} s while connecting") as info:
        await router.ainvoke(PlanRequest("x", {"reason": "test"}, preferred_route="hang:echo_reason"))
    assert time.monotonic() - started < TIMEOUT + STDIO_SLACK
    assert info.value.route == "hang:echo_reason"
    assert logged_calls(call_log) == []
    assert server_gone(pid_file)


async def test_a_slow_start_is_bounded_by_connect_timeout_and_answers_by_timeout(
    call_log: Path, hang_catalog: Catalog
) -> None:
    """`connect_timeout` bounds starting the server alone: a server slower to start than
    `timeout` still serves a call when given the time, and without it fails while connecting."""
    slow = [HANG_SERVER, "--call-log", str(call_log), "--slow-start", "1.5"]
    patient = McpSource.stdio(sys.executable, slow, name="hang", timeout=TIMEOUT, connect_timeout=START)
    router = SchemaRouter(hang_catalog, sources=[patient], execution=POLICY)
    result = await router.ainvoke(PlanRequest("x", {"reason": "test"}, preferred_route="hang:echo_reason"))
    assert result.route == "hang:echo_reason"
    hasty = McpSource.stdio(sys.executable, slow, name="hang", timeout=TIMEOUT)
    router = SchemaRouter(hang_catalog, sources=[hasty], execution=POLICY)
    with pytest.raises(ToolTransportError, match=f"no answer within {TIMEOUT:g} s while connecting"):
        await router.ainvoke(PlanRequest("x", {"reason": "test"}, preferred_route="hang:echo_reason"))
    assert [call["tool"] for call in logged_calls(call_log)] == ["echo_reason"]


@pytest.mark.parametrize("field", ["timeout", "connect_timeout", "close_grace"])
@pytest.mark.parametrize("seconds", [0.0, -1.0, float("nan")])
def test_seconds_that_are_not_positive_are_misuse(field: str, seconds: float) -> None:
    source = McpSource.stdio(sys.executable, [HANG_SERVER])
    with pytest.raises(UserError, match=f"{field} must be positive"):
        replace(source, **{field: seconds})


# -- streamable HTTP -----------------------------------------------------------------------------


def legacy_http_server(call_log: Path, *flags: str) -> AbstractContextManager[str]:
    """The hang server over streamable HTTP on a free loopback port, in the protocol era with
    stateful sessions (ended by a DELETE). It writes its pid next to `call_log` (`kill_frozen`)."""
    base = [sys.executable, HANG_SERVER, "--transport", "http", "--legacy", "--call-log", str(call_log)]
    pid_file = call_log.with_suffix(".pid")
    return http_mcp_server(lambda port: [*base, "--port", str(port), "--pid-file", str(pid_file), *flags])


def kill_frozen(call_log: Path) -> None:
    """Kill the frozen HTTP server now: its event loop is blocked, so it cannot act on the
    SIGTERM it gets when its context ends, which then waits 5 s before killing it."""
    os.kill(int(call_log.with_suffix(".pid").read_text(encoding="utf-8")), signal.SIGKILL)


@pytest.mark.parametrize(
    "headers",
    [pytest.param(None, id="sdk-http-client"), pytest.param({"X-Tenant": "t-1"}, id="own-http-client")],
)
async def test_a_frozen_http_server_fails_a_call_soon_after_its_timeout(
    headers: dict[str, str] | None, call_log: Path
) -> None:
    with legacy_http_server(call_log) as url:
        listed = await SchemaRouter.from_url(url, name="hang", headers=headers, timeout=START)
        source = McpSource.http(
            url, name="hang", headers=headers, timeout=TIMEOUT, connect_timeout=START, close_grace=CLOSE_GRACE
        )
        router = SchemaRouter(listed.catalog, sources=[source], execution=POLICY)
        # Without a bound on closing, the unanswered DELETE held the caller for up to 5 minutes.
        with anyio.fail_after(TIMEOUT + SLACK + 10), pytest.raises(ToolTransportError) as info:
            await router.ainvoke(PlanRequest("x", {"reason": "test"}, preferred_route="hang:freeze_server"))
        failed = time.time()
        kill_frozen(call_log)
    assert info.value.route == "hang:freeze_server"
    (call,) = logged_calls(call_log)
    assert call["tool"] == "freeze_server"
    assert failed - call["started"] < TIMEOUT + SLACK


async def test_discovery_from_a_server_that_freezes_while_listing_fails_with_a_timeout(
    call_log: Path,
) -> None:
    """The session's close runs out of time here too; the listing's timeout must still be the
    error raised (it was the one that ended the session), not be lost with the close."""
    with legacy_http_server(call_log, "--freeze-listing") as url:
        started = time.monotonic()
        frozen = McpSource.http(
            url, name="frozen", timeout=TIMEOUT, connect_timeout=START, close_grace=CLOSE_GRACE
        )
        with anyio.fail_after(TIMEOUT + SLACK + 10), pytest.raises(ServerTimeoutError) as info:
            await SchemaRouter.from_sources(frozen)
        assert time.monotonic() - started < TIMEOUT + SLACK
        kill_frozen(call_log)
    assert "frozen" in str(info.value)
    assert logged_calls(call_log) == []
