"""Conversation mode over the bundled fixture MCP server, on stdio and streamable HTTP.

The agent is the recommended layout: `router.toolset(mcp.approval_required(...))` with the
destructive tools needing approval, run with `FunctionModel` scripts. The call log proves which
tool bodies ran.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent, RunContext
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults, ToolDefinition

from schemarouter import RoutingSession, SchemaRouter, SessionLimits, Visibility
from schemarouter.catalog import canonical_json
from schemarouter.visibility import FIND_TOOLS
from schemarouter_conformance import DESTRUCTIVE_TOOLS, http_fixture_server, read_call_log, stdio_command
from schemarouter_pydantic_ai import LOGGER_NAME, ConversationDeps, PydanticAIRouter, catalog_from_mcp_toolset

from .conftest import Script, run

pytestmark = pytest.mark.slow

WEATHER = "what is the weather forecast in Paris"
CURRENCY = "convert 100 USD to EUR"
JOKE = "tell me a joke about cats"
CUSTOMERS = "search the CRM for customers named Ada"


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    workdir = tmp_path_factory.mktemp("http")
    log = workdir / "calls.jsonl"
    with http_fixture_server(log, workdir / "server.log") as url:
        yield url, log


@pytest.fixture(params=["stdio", "http"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    """`(transport target, call log)`: a stdio command line per test, or the module's HTTP server."""
    if request.param == "http":
        return request.getfixturevalue("http_server")
    return "stdio", tmp_path / "calls.jsonl"


@asynccontextmanager
async def fixture_agent(
    server: tuple[str, Path], limits: SessionLimits | None = None
) -> AsyncIterator[tuple[Agent[Any, Any], Visibility]]:
    """An agent over the fixture server in conversation mode, destructive tools needing approval,
    and the `Visibility` its catalog (mirrored from the same connection) routes with."""
    target, log = server
    if target == "stdio":
        mcp: MCPToolset[Any] = MCPToolset(StdioTransport(*stdio_command(log)), init_timeout=60)
    else:
        mcp = MCPToolset(target, init_timeout=60)
    async with mcp:
        visibility = Visibility(SchemaRouter(await catalog_from_mcp_toolset("fixture", mcp)), k=3)
        router = PydanticAIRouter(visibility, sessions=limits or SessionLimits())

        def destructive(ctx: RunContext[Any], tool_def: ToolDefinition, args: dict[str, Any]) -> bool:
            return tool_def.name in DESTRUCTIVE_TOOLS

        routed = router.toolset(mcp.approval_required(destructive), source="fixture")
        yield Agent(None, toolsets=[routed], output_type=[str, DeferredToolRequests]), visibility


def tools_ran(log: Path) -> list[object]:
    return [call.get("tool") for call in read_call_log(log)]


async def test_a_conversation_grows_finds_a_destructive_tool_and_keeps_its_approval(
    server: tuple[str, Path],
) -> None:
    _, log = server
    already = len(read_call_log(log))
    async with fixture_agent(server) as (agent, visibility):
        deps = ConversationDeps(WEATHER, conversation="support-1")
        offered: list[list[str]] = []
        for query in (WEATHER, CURRENCY, JOKE):
            deps.query = query
            script, _ = await run(agent, deps)
            offered.append(script.offered())
        assert offered[0] == [FIND_TOOLS.name, "get_weather_forecast"]
        assert offered[1] == [FIND_TOOLS.name, "get_weather_forecast", "convert_currency"]
        assert offered[2] == offered[1]
        for before, after in itertools.pairwise(offered):
            assert after[: len(before)] == before

        script, paused = await run(
            agent,
            deps,
            (FIND_TOOLS.name, {"query": "delete a customer"}),
            ("delete_customer", {"customer_id": "c-200"}),
        )
        assert "delete_customer" not in script.offered(0)
        assert script.offered(1)[: len(offered[2])] == offered[2]
        assert "delete_customer" in script.offered(1)
        catalog = visibility.router.catalog
        for tool_def in script.seen[1][1:]:
            source = catalog[f"fixture:{tool_def.name}"]
            assert canonical_json(tool_def.parameters_json_schema) == canonical_json(source.input_schema)
        assert isinstance(paused.output, DeferredToolRequests)
        assert [c.tool_name for c in paused.output.approvals] == ["delete_customer"]
        assert tools_ran(log)[already:] == [], "neither find-tools nor the paused call ran a tool body"

        resumed = Script()
        await agent.run(
            deps=deps,
            model=resumed.model(),
            message_history=paused.all_messages(),
            deferred_tool_results=DeferredToolResults(approvals={"c2": True}),
        )
        assert resumed.offered(0) == script.offered(1)
        assert tools_ran(log)[already:] == ["delete_customer"]

        deps.query = WEATHER
        later, _ = await run(agent, deps)
        assert later.offered() == script.offered(1)


async def test_conversations_stay_apart_and_fail_closed(
    server: tuple[str, Path], caplog: pytest.LogCaptureFixture
) -> None:
    _, log = server
    already = len(read_call_log(log))
    async with fixture_agent(server) as (agent, visibility):

        async def conversation(cid: str, query: str, search: str) -> list[str]:
            deps = ConversationDeps(query, conversation=cid)
            script, _ = await run(agent, deps, (FIND_TOOLS.name, {"query": search}))
            return script.offered(1)

        plans = [
            ("a", WEATHER, "convert currency"),
            ("b", CUSTOMERS, "delete a customer"),
            ("c", JOKE, "translate text"),
        ]

        def alone(cid: str, query: str, search: str) -> list[str]:
            """What the conversation is offered after its search when nothing else runs."""
            session = RoutingSession(visibility, conversation_id=cid)
            session.offer(query)
            session.find_tools(search)
            return list(session.offer(query).tool_names)

        results = await asyncio.gather(*(conversation(*plan) for plan in plans * 2))
        for plan, names in zip(plans * 2, results, strict=True):
            assert names == alone(*plan), plan[0]
        assert "delete_customer" not in results[0]
        assert "delete_customer" in results[1]

        with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
            script, _ = await run(agent, {"query": WEATHER})
        assert script.offered() == []
        assert any("missing_conversation" in r.getMessage() for r in caplog.records)
    assert tools_ran(log)[already:] == []


async def test_find_tools_off_over_mcp(server: tuple[str, Path]) -> None:
    async with fixture_agent(server, SessionLimits(find_tools=False)) as (agent, _):
        deps = ConversationDeps(JOKE, conversation="quiet")
        first, _ = await run(agent, deps)
        deps.query = WEATHER
        second, _ = await run(agent, deps)
    assert first.offered() == []
    assert second.offered() == ["get_weather_forecast"]
