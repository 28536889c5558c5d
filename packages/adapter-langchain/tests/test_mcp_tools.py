"""McpToolkit over the real fixture MCP server: schemas unchanged, bodies run only when called.

Each stdio server start costs seconds, so one toolkit session checks several behaviours.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage

from schemarouter import CatalogLimits, McpSource, SchemaRouter
from schemarouter.catalog import canonical_bytes
from schemarouter.errors import SchemaRouterError, ToolTransportError, UserError
from schemarouter_conformance import FIXTURE_TOOL_NAMES, read_call_log
from schemarouter_langchain import ANNOTATIONS_METADATA_KEY, McpToolkit, catalog_from_tools, tool_input_schema

from .conftest import SOURCE


async def test_stdio_toolkit(stdio_source: McpSource, call_log: Path, fixture_router: SchemaRouter) -> None:
    async with McpToolkit(stdio_source) as toolkit:
        # Listing runs no tool body; every valid tool is converted, in server order.
        assert read_call_log(call_log) == []
        assert [t.name for t in toolkit.tools] == [cap.name for cap in fixture_router.catalog]
        assert set(FIXTURE_TOOL_NAMES) <= {t.name for t in toolkit.tools}
        assert toolkit.catalog.version == fixture_router.catalog.version

        # The server's input schema is the tool's args schema, byte for byte.
        for tool in toolkit.tools:
            cap = fixture_router.catalog.lookup(SOURCE, tool.name)
            assert cap is not None
            assert canonical_bytes(tool_input_schema(tool)) == canonical_bytes(cap.input_schema)
            assert tool.description == cap.description

        # Annotations travel as metadata only, and a mirror of the tools routes the same contracts.
        delete = next(t for t in toolkit.tools if t.name == "delete_customer")
        assert (delete.metadata or {})[ANNOTATIONS_METADATA_KEY]["destructiveHint"] is True
        mirrored = catalog_from_tools(toolkit.tools, source=SOURCE)
        assert mirrored.routes == toolkit.catalog.routes
        for cap in toolkit.catalog:
            assert canonical_bytes(mirrored[cap.route].input_schema) == canonical_bytes(cap.input_schema)
            assert mirrored[cap.route].annotations == cap.annotations
        assert read_call_log(call_log) == []

        # Calling a tool is the framework running it: exactly one body call.
        add = next(t for t in toolkit.tools if t.name == "add")
        assert await add.ainvoke({"a": 2, "b": 3}) == "5.0"
        assert read_call_log(call_log) == [{"tool": "add", "arguments": {"a": 2, "b": 3}}]

        # A tool error (here the server's argument validation) becomes an error ToolMessage.
        search = next(t for t in toolkit.tools if t.name == "search_customers")
        call = {
            "name": "search_customers",
            "args": {"query": "Ada", "limit": 1000},
            "id": "c1",
            "type": "tool_call",
        }
        message = await search.ainvoke(call)
        assert isinstance(message, ToolMessage)
        assert message.status == "error"
        assert len(read_call_log(call_log)) == 1


async def test_http_transport(http_server: tuple[str, Path], fixture_router: SchemaRouter) -> None:
    url, log = http_server
    before = len(read_call_log(log))
    async with McpToolkit(McpSource.http(url, name=SOURCE)) as toolkit:
        assert toolkit.catalog.version == fixture_router.catalog.version
        assert len(read_call_log(log)) == before
        add = next(t for t in toolkit.tools if t.name == "add")
        assert await add.ainvoke({"a": 1, "b": 1}) == "2.0"
    assert read_call_log(log)[before:] == [{"tool": "add", "arguments": {"a": 1, "b": 1}}]


async def test_open_and_close_in_different_tasks(stdio_source: McpSource) -> None:
    toolkit = McpToolkit(stdio_source)
    await asyncio.create_task(toolkit.open())
    assert len(toolkit.tools) >= len(FIXTURE_TOOL_NAMES)
    await asyncio.create_task(toolkit.aclose())
    add = next(t for t in toolkit.tools if t.name == "add")
    with pytest.raises(ToolTransportError):
        await add.ainvoke({"a": 1, "b": 1})


async def test_unreachable_server_raises_a_typed_error() -> None:
    toolkit = McpToolkit(McpSource.http("http://127.0.0.1:9/mcp", name=SOURCE, timeout=2))
    with pytest.raises(SchemaRouterError, match=r"127\.0\.0\.1:9"):
        await toolkit.open()
    with pytest.raises(UserError):
        _ = toolkit.catalog


# -- a listing that is not read in full ----------------------------------------------------------

LISTING_SERVER = Path(__file__).resolve().parents[2] / "core" / "tests" / "servers" / "listing_server.py"
"""Core's hand-written MCP server: pages a generated listing, or sends tools exactly as written."""


@pytest.mark.parametrize(
    ("limits", "reason", "kept", "past_the_limit"),
    [
        pytest.param(CatalogLimits(max_pages=2), "page_limit", 20, [], id="page-limit"),
        pytest.param(
            CatalogLimits(max_tools=15),
            "tool_limit",
            15,
            [f"tool_{i}" for i in range(15, 20)],
            id="tool-limit",
        ),
    ],
)
async def test_a_listing_cut_short_is_on_the_toolkit_catalog_and_logged(
    limits: CatalogLimits,
    reason: str,
    kept: int,
    past_the_limit: list[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """30 tools, 10 a page: the toolkit stops after two pages, as core's `McpSource.load` does."""
    args = [str(LISTING_SERVER), "--generate", "30", "--page", "10"]
    source = McpSource.stdio(sys.executable, args, name="long", timeout=10)
    with caplog.at_level(logging.WARNING, logger="schemarouter"):
        async with McpToolkit(source, limits=limits) as toolkit:
            assert [t.name for t in toolkit.tools] == [f"tool_{i}" for i in range(kept)]
            [cut] = toolkit.catalog.cut_short
            assert (cut.source, cut.reason, cut.pages_read, cut.tools_listed) == ("long", reason, 2, 20)
            assert [(s.name, s.reason) for s in toolkit.catalog.skipped] == [
                (name, "tool_limit") for name in past_the_limit
            ]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.getMessage() for r in warnings] == [f"{source.label}: {cut.detail}"]


async def test_an_entry_that_is_no_tool_is_a_skip_on_the_toolkit_catalog(tmp_path: Path) -> None:
    listing = [
        {"name": "get_weather", "description": "Weather for a city", "inputSchema": {"type": "object"}},
        "not a tool at all",
    ]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(listing), encoding="utf-8")
    source = McpSource.stdio(
        sys.executable, [str(LISTING_SERVER), "--tools", str(path)], name="odd", timeout=10
    )
    async with McpToolkit(source) as toolkit:
        assert [t.name for t in toolkit.tools] == ["get_weather"]
        assert [(s.name, s.reason) for s in toolkit.catalog.skipped] == [("", "invalid_definition")]
        assert toolkit.catalog.cut_short == ()
