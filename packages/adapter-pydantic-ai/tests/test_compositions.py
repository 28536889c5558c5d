"""The live MCP contract check through every toolset composition PydanticAI offers.

The catalog is loaded from `drifting_server --contract v1`; the run goes to a v1 process (nothing
changed: both tools are offered and run) or a v2 one (`transfer_balance` changed: hidden, and a
call to it runs nothing), with the MCP toolset under combined, prefixed, renamed, filtered and
dynamic toolsets. A toolset that loses track of where a tool comes from hides it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
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
from pydantic_ai.toolsets import (
    AbstractToolset,
    CombinedToolset,
    DynamicToolset,
    FunctionToolset,
    ToolsetTool,
    WrapperToolset,
)

from schemarouter import Catalog, McpSource, SchemaRouter, Visibility
from schemarouter_conformance import read_call_log
from schemarouter_conformance.drifting_server import DRAIN_ARGUMENTS as DRAIN
from schemarouter_conformance.drifting_server import DRIFT_QUERY as QUERY
from schemarouter_conformance.drifting_server import drifting_command
from schemarouter_pydantic_ai import LOGGER_NAME, HiddenToolCallError, PydanticAIRouter, RoutingRequest

pytestmark = pytest.mark.slow

Layout = Callable[[MCPToolset[Any]], AbstractToolset[Any]]


def _dynamic(mcp: MCPToolset[Any]) -> AbstractToolset[Any]:
    inner = CombinedToolset([mcp]).prefixed("bank")
    return DynamicToolset(lambda ctx: inner).prefixed("dyn")


LAYOUTS: dict[str, tuple[Layout, Callable[[str], str]]] = {
    "combined-prefixed": (lambda m: CombinedToolset([m]).prefixed("bank"), lambda n: f"bank_{n}"),
    "prefixed-in-combined": (lambda m: CombinedToolset([m.prefixed("bank")]), lambda n: f"bank_{n}"),
    "nested-combined": (
        lambda m: CombinedToolset([CombinedToolset([m]).prefixed("inner")]).prefixed("outer"),
        lambda n: f"outer_inner_{n}",
    ),
    "renamed-filtered": (
        lambda m: (
            CombinedToolset([m]).renamed({"move_money": "transfer_balance"}).filtered(lambda c, d: True)
        ),
        lambda n: {"transfer_balance": "move_money"}.get(n, n),
    ),
    "dynamic": (_dynamic, lambda n: f"dyn_bank_{n}"),
}


@pytest.fixture(scope="module")
def v1_catalog() -> Catalog:
    """The catalog of a v1 server process, loaded once for the module."""
    return asyncio.run(McpSource.stdio(*drifting_command("v1"), name="bank").load())


def _model(offered: list[list[str]], call: str, args: dict[str, Any]) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append([d.name for d in info.function_tools])
        if len(offered) == 1:
            return ModelResponse(parts=[ToolCallPart(call, args, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(respond)


@pytest.mark.parametrize("live", ["v1", "v2"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
async def test_the_contract_check_finds_the_mcp_toolset_under_any_composition(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, v1_catalog: Catalog, layout: str, live: str
) -> None:
    compose, listed = LAYOUTS[layout]
    visibility = Visibility(SchemaRouter(v1_catalog), k=3)
    names = visibility.allow_set(QUERY).names
    assert set(names) == {"transfer_balance", "get_account_balance"}, "precondition"
    call_log = tmp_path / "calls.jsonl"
    mcp = MCPToolset(StdioTransport(*drifting_command(live, call_log)), init_timeout=60)
    routed = PydanticAIRouter(visibility).toolset(compose(mcp), source="bank")
    captured: dict[str, Any] = {}

    async def grab(ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        captured["ctx"] = ctx
        return tool_defs

    agent = Agent(None, toolsets=[routed], capabilities=[PrepareTools(grab)])
    offered: list[list[str]] = []
    if live == "v1":
        call, args = listed("get_account_balance"), {"account_id": "a-1"}
    else:
        call, args = listed("transfer_balance"), DRAIN
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        async with mcp:
            await agent.run("x", deps=RoutingRequest(QUERY), model=_model(offered, call, args))
            if live == "v2":  # defence in depth: the routed toolset refuses the call itself
                ctx = captured["ctx"]
                async with await routed.for_run(ctx) as for_run:  # as a run does (a dynamic toolset)
                    step = await for_run.for_run_step(ctx)
                    assert isinstance(step, WrapperToolset)
                    tools = await step.wrapped.get_tools(ctx)
                    with pytest.raises(HiddenToolCallError):
                        await step.call_tool(call, DRAIN, ctx, tools[call])

    changed = [r.getMessage() for r in caplog.records if "changed since the catalog" in r.getMessage()]
    if live == "v1":
        assert offered[0] == [listed(n) for n in names]
        assert [e["tool"] for e in read_call_log(call_log)] == ["get_account_balance"]
        assert changed == []
    else:
        assert offered[0] == [listed("get_account_balance")]
        assert read_call_log(call_log) == [], "the changed tool ran"
        assert len(changed) == 1, changed
        assert "'transfer_balance'" in changed[0]


@dataclass
class Rebuilding(WrapperToolset[Any]):
    """A user's wrapper that lists fresh tool objects, dropping what `CombinedToolset` recorded."""

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        return {
            name: ToolsetTool(
                toolset=tool.toolset,
                tool_def=tool.tool_def,
                max_retries=tool.max_retries,
                args_validator=tool.args_validator,
            )
            for name, tool in (await super().get_tools(ctx)).items()
        }


def get_account_balance(account_id: str) -> str:
    """Get the current balance of a bank account."""
    return "100.00 EUR"


@pytest.mark.parametrize(
    ("inner", "catalog_from", "hidden"),
    [
        ("mcp", "mirror", True),  # an MCPToolset is where the origin was lost
        ("functions", "mcp-source", True),  # the catalog loaded the tool's source over MCP
        ("functions", "mirror", False),  # nothing says MCP: no contract to check
    ],
)
async def test_a_tool_whose_origin_is_lost_is_hidden_when_it_may_be_an_mcp_tool(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    v1_catalog: Catalog,
    inner: str,
    catalog_from: str,
    hidden: bool,
) -> None:
    source = McpSource.stdio(*drifting_command("v1"), name="bank")
    router = SchemaRouter(v1_catalog, sources=[source] if catalog_from == "mcp-source" else ())
    mcp = MCPToolset(StdioTransport(*drifting_command("v1", tmp_path / "calls.jsonl")), init_timeout=60)
    child: AbstractToolset[Any] = mcp if inner == "mcp" else FunctionToolset([get_account_balance])
    routed = PydanticAIRouter(Visibility(router, k=3)).toolset(
        Rebuilding(CombinedToolset([child])), source="bank"
    )
    offered: list[list[str]] = []
    query = "what is the balance of bank account a-1"
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        async with mcp:
            await Agent(None, toolsets=[routed]).run(
                "x", deps=RoutingRequest(query), model=_model(offered, "none", {})
            )
    lost = [r.getMessage() for r in caplog.records if "may be served by an MCP server" in r.getMessage()]
    if hidden:
        assert "get_account_balance" not in offered[0]
        assert any("'get_account_balance'" in w for w in lost), lost
    else:
        assert "get_account_balance" in offered[0]
        assert lost == []
