"""Tools are matched by route when the route is known, and `blocked` wins over `always_visible`.

Two processes of the fixture MCP server are loaded as two sources, `prod` and `staging`, that
serve tools of the same names; the agent gets prod's `McpToolkit` tools, whose metadata records
their routes (`prod:<name>`). A rule about one source's tool must never show the other's.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool

from schemarouter import AllowSet, McpSource, RoutingConfig, SchemaRouter, Visibility
from schemarouter_conformance import read_call_log, stdio_command
from schemarouter_langchain import LangChainRouter, McpToolkit, refusal_of, routed_model
from schemarouter_langchain.testing import ScriptedChatModel, call_then_answer, offered_names

DELETE = "delete customer c-100"
WEATHER = "what is the weather forecast for Paris this week"


class Script:
    """Calls `tool` once and records what the model was offered on every turn."""

    def __init__(self, tool: str | None = None, arguments: Mapping[str, Any] | None = None) -> None:
        self.offered: list[tuple[str, ...]] = []
        self.script = call_then_answer(tool, arguments)

    def __call__(self, messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        self.offered.append(offered_names(tools))
        return self.script(messages, tools)


def tool_message(output: Mapping[str, Any]) -> ToolMessage:
    return next(m for m in output["messages"] if isinstance(m, ToolMessage))


@pytest.fixture
async def two_sources(tmp_path: Path) -> tuple[SchemaRouter, McpSource, Path]:
    """A router over `prod` and `staging` (same tools), prod's source, and prod's call log."""
    prod_log = tmp_path / "prod.jsonl"
    prod = McpSource.stdio(*stdio_command(prod_log), name="prod")
    staging = McpSource.stdio(*stdio_command(tmp_path / "staging.jsonl"), name="staging")
    router = await SchemaRouter.from_sources(prod, staging)
    assert read_call_log(prod_log) == []
    return router, prod, prod_log


async def test_a_route_blocked_tool_is_hidden_even_when_its_name_is_routed_from_another_source(
    two_sources: tuple[SchemaRouter, McpSource, Path],
) -> None:
    """A bug: the allow-set held `staging:delete_customer`, so prod's `delete_customer`, blocked
    by route, was offered by name and ran."""
    router, prod, prod_log = two_sources
    visibility = RoutingConfig(k=3, blocked=("prod:delete_customer",)).visibility(router)
    allow_set = visibility.allow_set(DELETE)
    assert "staging:delete_customer" in allow_set.routes, "precondition: the name is routed"
    assert "prod:delete_customer" not in allow_set.routes, "precondition: prod's route is blocked"
    async with McpToolkit(prod) as toolkit:
        script = Script("delete_customer", {"customer_id": "c-100"})
        agent = create_agent(
            ScriptedChatModel(respond=script), tools=toolkit.tools, middleware=[LangChainRouter(visibility)]
        )
        output = await agent.ainvoke({"messages": [HumanMessage(DELETE)]}, context={"query": DELETE})
        expected = tuple(r.split(":", 1)[1] for r in allow_set.routes if r.startswith("prod:"))
        assert script.offered[0] == expected
        assert "delete_customer" not in script.offered[0]
        assert refusal_of(tool_message(output)) == {
            "tool": "delete_customer",
            "reason": "hidden",
            "detail": "",
        }

        # langchain-core only: routed_model matches by route too
        bound = routed_model(ScriptedChatModel(respond=Script("delete_customer")), toolkit.tools, visibility)
        message = await bound.ainvoke(DELETE)
        assert [c["name"] for c in message.invalid_tool_calls] == ["delete_customer"]
        assert message.tool_calls == []
    assert read_call_log(prod_log) == []


async def test_a_routed_route_is_visible_and_runs(two_sources: tuple[SchemaRouter, McpSource, Path]) -> None:
    """The control: with staging's tool blocked instead, prod's routed tool is offered and runs."""
    router, prod, prod_log = two_sources
    visibility = RoutingConfig(k=3, blocked=("staging:delete_customer",)).visibility(router)
    assert "prod:delete_customer" in visibility.allow_set(DELETE).routes, "precondition"
    async with McpToolkit(prod) as toolkit:
        script = Script("delete_customer", {"customer_id": "c-100"})
        agent = create_agent(
            ScriptedChatModel(respond=script), tools=toolkit.tools, middleware=[LangChainRouter(visibility)]
        )
        output = await agent.ainvoke({"messages": [HumanMessage(DELETE)]}, context={"query": DELETE})
    assert "delete_customer" in script.offered[0]
    assert refusal_of(tool_message(output)) is None
    assert read_call_log(prod_log) == [{"tool": "delete_customer", "arguments": {"customer_id": "c-100"}}]


async def test_always_visible_never_shows_a_route_blocked_tool(
    two_sources: tuple[SchemaRouter, McpSource, Path],
) -> None:
    """`blocked` wins over the router's `always_visible`, by route: prod's tool stays hidden."""
    router, prod, prod_log = two_sources
    visibility = RoutingConfig(k=3, blocked=("prod:delete_customer",)).visibility(router)
    async with McpToolkit(prod) as toolkit:
        script = Script("delete_customer", {"customer_id": "c-100"})
        middleware = LangChainRouter(visibility, always_visible=["delete_customer", "add"])
        agent = create_agent(ScriptedChatModel(respond=script), tools=toolkit.tools, middleware=[middleware])
        output = await agent.ainvoke({"messages": [HumanMessage(WEATHER)]}, context={"query": WEATHER})
    assert script.offered[0][-1] == "add", "the unblocked always-visible tool is shown last"
    assert "delete_customer" not in script.offered[0]
    assert refusal_of(tool_message(output)) is not None
    assert read_call_log(prod_log) == []


class Raising:
    """An allow-set provider that fails, with the rules of a `Visibility` it would have used."""

    def __init__(self, visibility: Visibility) -> None:
        self.router = visibility.router
        self.catalog = visibility.catalog
        self.blocked = visibility.blocked

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        raise RuntimeError("index corrupted")

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        raise RuntimeError("index corrupted")

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        raise RuntimeError("index corrupted")


@pytest.mark.parametrize("provider", ["blocking", "raising"])
@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_always_visible_never_shows_a_blocked_tool_nor_anything_on_failure(
    provider: str, mode: str, local_tools: list[BaseTool], local_visibility: Visibility, bodies: Any
) -> None:
    """A bug: `always_visible=["delete_customer"]` offered and ran a tool the rules block, and
    kept offering it when routing failed."""
    blocking = Visibility(local_visibility.router, k=2, blocked=["delete_customer"])
    source = blocking if provider == "blocking" else Raising(blocking)
    script = Script("delete_customer", {"customer_id": "c-1"})
    middleware = LangChainRouter(source, always_visible=["delete_customer", "search_customers"])
    agent = create_agent(ScriptedChatModel(respond=script), tools=local_tools, middleware=[middleware])
    payload: Any = {"messages": [HumanMessage("delete customer c-1")]}
    context = {"query": "delete customer c-1"}
    output = (
        agent.invoke(payload, context=context)
        if mode == "sync"
        else await agent.ainvoke(payload, context=context)
    )
    refusal = refusal_of(tool_message(output))
    assert refusal is not None
    assert bodies.ran == []
    if provider == "blocking":
        assert script.offered[0] == ("search_customers",)  # the unblocked always-visible tool stays
        assert refusal["reason"] == "hidden"
    else:
        assert script.offered[0] == ()  # on a routing failure nothing is shown
        assert refusal["reason"] == "routing_failed"
