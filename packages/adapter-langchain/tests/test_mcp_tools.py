"""McpToolkit over the real fixture MCP server: schemas unchanged, bodies run only when called.

Each stdio server start costs seconds, so one toolkit session checks several behaviours.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage

from schemarouter import McpSource, SchemaRouter, canonical_bytes
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
