"""Discovery against hostile and badly behaved MCP servers is bounded, prompt and clear: a
compressed answer that decodes to gigabytes, a server that pages slowly, a tool nested deeper
than the MCP SDK parses, a server that writes other things to stdout, an HTTP endpoint that
is not MCP. Real servers (`tests/servers/hostile_server.py`, one misbehaviour per flag) over
real stdio and streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import sys
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest

from schemarouter import (
    CatalogLimits,
    McpSource,
    ServerConnectionError,
    ServerProtocolError,
    ServerTimeoutError,
    UserError,
)
from schemarouter.cli import main
from schemarouter_conformance import http_mcp_server

pytestmark = pytest.mark.slow

HOSTILE = str(Path(__file__).parent / "servers" / "hostile_server.py")
TIMEOUT = 20.0
PROMPT = 8.0
"""Seconds a failure that does not wait for the timeout may take (starting a server included)."""
STDIO_SLACK = 6.0
"""Seconds past its timeout a stdio failure may take: the MCP SDK's 2 s + 2 s stop, a loaded machine."""
HTTP_SLACK = 3.0


@contextmanager
def hostile(transport: str, *flags: str, timeout: float = TIMEOUT) -> Iterator[McpSource]:
    """The hostile server started with `flags`, as a source named `h` over `transport`."""
    command = [sys.executable, HOSTILE, *flags]
    if transport == "stdio":
        yield McpSource.stdio(command[0], command[1:], name="h", timeout=timeout)
        return
    with http_mcp_server(lambda port: [*command, "--transport", "http", "--port", str(port)]) as url:
        yield McpSource.http(url, name="h", timeout=timeout)


def requests(log: Path) -> list[str]:
    """The methods of the JSON-RPC requests the server logged, in order."""
    if not log.exists():
        return []
    return [json.loads(line)["method"] for line in log.read_text(encoding="utf-8").splitlines()]


def sdk_tracebacks(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("mcp.") and r.levelno >= logging.ERROR]


# -- a compressed answer that decodes to far more than it sends ----------------------------------


@pytest.mark.parametrize("flags", [pytest.param([], id="json"), pytest.param(["--sse"], id="event-stream")])
async def test_a_gzip_bomb_stops_at_the_listing_byte_limit_while_it_is_read(flags: list[str]) -> None:
    """64 MiB decoded from about 64 KB on the wire: the read stops past 1 MiB, and no more than
    a few MiB are ever held (the whole answer was decoded, then judged)."""
    with hostile("http", "--gzip-bomb", "64", *flags) as source:
        tracemalloc.start()
        try:
            started = time.monotonic()
            with pytest.raises(ServerProtocolError) as info:
                await source.load(CatalogLimits(max_listing_bytes=1024 * 1024))
            elapsed = time.monotonic() - started
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert "CatalogLimits.max_listing_bytes" in info.value.detail
    assert "1,048,576 bytes" in info.value.detail
    assert info.value.server == source.label
    assert peak < 16 * 1024 * 1024
    assert elapsed < PROMPT


async def test_a_gzip_bomb_is_stopped_by_the_default_limit() -> None:
    with (
        hostile("http", "--gzip-bomb", "48") as source,
        pytest.raises(ServerProtocolError, match="max_listing_bytes"),
    ):
        await source.load()
    assert CatalogLimits().max_listing_bytes == 32 * 1024 * 1024


async def test_a_compressed_listing_under_the_limit_loads() -> None:
    with hostile("http", "--gzip-bomb", "2") as source:
        catalog = await source.load(CatalogLimits(max_listing_bytes=4 * 1024 * 1024))
    assert catalog.routes == ("h:tool_0", "h:tool_1", "h:tool_2")
    assert [(s.name, s.reason) for s in catalog.skipped] == [("bomb", "description_too_large")]


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_listing_byte_limit_counts_every_page_together(transport: str) -> None:
    """30 pages of one tool, 150 to 200 bytes each: 2,000 bytes are passed within the listing."""
    with hostile(transport, "--tools", "30", "--page", "1") as source:
        with pytest.raises(ServerProtocolError, match="max_listing_bytes"):
            await source.load(CatalogLimits(max_listing_bytes=2_000))
        assert len(await source.load(CatalogLimits(max_listing_bytes=8_000))) == 30


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "32"])
def test_the_listing_byte_limit_must_be_a_positive_integer(value: object) -> None:
    with pytest.raises(UserError, match="max_listing_bytes"):
        CatalogLimits(max_listing_bytes=value)  # type: ignore[arg-type]


# -- one deadline for the whole listing ----------------------------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_timeout_bounds_the_whole_listing_not_each_page(transport: str, tmp_path: Path) -> None:
    """Ten pages, each answered after 0.8 s: every page within a 3 s timeout, the listing not
    (it took ten pages times the delay, and up to 100 pages times the timeout)."""
    log = tmp_path / "requests.jsonl"
    flags = ["--tools", "10", "--page", "1", "--page-delay", "0.8", "--request-log", str(log)]
    with hostile(transport, *flags, timeout=3.0) as source:
        started = time.monotonic()
        with pytest.raises(ServerTimeoutError) as info:
            await source.load()
        elapsed = time.monotonic() - started
    assert elapsed < 3.0 + (STDIO_SLACK if transport == "stdio" else HTTP_SLACK)
    assert "within 3 s" in info.value.detail
    assert requests(log).count("tools/list") < 10


async def test_find_tool_reads_only_up_to_the_page_that_lists_it(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with hostile("stdio", "--tools", "30", "--page", "2", "--request-log", str(log)) as source:
        async with source.connect() as client:
            found = await source.find_tool(client, "tool_5")
            missing = await source.find_tool(client, "no_such_tool")
    assert found is not None
    assert found.name == "tool_5"
    assert found.description == "Tool number 5 of a hostile listing"
    assert missing is None
    assert requests(log).count("tools/list") == 3 + 15


async def test_find_tool_stops_at_its_deadline(tmp_path: Path) -> None:
    with hostile("stdio", "--tools", "10", "--page", "1", "--page-delay", "0.5") as source:
        async with source.connect() as client:
            started = time.monotonic()
            with pytest.raises(ServerTimeoutError, match="did not end within"):
                await source.find_tool(client, "tool_9", deadline=anyio.current_time() + 1.2)
            assert time.monotonic() - started < 1.2 + 1.0


# -- a tool nested deeper than the MCP SDK parses ------------------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_tool_too_deep_for_the_mcp_sdk_is_skipped_promptly(transport: str) -> None:
    """150 levels of objects (300 of JSON) are past the SDK's parser, which dropped the whole
    answer: the caller waited out the timeout. Read by Python's own parser, the deep tool is
    skipped with its reason and the others load."""
    with hostile(transport, "--deep-tool", "150") as source:
        started = time.monotonic()
        catalog = await source.load()
    assert time.monotonic() - started < PROMPT
    assert catalog.routes == ("h:tool_0", "h:tool_1", "h:tool_2")
    [skipped] = catalog.skipped
    assert skipped.name == "deep"
    assert "nested too deeply" in skipped.detail


@pytest.mark.parametrize(
    ("transport", "flags"),
    [
        pytest.param("stdio", [], id="stdio"),
        pytest.param("http", [], id="http"),
        pytest.param("http", ["--sse"], id="http-event-stream"),
    ],
)
async def test_an_answer_too_deep_to_read_at_all_is_a_prompt_protocol_error(
    transport: str, flags: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    with hostile(transport, "--deep-tool", "700", *flags) as source:
        started = time.monotonic()
        with pytest.raises(ServerProtocolError) as info:
            await source.load()
    assert time.monotonic() - started < PROMPT
    assert info.value.detail == "page 1 of tools/list could not be read: it is nested too deeply to read"
    assert sdk_tracebacks(caplog) == []


# -- what a stdio server writes to stdout that is not MCP ----------------------------------------


async def test_lines_that_are_not_mcp_are_one_warning_with_their_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO), hostile("stdio", "--stdout-noise", "2000") as source:
        catalog = await source.load()
    assert len(catalog) == 3
    assert sdk_tracebacks(caplog) == []
    [warning] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert warning.name == "schemarouter.mcp"
    assert "2,000 lines to stdout that are not MCP messages" in warning.getMessage()
    assert "Starting the hostile server..." in warning.getMessage()


async def test_a_server_that_only_writes_other_things_times_out_saying_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Like `yes`: lines that are not MCP, forever, and no answer."""
    with hostile("stdio", "--stdout-noise", "-1", timeout=2.0) as source:
        started = time.monotonic()
        with pytest.raises(ServerTimeoutError) as info:
            await source.load()
    assert time.monotonic() - started < 2.0 + STDIO_SLACK
    assert "no answer within 2 s while connecting" in info.value.detail
    assert "lines to stdout that are not MCP messages" in info.value.detail
    assert sdk_tracebacks(caplog) == []
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_server_that_prints_a_banner_and_exits_is_one_clean_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = f"{sys.executable} -c \"print('hi')\""
    assert main(["catalog", "--stdio", server, "--name", "banner", "--timeout", "10"]) == 1
    _, err = capsys.readouterr()
    assert "Traceback" not in err
    assert "pydantic" not in err
    [line] = err.strip().splitlines()
    assert "the server went away" in line
    assert "the server wrote a line to stdout that is not an MCP message: 'hi'" in line


async def test_a_banner_before_exit_is_named_in_the_connection_error() -> None:
    source = McpSource.stdio(sys.executable, ["-c", "print('hi')"], name="banner", timeout=10)
    with pytest.raises(ServerConnectionError) as info:
        await source.load()
    assert info.value.detail == (
        "the server went away: the connection closed; "
        "the server wrote a line to stdout that is not an MCP message: 'hi'"
    )


# -- each phase logged; an HTTP endpoint that is not MCP -----------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_each_phase_of_discovery_is_logged(transport: str, caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.INFO, logger="schemarouter.mcp"),
        hostile(transport, "--page", "2") as source,
    ):
        await source.load()
    lines = [r.getMessage() for r in caplog.records if r.name == "schemarouter.mcp"]
    first = "starting" if transport == "stdio" else "connecting"
    assert [line.removeprefix(source.label + ": ").split(" ")[0] for line in lines] == [
        first,
        "initialised",
        "listed",
    ]
    assert "hostile-server 6.6.6, protocol 2025-11-25" in lines[1]
    assert "listed 3 tools in 2 pages in" in lines[2]


async def test_a_server_that_never_answers_says_it_is_starting(caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.INFO, logger="schemarouter.mcp"),
        hostile("stdio", "--silent", timeout=1.5) as source,
        pytest.raises(ServerTimeoutError, match="while connecting"),
    ):
        await source.load()
    assert [r.getMessage() for r in caplog.records if r.name == "schemarouter.mcp"] == [
        f"{source.label}: starting"
    ]


@pytest.mark.parametrize(
    ("status", "detail"),
    [
        pytest.param("404", "HTTP 404 Not Found: not an MCP endpoint", id="404"),
        pytest.param("405", "HTTP 405 Method Not Allowed: not an MCP endpoint", id="405"),
        pytest.param("200", "HTTP 200 OK with content type text/html: not an MCP endpoint", id="web-page"),
        pytest.param("500", "HTTP 500 Internal Server Error: the server failed while connecting", id="500"),
    ],
)
async def test_an_http_endpoint_that_is_not_mcp_reports_its_status_promptly(
    status: str, detail: str, caplog: pytest.LogCaptureFixture
) -> None:
    with hostile("http", "--http-status", status) as source:
        started = time.monotonic()
        with pytest.raises(ServerProtocolError) as info:
            await source.load()
    assert time.monotonic() - started < PROMPT
    assert info.value.detail == detail
    assert info.value.server == source.label
    assert sdk_tracebacks(caplog) == []


def test_a_request_timeout_from_the_mcp_client_is_a_timeout_error() -> None:
    from mcp import MCPError
    from mcp.types import REQUEST_TIMEOUT

    from schemarouter.catalog._mcp import translate_error

    error = translate_error("s", MCPError(REQUEST_TIMEOUT, "Request 'tools/list' timed out"), 3.0)
    assert isinstance(error, ServerTimeoutError)
    assert error.detail == "no answer within 3 s"
