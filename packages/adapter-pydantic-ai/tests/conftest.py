"""Shared pieces for the adapter's own tests: a local tool catalog and a scripted model."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Tool
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
