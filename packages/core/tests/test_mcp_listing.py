"""Reading a server's `tools/list`: a malformed tool is skipped (never the whole server), a listing
cut short by a limit says so, and a server that goes away is a connection error. Real servers
over real stdio and streamable HTTP on 127.0.0.1: `tests/servers/listing_server.py` sends tools
exactly as written (what a server in another language may send, and the MCP SDK's own servers
refuse to), the SDK's fixture server the well-formed ones."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest

from schemarouter import CatalogLimits, McpSource, ServerConnectionError, ToolSpec
from schemarouter.cli import main
from schemarouter_conformance import http_mcp_server

pytestmark = pytest.mark.slow

LISTING_SERVER = str(Path(__file__).parent / "servers" / "listing_server.py")
TIMEOUT = 10.0

GOOD = {"type": "object", "properties": {"city": {"type": "string"}}}
WEATHER: dict[str, Any] = {
    "name": "get_weather",
    "description": "Get the weather forecast for a city",
    "inputSchema": GOOD,
    "annotations": {"readOnlyHint": True, "title": None},  # a null the MCP SDK leaves out
}
MALFORMED: list[Any] = [
    WEATHER,
    {"name": "no_type", "description": "A schema without 'type'", "inputSchema": {"properties": {}}},
    {"name": "bool_schema", "description": "A boolean schema", "inputSchema": True},
    "not a tool at all",
    {"name": "send_email", "description": "Send an email", "inputSchema": {"type": "object"}},
]


@contextmanager
def listing_server(transport: str, *args: str) -> Iterator[McpSource]:
    """The listing server started with `args`, as a source named `s` over `transport`."""
    command = [sys.executable, LISTING_SERVER, *args]
    if transport == "stdio":
        yield McpSource.stdio(command[0], command[1:], name="s", timeout=TIMEOUT)
        return

    def on_port(port: int) -> list[str]:
        return [*command, "--transport", "http", "--port", str(port)]

    with http_mcp_server(on_port, what="the listing server") as url:
        yield McpSource.http(url, name="s", timeout=TIMEOUT)


def tools_file(tmp_path: Path, tools: list[Any]) -> str:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools), encoding="utf-8")
    return str(path)


# -- one malformed tool --------------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_malformed_tool_is_skipped_and_the_other_tools_load(transport: str, tmp_path: Path) -> None:
    with listing_server(transport, "--tools", tools_file(tmp_path, MALFORMED)) as source:
        catalog = await source.load()
    assert catalog.routes == ("s:get_weather", "s:no_type", "s:send_email")
    assert [(s.name, s.reason) for s in catalog.skipped] == [
        ("", "invalid_definition"),
        ("bool_schema", "invalid_schema"),
    ]
    assert "entry 3" in catalog.skipped[0].detail
    assert "bool" in catalog.skipped[1].detail
    # a tool the MCP SDK reads is read as the SDK reads it: adapters compute the same fingerprint
    sdk_tool = types.Tool.model_validate(WEATHER)
    assert catalog["s:get_weather"].fingerprint == ToolSpec.from_mcp_tool(sdk_tool).fingerprint("s")
    assert catalog["s:get_weather"].hint("readOnlyHint") is True


async def test_list_specs_reads_each_tool_on_its_own(tmp_path: Path) -> None:
    with listing_server("stdio", "--tools", tools_file(tmp_path, MALFORMED)) as source:
        async with source.connect() as client:
            specs = await source.list_specs(client, CatalogLimits())
    assert [spec.name for spec in specs] == ["get_weather", "no_type", "bool_schema", "send_email"]


async def test_a_tool_that_is_not_plain_json_is_skipped(tmp_path: Path) -> None:
    """The SDK refuses the hint, so the tool is read as a JSON definition, whose NaN cannot be
    fingerprinted: a typed skip, not a ValueError out of `load`."""
    odd = {
        "name": "odd_weight",
        "description": "Annotations the MCP SDK cannot read, and a NaN",
        "inputSchema": GOOD,
        "annotations": {"readOnlyHint": "maybe", "weight": float("nan")},
    }
    with listing_server("stdio", "--tools", tools_file(tmp_path, [WEATHER, odd])) as source:
        catalog = await source.load()
    assert catalog.routes == ("s:get_weather",)
    assert [(s.name, s.reason) for s in catalog.skipped] == [("odd_weight", "invalid_definition")]
    assert "not plain JSON" in catalog.skipped[0].detail


async def test_a_deeply_nested_schema_over_mcp_is_a_typed_skip(tmp_path: Path) -> None:
    depth = 97  # deep enough to exhaust Python's stack while it is checked, if nothing stops it
    schema = "{" + '"type":"object","properties":{"x":{' * depth + '"type":"string"' + "}}" * depth + "}"
    path = tmp_path / "deep.json"
    path.write_text(
        '[{"name":"get_weather","inputSchema":{"type":"object"}},'
        f'{{"name":"deep","description":"A deeply nested schema","inputSchema":{schema}}}]',
        encoding="utf-8",
    )
    with listing_server("stdio", "--tools", str(path)) as source:
        catalog = await source.load()
    assert catalog.routes == ("s:get_weather",)
    [skip] = catalog.skipped
    assert skip.name == "deep"
    assert skip.reason in ("invalid_schema", "invalid_definition")
    assert "nested too deeply" in skip.detail


# -- limits --------------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_listing_cut_at_the_page_limit_is_reported(
    transport: str, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        listing_server(transport, "--generate", "30", "--page", "10") as source,
        caplog.at_level(logging.WARNING, logger="schemarouter"),
    ):
        catalog = await source.load(CatalogLimits(max_pages=2))
    assert len(catalog) == 20
    assert catalog.skipped == ()
    [cut] = catalog.cut_short
    assert (cut.source, cut.reason, cut.pages_read, cut.tools_listed) == ("s", "page_limit", 2, 20)
    assert "max_pages" in cut.detail
    assert any(source.label in r.getMessage() and "max_pages" in r.getMessage() for r in caplog.records)


async def test_every_tool_past_the_tool_limit_is_reported() -> None:
    with listing_server("stdio", "--generate", "30") as source:
        catalog = await source.load(CatalogLimits(max_tools=5))
    assert len(catalog) == 5
    assert [(s.name, s.reason) for s in catalog.skipped] == [
        (f"tool_{i}", "tool_limit") for i in range(5, 30)
    ]
    assert catalog.cut_short == ()  # every page was read


async def test_a_listing_cut_at_the_tool_limit_says_more_pages_remained() -> None:
    with listing_server("stdio", "--generate", "30", "--page", "10") as source:
        catalog = await source.load(CatalogLimits(max_tools=15))
    assert len(catalog) == 15
    assert [s.name for s in catalog.skipped if s.reason == "tool_limit"] == [
        f"tool_{i}" for i in range(15, 20)
    ]
    assert [(c.reason, c.pages_read, c.tools_listed) for c in catalog.cut_short] == [("tool_limit", 2, 20)]


def test_the_catalog_command_says_a_listing_was_cut_short(capsys: pytest.CaptureFixture[str]) -> None:
    """101 pages of one tool, over the default limit of 100 pages."""
    server = f"{sys.executable} {LISTING_SERVER} --generate 101 --page 1"
    assert main(["catalog", "--stdio", server, "--name", "many", "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["tool_count"] == 100
    assert [(c["source"], c["reason"], c["pages_read"]) for c in data["cut_short"]] == [
        ("many", "page_limit", 100)
    ]
    assert "schemarouter catalog: warning" in err
    assert "max_pages" in err
    assert main(["catalog", "--stdio", server, "--name", "many"]) == 0
    out, _ = capsys.readouterr()
    assert "cut short many — page_limit" in out


def test_the_route_command_warns_of_a_listing_cut_short(capsys: pytest.CaptureFixture[str]) -> None:
    server = f"{sys.executable} {LISTING_SERVER} --generate 101 --page 1"
    assert main(["route", "--stdio", server, "--name", "many", "--json", "tool number 7"]) == 0
    _, err = capsys.readouterr()
    assert "schemarouter route: warning" in err
    assert "max_pages" in err


# -- a server that goes away ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "args"),
    [
        pytest.param(
            sys.executable,
            [LISTING_SERVER, "--generate", "30", "--page", "10", "--exit-after-pages", "1"],
            id="dies-mid-listing",
        ),
        pytest.param(sys.executable, ["-c", "pass"], id="exits-at-once"),
    ],
)
async def test_a_server_that_goes_away_is_a_connection_error(command: str, args: list[str]) -> None:
    source = McpSource.stdio(command, args, name="gone", timeout=TIMEOUT)
    with pytest.raises(ServerConnectionError, match="gone") as info:
        await source.load()
    assert "went away" in info.value.detail
