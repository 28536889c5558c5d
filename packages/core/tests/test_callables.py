from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import Field

from schemarouter import SchemaError, SchemaRouter, callable_spec


def book_flight(
    origin: Annotated[str, Field(description="IATA code of the departure airport")],
    destination: str,
    cabin: Literal["economy", "business"] = "economy",
) -> str:
    """Book a flight between two airports.

    Longer notes that are not part of the description.
    """
    return f"{origin}-{destination}-{cabin}"


def test_schema_comes_from_type_hints() -> None:
    spec = callable_spec(book_flight)
    assert spec.name == "book_flight"
    assert spec.description == "Book a flight between two airports."
    schema = spec.input_schema
    assert schema["required"] == ["origin", "destination"]
    assert schema["properties"]["origin"]["description"] == "IATA code of the departure airport"
    assert schema["properties"]["cabin"]["enum"] == ["economy", "business"]
    assert schema["additionalProperties"] is False


def test_router_from_callables_builds_a_catalog() -> None:
    def ping() -> str:
        """Check that the service answers."""
        return "pong"

    router = SchemaRouter.from_callables([book_flight, ping], name="local")
    assert router.catalog.routes == ("local:book_flight", "local:ping")
    assert router.catalog["local:ping"].input_schema["properties"] == {}


def test_var_args_cannot_be_described() -> None:
    def anything(*args: int) -> None:
        """Takes anything."""

    with pytest.raises(SchemaError, match="args"):
        callable_spec(anything)
