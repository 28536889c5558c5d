"""What LangChain's real ChatOpenAI (Responses API) and ChatAnthropic send turn after turn.

The real SDK clients talk to the conformance package's recording fake provider on 127.0.0.1; the
recorded requests show which routing modes keep the provider's cached prefix (tools first).
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip(
    "langchain_openai", reason="langchain_openai is a dev dependency of the prompt-cache measurements"
)
pytest.importorskip(
    "langchain_anthropic", reason="langchain_anthropic is a dev dependency of the prompt-cache measurements"
)

from langchain.agents import create_agent
from langchain_anthropic import ChatAnthropic
from langchain_core.tools import BaseTool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from schemarouter import SessionLimits, Visibility
from schemarouter_conformance import FakeProviderServer, Text, ToolCall, cache_breaks, prompt_view
from schemarouter_langchain import LangChainRouter

from .conftest import Bodies

WEATHER = "what is the weather forecast for Paris"
CONVERT = "convert 100 USD to EUR"
TWO_TURNS = [
    ToolCall("get_weather_forecast", {"city": "Paris"}),
    Text("Sunny."),
    ToolCall("convert_currency", {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}),
    Text("92 EUR."),
]


def model(api: str, fake: FakeProviderServer) -> Any:
    if api == "responses":
        return ChatOpenAI(
            model="gpt-5.4",
            base_url=fake.openai_base_url,
            api_key="unused",  # pyright: ignore[reportArgumentType]
            use_responses_api=True,
            max_retries=0,
        )
    return ChatAnthropic(
        model_name="claude-sonnet-4-6",
        base_url=fake.anthropic_base_url,
        api_key="unused",  # pyright: ignore[reportArgumentType]
        max_retries=0,
        timeout=30,
        stop=None,
    )


@pytest.mark.parametrize("api", ["responses", "messages"])
@pytest.mark.parametrize(
    ("mode", "breaks"),
    [("all", []), ("session", [(2, ("tools",), "tools +convert_currency")])],
)
async def test_a_two_turn_conversation_through_the_real_chat_models(
    api: str,
    mode: str,
    breaks: list[Any],
    local_tools: list[BaseTool],
    local_visibility: Visibility,
    bodies: Bodies,
) -> None:
    middleware = [LangChainRouter(local_visibility, sessions=SessionLimits())] if mode == "session" else []
    config: Any = {"configurable": {"thread_id": "c-1"}}
    with FakeProviderServer(TWO_TURNS) as fake:
        agent: Any = create_agent(
            model(api, fake), tools=local_tools, middleware=middleware, checkpointer=InMemorySaver()
        )
        for query in (WEATHER, CONVERT):
            message = {"role": "user", "content": query}
            result = await agent.ainvoke({"messages": [message]}, config, context={"query": query})
    assert result["messages"][-1].text == "92 EUR."
    assert bodies.ran == ["get_weather_forecast", "convert_currency"]
    assert {r.api for r in fake.requests} == {api}
    assert fake.errors == []
    views = [prompt_view(r) for r in fake.requests]
    assert len(views) == 4
    assert [(b.index, b.reasons, b.detail) for b in cache_breaks(views)] == breaks
    if mode == "session":
        assert views[0].tool_names == ("find_tools", "get_weather_forecast")
        assert views[2].tool_names == ("find_tools", "get_weather_forecast", "convert_currency")
