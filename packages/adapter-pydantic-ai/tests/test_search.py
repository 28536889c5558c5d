"""`RoutedToolSearch` as PydanticAI's `ToolSearch` strategy: ranking with the no-route gate."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pydantic_ai import Agent, RunContext, Tool
from pydantic_ai.capabilities import ToolSearch
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RunUsage

from schemarouter import Visibility
from schemarouter_pydantic_ai import LOGGER_NAME, PydanticAIRouter, RoutingRequest

from .conftest import convert_currency, get_weather_forecast, local_tools, search_customers


def ctx_with(deps: object) -> RunContext[Any]:
    return RunContext(deps=deps, model=TestModel(), usage=RunUsage())


async def tool_defs() -> list[Any]:
    return [t.tool_def for t in (await local_tools().get_tools(ctx_with(None))).values()]


async def test_search_returns_routed_tools_best_first(visibility: Visibility) -> None:
    search = PydanticAIRouter(visibility).tool_search()
    names = search(ctx_with(RoutingRequest("anything")), ["weather forecast", "city"], await tool_defs())
    assert names == [n for n in visibility.allow_set("weather forecast city").names]
    assert names[0] == "get_weather_forecast"


async def test_search_returns_nothing_rather_than_a_weak_match(visibility: Visibility) -> None:
    search = PydanticAIRouter(visibility).tool_search()
    assert search(ctx_with(RoutingRequest("x")), ["tell me a joke about cats"], await tool_defs()) == []


async def test_search_only_returns_searchable_tools(visibility: Visibility) -> None:
    search = PydanticAIRouter(visibility).tool_search()
    only = [d for d in await tool_defs() if d.name != "get_weather_forecast"]
    assert "get_weather_forecast" not in search(ctx_with(RoutingRequest("x")), ["weather forecast"], only)


async def test_search_without_request_fails_closed(
    visibility: Visibility, caplog: pytest.LogCaptureFixture
) -> None:
    search = PydanticAIRouter(visibility).tool_search()
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert search(ctx_with(None), ["weather forecast"], await tool_defs()) == []
    assert any("missing_request" in r.getMessage() for r in caplog.records)


async def test_agent_discovers_deferred_tools_through_routed_search(visibility: Visibility) -> None:
    router = PydanticAIRouter(visibility)
    seen: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([d.name for d in info.function_tools])
        if len(seen) == 1:
            return ModelResponse(
                parts=[ToolCallPart("search_tools", {"queries": ["weather forecast"]}, tool_call_id="s1")]
            )
        return ModelResponse(parts=[TextPart("done")])

    tools: list[Tool[Any]] = [
        Tool(search_customers, defer_loading=True),
        Tool(get_weather_forecast, defer_loading=True),
        Tool(convert_currency, defer_loading=True),
    ]
    agent = Agent(
        FunctionModel(respond), tools=tools, capabilities=[ToolSearch(strategy=router.tool_search())]
    )
    await agent.run("weather?", deps=RoutingRequest("weather"))
    assert "get_weather_forecast" not in seen[0]
    assert "get_weather_forecast" in seen[1]
    assert "convert_currency" not in seen[1]
