"""What PydanticAI's real OpenAI Responses and Anthropic model classes send turn after turn.

The real SDK clients talk to the conformance package's recording fake provider on 127.0.0.1; the
recorded requests show which routing modes keep the provider's cached prefix (tools first).
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("openai", reason="openai is a dev dependency of the prompt-cache measurements")
pytest.importorskip("anthropic", reason="anthropic is a dev dependency of the prompt-cache measurements")

from anthropic import AsyncAnthropic
from openai import AsyncOpenAI
from pydantic_ai import Agent
from pydantic_ai.capabilities import ToolSearch
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider

from schemarouter import SessionLimits, Visibility
from schemarouter_conformance import (
    FakeProviderServer,
    Text,
    ToolCall,
    ToolSearchCall,
    cache_breaks,
    prompt_view,
)
from schemarouter_pydantic_ai import ConversationDeps, PydanticAIRouter, RoutingRequest

from .conftest import local_tools

WEATHER = "what is the weather forecast for Paris"
CONVERT = "convert 100 USD to EUR"
TWO_TURNS = [
    ToolCall("get_weather_forecast", {"city": "Paris"}),
    Text("Sunny."),
    ToolCall("convert_currency", {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}),
    Text("92 EUR."),
]


def model(api: str, fake: FakeProviderServer) -> Any:
    """The framework's own model class for `api` (names for which it enables tool search)."""
    if api == "responses":
        client = AsyncOpenAI(base_url=fake.openai_base_url, api_key="unused", max_retries=0)
        return OpenAIResponsesModel("gpt-5.4", provider=OpenAIProvider(openai_client=client))
    anthropic = AsyncAnthropic(base_url=fake.anthropic_base_url, api_key="unused", max_retries=0)
    return AnthropicModel("claude-sonnet-4-6", provider=AnthropicProvider(anthropic_client=anthropic))


@pytest.mark.parametrize("api", ["responses", "messages"])
@pytest.mark.parametrize(
    ("mode", "breaks"),
    [("all", []), ("session", [(2, ("tools",), "tools +convert_currency")])],
)
async def test_a_two_turn_conversation_through_the_real_model_classes(
    api: str, mode: str, breaks: list[Any], visibility: Visibility, body_calls: list[Any]
) -> None:
    toolset: Any = local_tools()
    if mode == "session":
        toolset = PydanticAIRouter(visibility, sessions=SessionLimits()).toolset(toolset)
    deps = ConversationDeps(WEATHER, conversation="c-1")
    with FakeProviderServer(TWO_TURNS) as fake:
        agent = Agent(model(api, fake), toolsets=[toolset])
        first = await agent.run(WEATHER, deps=deps)
        deps.query = CONVERT
        second = await agent.run(CONVERT, deps=deps, message_history=first.all_messages())
    assert (first.output, second.output) == ("Sunny.", "92 EUR.")
    assert [name for name, _ in body_calls] == ["get_weather_forecast", "convert_currency"]
    assert {r.api for r in fake.requests} == {api}
    assert fake.errors == []
    views = [prompt_view(r) for r in fake.requests]
    assert len(views) == 4
    assert [(b.index, b.reasons, b.detail) for b in cache_breaks(views)] == breaks
    if mode == "session":
        assert views[0].tool_names == ("find_tools", "get_weather_forecast")
        assert views[2].tool_names == ("find_tools", "get_weather_forecast", "convert_currency")


@pytest.mark.parametrize("api", ["responses", "messages"])
async def test_routed_tool_search_reveals_a_deferred_tool_without_a_cache_break(
    api: str, visibility: Visibility, body_calls: list[Any]
) -> None:
    search: Any = (
        ToolSearchCall(("weather forecast",))
        if api == "responses"
        else ToolCall("search_tools", {"queries": ["weather forecast"]})
    )
    script = [search, ToolCall("get_weather_forecast", {"city": "Paris"}), Text("Sunny.")]
    router = PydanticAIRouter(visibility)
    with FakeProviderServer(script) as fake:
        agent = Agent(
            model(api, fake),
            toolsets=[local_tools().defer_loading()],
            capabilities=[ToolSearch(strategy=router.tool_search())],
        )
        result = await agent.run(WEATHER, deps=RoutingRequest(WEATHER))
    assert result.output == "Sunny."
    assert [name for name, _ in body_calls] == ["get_weather_forecast"]
    views = [prompt_view(r) for r in fake.requests]
    assert "get_weather_forecast" not in views[0].callable_names
    assert "get_weather_forecast" in views[1].callable_names
    assert views[1].revealed == ("get_weather_forecast",)
    assert cache_breaks(views) == []
    # every tool is declared deferred on the wire, routed or not: only the search ranks them
    assert set(views[0].deferred_names) == {
        "search_customers",
        "get_weather_forecast",
        "convert_currency",
        "delete_customer",
    }
