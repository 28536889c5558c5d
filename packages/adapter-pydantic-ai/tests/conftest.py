"""Shared pieces for the adapter's own tests: a local tool catalog and a scripted model."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import FunctionToolset

from schemarouter import SchemaRouter, Visibility
from schemarouter_pydantic_ai import catalog_from_function_toolset

BODY_CALLS: list[tuple[str, dict[str, Any]]] = []


def search_customers(query: str) -> list[str]:
    """Search customer records in the CRM by name or email address."""
    BODY_CALLS.append(("search_customers", {"query": query}))
    return ["Ada Lovelace"]


def get_weather_forecast(city: str, days: int = 3) -> str:
    """Get the weather forecast (temperature, rain) for a city for the next days."""
    BODY_CALLS.append(("get_weather_forecast", {"city": city, "days": days}))
    return f"sunny in {city}"


def convert_currency(amount: float, from_currency: str, to_currency: str) -> float:
    """Convert an amount of money between currencies at today's exchange rate."""
    BODY_CALLS.append(("convert_currency", {"amount": amount}))
    return amount


def delete_customer(customer_id: str) -> str:
    """Permanently delete a customer record and its history from the CRM."""
    BODY_CALLS.append(("delete_customer", {"customer_id": customer_id}))
    return f"deleted {customer_id}"


def local_tools() -> FunctionToolset[Any]:
    """Four tools; `delete_customer` needs approval (PydanticAI's `requires_approval`)."""
    return FunctionToolset(
        [
            search_customers,
            get_weather_forecast,
            convert_currency,
            Tool(delete_customer, requires_approval=True, metadata={"owner": "crm"}),
        ]
    )


@pytest.fixture(autouse=True)
def _clear_body_calls() -> None:
    BODY_CALLS.clear()


@pytest.fixture
def body_calls() -> list[tuple[str, dict[str, Any]]]:
    return BODY_CALLS


@pytest.fixture
def visibility() -> Visibility:
    """A `Visibility` over a catalog mirrored from the local toolset (source `local`)."""
    return Visibility(SchemaRouter(catalog_from_function_toolset("local", local_tools())), k=3)


class Script:
    """A FunctionModel script: one planned response per step (a tool call or, when the plan is
    used up, text); records the tool definitions offered at each step."""

    def __init__(self, *calls: tuple[str, dict[str, Any]]) -> None:
        self.calls = list(calls)
        self.seen: list[list[ToolDefinition]] = []

    def model(self) -> FunctionModel:
        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.seen.append(list(info.function_tools))
            if self.calls:
                name, args = self.calls.pop(0)
                return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"c{len(self.seen)}")])
            return ModelResponse(parts=[TextPart("done")])

        return FunctionModel(respond)

    def offered(self, step: int = 0) -> list[str]:
        return [d.name for d in self.seen[step]]


async def run(agent: Agent[Any, Any], deps: object, *calls: tuple[str, dict[str, Any]]) -> tuple[Script, Any]:
    script = Script(*calls)
    result = await agent.run("the user's message", deps=deps, model=script.model())
    return script, result
