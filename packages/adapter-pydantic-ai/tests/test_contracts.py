"""A live MCP tool whose contract changed since the catalog was built is hidden, with one warning.

The catalog is loaded from `schemarouter_conformance.drifting_server --contract v1`; the run goes to a new process of the
same server, started with `v1` (unchanged) or `v2` (`transfer_balance` gained a `drain_to` parameter).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import PrepareTools
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition

from schemarouter import Catalog, CatalogLimits, McpSource, SchemaRouter, Visibility
from schemarouter_conformance import read_call_log
from schemarouter_conformance.drifting_server import DRAIN_ARGUMENTS as DRAIN
from schemarouter_conformance.drifting_server import DRIFT_QUERY as QUERY
from schemarouter_conformance.drifting_server import drifting_command
from schemarouter_pydantic_ai import (
    LOGGER_NAME,
    HiddenToolCallError,
    PydanticAIRouter,
    RoutingRequest,
    catalog_from_mcp_toolset,
)

pytestmark = pytest.mark.slow


def _model(offered: list[set[str]], call: str | None = None) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append({d.name for d in info.function_tools})
        if call is not None and len(offered) == 1:
            return ModelResponse(parts=[ToolCallPart(call, DRAIN, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(respond)


@pytest.mark.parametrize(
    ("live", "expected"),
    [("v1", {"transfer_balance", "get_account_balance"}), ("v2", {"get_account_balance"})],
)
async def test_a_changed_mcp_contract_is_hidden_and_warned_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, live: str, expected: set[str]
) -> None:
    catalog = await McpSource.stdio(*drifting_command("v1"), name="bank").load()
    visibility = Visibility(SchemaRouter(catalog), k=3)
    assert set(visibility.allow_set(QUERY).names) == {"transfer_balance", "get_account_balance"}, (
        "precondition"
    )
    router = PydanticAIRouter(visibility)
    call_log = tmp_path / "calls.jsonl"
    mcp = MCPToolset(StdioTransport(*drifting_command(live, call_log)), init_timeout=60)
    routed = router.toolset(mcp, source="bank")
    captured: dict[str, Any] = {}

    async def grab(ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        captured["ctx"] = ctx
        return tool_defs

    agent = Agent(None, toolsets=[routed], capabilities=[PrepareTools(grab)])
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        async with mcp:
            for _ in range(2):  # two runs over the same catalog: one warning
                offered: list[set[str]] = []
                await agent.run("x", deps=RoutingRequest(QUERY), model=_model(offered))
                assert offered[0] == expected

            # a model calling the changed tool anyway is told it does not exist: no body runs
            offered = []
            await agent.run("x", deps=RoutingRequest(QUERY), model=_model(offered, "transfer_balance"))
            if live == "v2":
                listed = await mcp.get_tools(captured["ctx"])
                with pytest.raises(HiddenToolCallError, match="contract changed"):
                    await routed.call_tool(
                        "transfer_balance", DRAIN, captured["ctx"], listed["transfer_balance"]
                    )
    if live == "v2":
        assert read_call_log(call_log) == []

    warnings = [
        r.getMessage() for r in caplog.records if r.name == LOGGER_NAME and "changed" in r.getMessage()
    ]
    if live == "v1":
        assert warnings == []
    else:
        assert len(warnings) == 1, warnings
        assert "'transfer_balance'" in warnings[0]
        assert "changed since the catalog was built" in warnings[0]
        assert "Reload the catalog" in warnings[0]


@pytest.mark.parametrize("why", ["skipped", "other-listing"])
async def test_an_mcp_tool_missing_from_the_catalog_is_named_with_the_fix_for_mcp(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, why: str
) -> None:
    """The server lists `transfer_balance`; the catalog skipped it (over its tool limit), or was
    built from a listing without it. Either way the warning says so, not "mirror it"."""
    mcp = MCPToolset(StdioTransport(*drifting_command("v1", tmp_path / "calls.jsonl")), init_timeout=60)
    offered: list[set[str]] = []
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        async with mcp:
            if why == "skipped":
                catalog = await catalog_from_mcp_toolset("bank", mcp, CatalogLimits(max_tools=1))
                assert [s.name for s in catalog.skipped] == ["transfer_balance"], "precondition"
            else:
                full = await catalog_from_mcp_toolset("bank", mcp)
                catalog = Catalog([cap for cap in full if cap.name != "transfer_balance"])
            router = PydanticAIRouter(Visibility(SchemaRouter(catalog), k=3))
            agent = Agent(None, toolsets=[router.toolset(mcp, source="bank")])
            await agent.run("x", deps=RoutingRequest(QUERY), model=_model(offered))
    assert offered[0] == {"get_account_balance"}
    unlisted = [r.getMessage() for r in caplog.records if "not in the router's catalog" in r.getMessage()]
    assert len(unlisted) == 1, unlisted
    assert "'transfer_balance'" in unlisted[0]
    assert "bank:transfer_balance" in unlisted[0]
    assert "Mirror it" not in unlisted[0]
    assert "catalog_from_function_toolset" not in unlisted[0]
    if why == "skipped":
        assert "see catalog.skipped" in unlisted[0]
        assert "tool_limit" in unlisted[0]
    else:
        assert "MCP tool 'transfer_balance'" in unlisted[0]
        assert "built from another listing" in unlisted[0]
        assert "Rebuild the catalog" in unlisted[0]
