"""The demo's conversation over the bundled fixture server: a missed tool is found with one
find-tools call, and every step's tool list starts with the previous step's."""

from __future__ import annotations

import asyncio
import io
import itertools

import pytest
from rich.console import Console

from schemarouter import SchemaRouter
from schemarouter.cli._demo_cmd import show_conversation
from schemarouter.cli._demo_conversation import converse
from schemarouter.demo_routing import ROUTING, load_router


@pytest.fixture(scope="module")
def router() -> SchemaRouter:
    """The demo's router over the fixture server, listed once for the module (it is only read)."""
    return asyncio.run(load_router())


def test_the_missed_tool_is_found_and_the_list_only_grows(router: SchemaRouter) -> None:
    async def run() -> None:
        steps = converse(ROUTING.visibility(router))
        missed = next(s for s in steps if s.outcome == "no_route")
        assert "convert_currency" not in missed.offered
        found = steps[steps.index(missed) + 1]
        assert found.found.startswith("find_tools(")
        assert "convert_currency" in found.offered
        assert "convert_currency" in found.added
        for before, after in itertools.pairwise(steps):
            assert after.offered[: len(before.offered)] == before.offered
        assert all(s.offered[0] == "find_tools" for s in steps)
        assert steps[-1].schema_bytes < router.catalog.total_schema_bytes()

    asyncio.run(run())


def test_the_conversation_table_fits_100_columns(router: SchemaRouter) -> None:
    buffer = io.StringIO()
    asyncio.run(show_conversation(Console(file=buffer, width=200, force_terminal=False), router))
    text = buffer.getvalue()
    assert "find_tools('convert" in text
    assert "convert_currency" in text
    assert max(len(line) for line in text.splitlines()) <= 100
