"""Tools that several catalog sources share a name with are matched by route, never by bare name.

Two copies of one server (`prod`, `staging`) give every tool two routes. A rule on one route
(`blocked=("prod:delete_customer",)`) must hold: a tool whose route is known (`source=`) is
matched by it, and one whose route is unknown is hidden with a warning saying to pass `source=`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from schemarouter import AllowSet, Catalog, RoutingConfig, SchemaRouter
from schemarouter_conformance import read_call_log, stdio_command
from schemarouter_pydantic_ai import (
    LOGGER_NAME,
    PydanticAIRouter,
    RoutingRequest,
    catalog_from_function_toolset,
    catalog_from_mcp_toolset,
)

from .conftest import local_tools

SOURCES = ("prod", "staging")
QUERY = "delete customer c-100"
BLOCKED = RoutingConfig(k=3, blocked=("prod:delete_customer",))


def _script(
    offered: list[list[str]], call: str | None = None, args: dict[str, Any] | None = None
) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append([d.name for d in info.function_tools])
        if call is not None and len(offered) == 1:
            return ModelResponse(parts=[ToolCallPart(call, args or {}, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(respond)


def _prefixed(allow: AllowSet) -> list[str]:
    """The allow-set's routes as the model sees them (`<source>_<name>`), one source after the other."""
    return [r.replace(":", "_", 1) for s in SOURCES for r in allow.routes if r.startswith(f"{s}:")]


def _ambiguity_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == LOGGER_NAME and "several tools of that name" in r.getMessage()
    ]


@pytest.mark.slow
@pytest.mark.parametrize("with_source", [True, False], ids=["source", "no-source"])
async def test_a_route_rule_holds_for_prefixed_copies_of_one_mcp_server(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, with_source: bool
) -> None:
    logs = {source: tmp_path / f"{source}.jsonl" for source in SOURCES}
    servers = {s: MCPToolset(StdioTransport(*stdio_command(logs[s])), init_timeout=60) for s in SOURCES}
    offered: list[list[str]] = []
    async with servers["prod"], servers["staging"]:
        catalog = Catalog.merge(*[await catalog_from_mcp_toolset(s, servers[s]) for s in SOURCES])
        visibility = BLOCKED.visibility(SchemaRouter(catalog))
        allow = visibility.allow_set(QUERY)
        assert "staging:delete_customer" in allow.routes, "precondition: the query routes to the tool"
        assert "prod:delete_customer" not in allow.routes, "precondition: the route rule holds in core"
        router = PydanticAIRouter(visibility)
        toolsets = [
            router.toolset(servers[s].prefixed(s), source=s if with_source else None) for s in SOURCES
        ]
        agent = Agent(None, toolsets=toolsets)
        model = _script(offered, "prod_delete_customer", {"customer_id": "c-100"})
        with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
            for _ in range(2):  # the warning is logged once per catalog version and name
                await agent.run("x", deps=RoutingRequest(QUERY), model=model)
                offered.clear()
            await agent.run("x", deps=RoutingRequest(QUERY), model=model)

    assert "prod_delete_customer" not in offered[0]
    assert len(offered[0]) <= BLOCKED.k
    assert read_call_log(logs["prod"]) == [], "the blocked route ran"
    if with_source:
        assert offered[0] == _prefixed(allow)
        assert _ambiguity_warnings(caplog) == []
    else:
        # every name in this allow-set has a route in both sources: none can be matched by name
        assert offered[0] == []
        warnings = _ambiguity_warnings(caplog)
        assert len(warnings) == len(set(allow.names)), warnings
        joined = "\n".join(warnings)
        assert "'delete_customer'" in joined
        assert "prod:delete_customer, staging:delete_customer" in joined
        assert "source=" in joined


@pytest.mark.parametrize("source", [None, "b"], ids=["no-source", "source"])
async def test_the_capability_hides_a_shared_name_unless_its_source_is_given(
    caplog: pytest.LogCaptureFixture, source: str | None
) -> None:
    catalog = Catalog.merge(
        catalog_from_function_toolset("a", local_tools()), catalog_from_function_toolset("b", local_tools())
    )
    visibility = RoutingConfig(k=3, blocked=("a:delete_customer",)).visibility(SchemaRouter(catalog))
    query = "permanently delete customer c-200 from the CRM"
    allow = visibility.allow_set(query)
    assert "b:delete_customer" in allow.routes, "precondition"
    router = PydanticAIRouter(visibility)
    offered: list[list[str]] = []
    agent = Agent(None, toolsets=[local_tools()], capabilities=[router.capability(source=source)])
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        await agent.run("x", deps=RoutingRequest(query), model=_script(offered))
    assert len(offered[0]) <= 3
    if source is None:
        assert offered[0] == []
        assert any("'delete_customer'" in w for w in _ambiguity_warnings(caplog))
    else:
        assert offered[0] == [r.split(":")[1] for r in allow.routes if r.startswith("b:")]
        assert "delete_customer" in offered[0]
