"""What the OpenAI Agents SDK's real Responses and Chat Completions models send turn after turn.

The real `openai` client talks to the conformance package's recording fake provider on
127.0.0.1; the recorded requests show which routing modes keep the provider's cached prefix.
"""

from __future__ import annotations

from typing import Any

import pytest
from agents import (
    Agent,
    FunctionTool,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    Tool,
    function_tool,
    set_tracing_disabled,
)
from openai import AsyncOpenAI

from schemarouter import SchemaRouter, SessionLimits, Visibility
from schemarouter_conformance import FakeProviderServer, Text, ToolCall, cache_breaks, prompt_view
from schemarouter_openai_agents import OpenAIAgentsRouter, RoutedAgent, mirror_function_tools

WEATHER = "what is the weather forecast for Paris"
CONVERT = "convert 100 USD to EUR"
TWO_TURNS = [
    ToolCall("get_weather_forecast", {"city": "Paris"}),
    Text("Sunny."),
    ToolCall("convert_currency", {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}),
    Text("92 EUR."),
]


def local_tools(ran: list[str]) -> list[FunctionTool]:
    """Fresh tool objects (gating changes a tool in place, and a tool belongs to one router)."""

    @function_tool
    def get_weather_forecast(city: str, days: int = 3) -> str:
        """Get the weather forecast (temperature, rain) for a city for the next days."""
        ran.append("get_weather_forecast")
        return f"sunny in {city}"

    @function_tool
    def convert_currency(amount: float, from_currency: str, to_currency: str) -> str:
        """Convert an amount of money between currencies at today's exchange rate."""
        ran.append("convert_currency")
        return str(amount * 0.92)

    @function_tool
    def search_customers(query: str) -> str:
        """Search customer records in the CRM by name or email address."""
        ran.append("search_customers")
        return "Ada Lovelace"

    return [get_weather_forecast, convert_currency, search_customers]


@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize(
    ("mode", "breaks"),
    [("all", []), ("session", [(2, ("tools",), "tools +convert_currency")])],
)
async def test_a_two_turn_conversation_through_the_real_models(
    api: str, mode: str, breaks: list[Any]
) -> None:
    set_tracing_disabled(True)
    ran: list[str] = []
    tools = local_tools(ran)
    with FakeProviderServer(TWO_TURNS) as fake:
        client = AsyncOpenAI(base_url=fake.openai_base_url, api_key="unused", max_retries=0)
        model: Any = (
            OpenAIResponsesModel("gpt-5.4", client)
            if api == "responses"
            else OpenAIChatCompletionsModel("gpt-5.4", client)
        )
        plain: list[Tool] = list(tools)
        agent: Agent[Any] = Agent(name="assistant", tools=plain, model=model)
        if mode == "session":
            visibility = Visibility(SchemaRouter(mirror_function_tools(tools)), k=2)
            routing = OpenAIAgentsRouter(visibility, sessions=SessionLimits())
            gated: list[Tool] = [routing.find_tools, *routing.gate_tools(tools)]
            agent = RoutedAgent(name="assistant", tools=gated, model=model, routing=routing)
        context: dict[str, Any] = {"conversation": "c-1"}
        items: list[Any] = []
        for query in (WEATHER, CONVERT):
            context["query"] = query
            result = await Runner.run(agent, [*items, {"role": "user", "content": query}], context=context)
            items = result.to_input_list()
    assert result.final_output == "92 EUR."
    assert ran == ["get_weather_forecast", "convert_currency"]
    assert {r.api for r in fake.requests} == {api}
    assert fake.errors == []
    views = [prompt_view(r) for r in fake.requests]
    assert len(views) == 4
    assert [(b.index, b.reasons, b.detail) for b in cache_breaks(views)] == breaks
    if mode == "session":
        assert views[0].tool_names == ("find_tools", "get_weather_forecast")
        assert views[2].tool_names == ("find_tools", "get_weather_forecast", "convert_currency")
