"""Shared fixtures: the fixture server's tools and catalog, listed in-process (no subprocess, no tool call)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client

from schemarouter import Catalog
from schemarouter_conformance import build_server
from schemarouter_openai_agents import mirror_mcp_tools


async def _list_fixture_tools() -> list[Any]:
    async with Client(build_server()) as client:
        page = await client.list_tools()
    return list(page.tools)


@pytest.fixture(scope="session")
def fixture_tools() -> list[Any]:
    """The bundled fixture server's MCP `Tool` objects, as `tools/list` returns them."""
    return asyncio.run(_list_fixture_tools())


@pytest.fixture(scope="session")
def fixture_catalog(fixture_tools: list[Any]) -> Catalog:
    """The fixture server's catalog, source `fixture`."""
    return mirror_mcp_tools("fixture", fixture_tools)
