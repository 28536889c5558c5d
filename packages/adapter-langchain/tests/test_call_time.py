"""The call-time check: the tool that actually runs is checked, and unknown tools leak no names."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from schemarouter import McpSource, SchemaRouter, Visibility
from schemarouter_conformance import FIXTURE_TOOL_NAMES, read_call_log
from schemarouter_langchain import LangChainRouter, McpToolkit, refusal_of
from schemarouter_langchain.testing import ScriptedChatModel, call_then_answer

WEATHER = "what is the weather forecast for Paris this week"
MONEY = "convert 100 USD to EUR at today's exchange rate"


def tool_message(output: Mapping[str, Any]) -> ToolMessage:
    return next(m for m in output["messages"] if isinstance(m, ToolMessage))


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize(
    ("edited_to", "runs"),
    [("delete_customer", False), ("get_weather_forecast", True)],
    ids=["hidden", "same-tool"],
)
async def test_an_edit_is_checked_against_the_tool_that_runs(
    mode: str,
    edited_to: str,
    runs: bool,
    local_tools: list[BaseTool],
    local_visibility: Visibility,
    bodies: Any,
) -> None:
    """The router first, batched HITL second: the edit is applied inside the router's
    `wrap_tool_call`; the tool it names is refused when hidden (sync and async paths)."""
    routed = local_visibility.allow_set(WEATHER).names
    assert "get_weather_forecast" in routed, "precondition"
    assert "delete_customer" not in routed, "precondition"
    call = call_then_answer("get_weather_forecast", {"city": "Paris"})
    agent = create_agent(
        ScriptedChatModel(respond=call),
        tools=local_tools,
        middleware=[
            LangChainRouter(local_visibility),
            HumanInTheLoopMiddleware({"get_weather_forecast": True}),
        ],
        checkpointer=InMemorySaver(),
    )
    config: RunnableConfig = {"configurable": {"thread_id": f"{mode}-{edited_to}"}}
    context = {"query": WEATHER}
    arguments = {"customer_id": "c-1"} if edited_to == "delete_customer" else {"city": "Lyon"}
    edit = {"type": "edit", "edited_action": {"name": edited_to, "args": arguments}}
    first: Any = {"messages": [HumanMessage(WEATHER)]}
    answer = Command(resume={"decisions": [edit]})
    if mode == "sync":
        assert agent.invoke(first, config, context=context, version="v2").interrupts
        done = agent.invoke(answer, config, context=context, version="v2")
    else:
        assert (await agent.ainvoke(first, config, context=context, version="v2")).interrupts
        done = await agent.ainvoke(answer, config, context=context, version="v2")
    refusal = refusal_of(tool_message(done.value))
    if runs:
        assert refusal is None
        assert bodies.ran == ["get_weather_forecast"]
    else:
        assert refusal is not None
        assert refusal["tool"] == "delete_customer"
        assert bodies.ran == []


def test_a_visible_tool_may_run_other_tools_itself(
    local_tools: list[BaseTool], local_visibility: Visibility
) -> None:
    """Only the call's own tool is checked: a tool body that runs another tool (application
    code, not a model call) is not refused."""
    by_name = {t.name: t for t in local_tools}

    @tool
    def weather_report(city: str) -> str:
        """Write a weather forecast report for a city."""
        return str(by_name["get_weather_forecast"].invoke({"city": city}))

    tools = [*local_tools, weather_report]
    always = LangChainRouter(local_visibility, always_visible=["weather_report"])
    agent = create_agent(
        ScriptedChatModel(respond=call_then_answer("weather_report", {"city": "Paris"})),
        tools=tools,
        middleware=[always],
    )
    assert "get_weather_forecast" not in local_visibility.allow_set(MONEY).names, "precondition"
    output = agent.invoke({"messages": [HumanMessage(MONEY)]}, context={"query": MONEY})
    assert tool_message(output).text == "sunny in Paris"


async def test_a_call_to_an_unregistered_tool_is_refused_without_naming_other_tools(
    stdio_source: McpSource, call_log: Path, fixture_router: SchemaRouter
) -> None:
    """A bug: a routed tool missing from `tools=` passed the router, and LangChain's error
    listed every registered tool, hidden ones included."""
    visibility = Visibility(fixture_router, k=3)
    assert "get_weather_forecast" in visibility.allow_set(WEATHER).names, "precondition"
    async with McpToolkit(stdio_source) as toolkit:
        tools = [t for t in toolkit.tools if t.name != "get_weather_forecast"]
        agent = create_agent(
            ScriptedChatModel(respond=call_then_answer("get_weather_forecast", {"city": "Paris"})),
            tools=tools,
            middleware=[LangChainRouter(visibility)],
        )
        output = await agent.ainvoke({"messages": [HumanMessage(WEATHER)]}, context={"query": WEATHER})
    message = tool_message(output)
    refusal = refusal_of(message)
    assert refusal is not None
    assert refusal["reason"] == "hidden"
    others = set(FIXTURE_TOOL_NAMES) - {"get_weather_forecast"}
    assert not [name for name in others if name in message.text], message.text
    assert read_call_log(call_log) == []
