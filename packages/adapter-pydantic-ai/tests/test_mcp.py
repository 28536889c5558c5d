"""Against the bundled fixture MCP server over real stdio: mirrors, schemas, and no tool-body calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition

from schemarouter import SchemaRouter, Visibility
from schemarouter.catalog import canonical_json
from schemarouter_conformance import FIXTURE_TOOL_NAMES, read_call_log, stdio_command
from schemarouter_pydantic_ai import (
    PydanticAIRouter,
    RoutingRequest,
    catalog_from_mcp_toolset,
    catalog_from_tool_defs,
)

pytestmark = pytest.mark.slow


def mcp_toolset(call_log: Path) -> MCPToolset[Any]:
    command, args = stdio_command(call_log)
    return MCPToolset(StdioTransport(command, args), init_timeout=60)


async def test_mirror_matches_core_discovery_and_routes_the_same(tmp_path: Path) -> None:
    call_log = tmp_path / "calls.jsonl"
    command, args = stdio_command(call_log)
    core = await SchemaRouter.from_stdio(command, args, name="fixture")
    async with mcp_toolset(call_log) as toolset:
        mirrored = await catalog_from_mcp_toolset("fixture", toolset)
        seen: list[list[ToolDefinition]] = []

        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            seen.append(list(info.function_tools))
            return ModelResponse(parts=[TextPart("done")])

        visibility = Visibility(SchemaRouter(mirrored), k=3)
        router = PydanticAIRouter(visibility)
        agent = Agent(FunctionModel(respond), toolsets=[router.toolset(toolset, source="fixture")])
        query = "convert 100 USD to EUR at today's exchange rate"
        await agent.run("x", deps=RoutingRequest(query))
        listed = await toolset.get_tools(_ctx())

    assert sorted(mirrored.routes) == sorted(core.catalog.routes)
    assert {c.route: c.fingerprint for c in mirrored} == {c.route: c.fingerprint for c in core.catalog}
    assert mirrored.version == core.catalog.version
    offered = seen[0]
    assert [d.name for d in offered] == list(Visibility(core, k=3).allow_set(query).names)
    for tool_def in offered:
        source = core.catalog[f"fixture:{tool_def.name}"]
        assert canonical_json(tool_def.parameters_json_schema) == canonical_json(source.input_schema)
    from_defs = catalog_from_tool_defs("fixture", [t.tool_def for t in listed.values()])
    assert sorted(c.name for c in from_defs) == sorted(FIXTURE_TOOL_NAMES)
    assert from_defs.lookup("fixture", "delete_customer").hint("destructiveHint") is True  # type: ignore[union-attr]
    assert read_call_log(call_log) == []


def _ctx() -> Any:
    from pydantic_ai import RunContext
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RunUsage

    return RunContext(deps=None, model=TestModel(), usage=RunUsage())
