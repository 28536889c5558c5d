"""A hung MCP server: a call or a connect fails with a typed timeout error soon after its
timeout, nothing runs twice, and a stdio server is gone afterwards (stopped, or killed when it
will not stop). Real servers (tests/servers/hang_server.py) over real stdio, and over
streamable HTTP on 127.0.0.1 for a server that never answers the session's closing DELETE.

Stopping a hung stdio server is the MCP SDK's: it waits up to 2 s for the server to exit once
its stdin closes and 2 s more after SIGTERM, then kills the process group (shielded, so no
caller can shorten it). A frozen HTTP server used to hold the caller up to 5 minutes more: the
session's closing DELETE got the HTTP client's read timeout. Closing is now bounded by
`CLOSE_GRACE`, and the error that ended the session is the one raised."""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import anyio
import pytest

from schemarouter import (
    ExecutionPolicy,
    McpSource,
    PlanRequest,
    SchemaRouter,
    ServerTimeoutError,
    ToolOutcomeUnknownError,
    ToolTransportError,
    execute_selective_plan,
)
from schemarouter_conformance import http_mcp_server

pytestmark = pytest.mark.slow

HANG_SERVER = str(Path(__file__).parent / "servers" / "hang_server.py")
TIMEOUT = 4.0
"""For calls: it also bounds starting the server for each call, which a loaded test run slows."""
CONNECT_TIMEOUT = 2.0
"""For servers that never answer: starting them is not in the way."""
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


async def hang_router(call_log: Path, *flags: str, timeout: float = TIMEOUT) -> SchemaRouter:
    args = [HANG_SERVER, "--call-log", str(call_log), *flags]
    return await SchemaRouter.from_stdio(sys.executable, args, name="hang", timeout=timeout, policy=POLICY)


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
    tool: str, flags: list[str], call_log: Path
) -> None:
    router = await hang_router(call_log, *flags)
    with pytest.raises(ToolTransportError) as info:
        await router.ainvoke(PlanRequest("x", {"reason": "test"}, preferred_route=f"hang:{tool}"))
    failed = time.time()
    assert info.value.route == f"hang:{tool}"
    assert f"no answer within {TIMEOUT:g} s" in str(info.value)
    (call,) = logged_calls(call_log)
    assert call["tool"] == tool
    assert failed - call["started"] < TIMEOUT + STDIO_SLACK
    assert gone(call["pid"])


async def test_after_a_hung_call_no_fallback_runs_and_the_server_is_gone(call_log: Path) -> None:
    """The hung tool may have done its work: running the fallback too could do it twice."""
    router = await hang_router(call_log, "--ignore-sigterm")
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
    with pytest.raises(ServerTimeoutError, match="while connecting") as info:
        await SchemaRouter.from_stdio(sys.executable, args, name="silent", timeout=CONNECT_TIMEOUT)
    assert time.monotonic() - started < CONNECT_TIMEOUT + STDIO_SLACK
    assert "silent" in str(info.value)
    assert gone(int(pid_file.read_text(encoding="utf-8")))


async def test_a_call_to_a_server_that_never_answers_is_a_transport_error(
    call_log: Path, tmp_path: Path
) -> None:
    listed = await hang_router(call_log)
    pid_file = tmp_path / "server.pid"
    silent = McpSource.stdio(
        sys.executable,
        [HANG_SERVER, "--silent", "--ignore-sigterm", "--pid-file", str(pid_file)],
        name="hang",
        timeout=CONNECT_TIMEOUT,
    )
    router = SchemaRouter(listed.catalog, sources=[silent], policy=POLICY)
    started = time.monotonic()
    with pytest.raises(ToolTransportError, match="while connecting") as info:
        await router.ainvoke(PlanRequest("x", {"reason": "test"}, preferred_route="hang:echo_reason"))
    assert time.monotonic() - started < CONNECT_TIMEOUT + STDIO_SLACK
    assert info.value.route == "hang:echo_reason"
    assert logged_calls(call_log) == []
    assert gone(int(pid_file.read_text(encoding="utf-8")))


# -- streamable HTTP -----------------------------------------------------------------------------


def legacy_http_server(call_log: Path, *flags: str) -> AbstractContextManager[str]:
    """The hang server over streamable HTTP on a free loopback port, in the protocol era with
    stateful sessions (ended by a DELETE). Once frozen it ignores SIGTERM and is killed."""
    base = [sys.executable, HANG_SERVER, "--transport", "http", "--legacy", "--call-log", str(call_log)]
    return http_mcp_server(lambda port: [*base, "--port", str(port), *flags])


@pytest.mark.parametrize(
    "headers",
    [pytest.param(None, id="sdk-http-client"), pytest.param({"X-Tenant": "t-1"}, id="own-http-client")],
)
async def test_a_frozen_http_server_fails_a_call_soon_after_its_timeout(
    headers: dict[str, str] | None, call_log: Path
) -> None:
    with legacy_http_server(call_log) as url:
        router = await SchemaRouter.from_url(
            url, name="hang", headers=headers, timeout=TIMEOUT, policy=POLICY
        )
        # Without a bound on closing, the unanswered DELETE held the caller for up to 5 minutes.
        with anyio.fail_after(TIMEOUT + SLACK + 10), pytest.raises(ToolTransportError) as info:
            await router.ainvoke(PlanRequest("x", {"reason": "test"}, preferred_route="hang:freeze_server"))
        failed = time.time()
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
        with anyio.fail_after(TIMEOUT + SLACK + 10), pytest.raises(ServerTimeoutError) as info:
            await SchemaRouter.from_url(url, name="frozen", timeout=TIMEOUT)
        assert time.monotonic() - started < TIMEOUT + SLACK
    assert "frozen" in str(info.value)
    assert logged_calls(call_log) == []
