"""Discovery from real MCP servers over stdio and streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from schemarouter import (
    CatalogLimits,
    McpSource,
    SchemaRouter,
    ServerConnectionError,
    ServerTimeoutError,
    UserError,
)
from schemarouter_conformance import DESTRUCTIVE_TOOLS, FIXTURE_TOOL_NAMES, read_call_log, stdio_command


async def test_stdio_discovery_loads_the_fixture_catalog(call_log: Path) -> None:
    command, args = stdio_command(call_log)
    router = await SchemaRouter.from_stdio(command, args, name="fixture")
    catalog = router.catalog
    assert {c.name for c in catalog} == set(FIXTURE_TOOL_NAMES)
    assert all(c.route == f"fixture:{c.name}" for c in catalog)
    assert catalog.skipped == ()
    for name in DESTRUCTIVE_TOOLS:
        assert catalog.lookup("fixture", name).hint("destructiveHint") is True  # type: ignore[union-attr]
    assert read_call_log(call_log) == [], "discovery must never run a tool body"


async def test_http_discovery_matches_stdio(http_fixture_url: str, call_log: Path) -> None:
    over_http = await SchemaRouter.from_url(http_fixture_url, kind="mcp", name="fixture")
    command, args = stdio_command(call_log)
    over_stdio = await SchemaRouter.from_stdio(command, args, name="fixture")
    assert over_http.catalog.version == over_stdio.catalog.version
    assert len(over_http.catalog) == len(FIXTURE_TOOL_NAMES)
    assert read_call_log(call_log) == []


async def test_paginated_listing_with_bad_tools_yields_the_rest_and_a_report(odd_server: list[str]) -> None:
    source = McpSource.stdio(sys.executable, odd_server, name="odd", timeout=10)
    catalog = await source.load(CatalogLimits(max_schema_bytes=16_000))
    assert [c.name for c in catalog] == ["weather_now", "city_time", "city_population"]
    assert {(s.name, s.reason) for s in catalog.skipped} == {
        ("broken_schema", "invalid_schema"),
        ("weather_now", "duplicate_name"),
        ("", "empty_name"),
        ("huge_schema", "schema_too_large"),
    }


async def test_pagination_stops_at_the_page_limit(odd_server: list[str]) -> None:
    source = McpSource.stdio(sys.executable, odd_server, name="odd", timeout=10)
    catalog = await source.load(CatalogLimits(max_pages=1, max_schema_bytes=16_000))
    assert [c.name for c in catalog] == ["weather_now"]


async def test_unreachable_http_server_fails_fast_with_its_name(unused_port: int) -> None:
    url = f"http://127.0.0.1:{unused_port}/mcp"
    started = time.monotonic()
    with pytest.raises(ServerConnectionError, match=r"127\.0\.0\.1") as info:
        await SchemaRouter.from_url(url, name="gone", timeout=5)
    assert time.monotonic() - started < 5
    assert "gone" in str(info.value)


async def test_server_that_never_answers_times_out() -> None:
    started = time.monotonic()
    with pytest.raises(ServerTimeoutError, match="silent"):
        await SchemaRouter.from_stdio(
            sys.executable, ["-c", "import time; time.sleep(60)"], name="silent", timeout=1.5
        )
    assert time.monotonic() - started < 10


async def test_server_that_hangs_on_tools_list_times_out(odd_server: list[str]) -> None:
    started = time.monotonic()
    with pytest.raises(ServerTimeoutError, match="odd"):
        await SchemaRouter.from_stdio(sys.executable, [*odd_server, "--hang"], name="odd", timeout=1.5)
    assert time.monotonic() - started < 10


async def test_missing_command_is_a_connection_error() -> None:
    with pytest.raises(ServerConnectionError, match="no-such-command"):
        await SchemaRouter.from_stdio("no-such-command-schemarouter", name="missing", timeout=5)


@pytest.mark.parametrize("url", ["ftp://example.org/mcp", "not a url", ""])
def test_bad_urls_are_misuse(url: str) -> None:
    with pytest.raises(UserError):
        McpSource.http(url)


async def test_only_mcp_kind_is_supported() -> None:
    with pytest.raises(UserError, match="kind"):
        await SchemaRouter.from_url("http://127.0.0.1:1/mcp", kind="openapi")  # type: ignore[arg-type]


def test_a_source_repr_leaves_out_its_environment_and_headers() -> None:
    """Secrets passed to a server (an API key in `env`, a bearer token in `headers`) must not
    reach logs and tracebacks through the source's repr."""
    stdio = McpSource.stdio("my-server", env={"CRM_API_KEY": "sk-secret-1"}, name="crm")
    http = McpSource.http(
        "http://127.0.0.1:9/mcp", name="crm", headers={"Authorization": "Bearer tok-secret-2"}
    )
    assert "sk-secret-1" not in repr(stdio)
    assert "tok-secret-2" not in repr(http)
    assert "my-server" in repr(stdio)  # the rest of the source still shows


@pytest.mark.parametrize(
    "url", ["http://[::1", "ftp://example.org/mcp", "http://:80/", "http://127.0.0.1:99999/mcp", "not a url"]
)
def test_an_unusable_url_is_a_user_error(url: str) -> None:
    with pytest.raises(UserError, match="URL"):
        McpSource.http(url)
