from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from schemarouter import CallableSource, PlanRequest, SchemaError, SchemaRouter, UserError
from schemarouter.catalog import callable_spec


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


def make_search(what: str) -> Callable[[str], list[str]]:
    def search(query: str) -> list[str]:
        return [f"{what}: {query}"]

    search.__doc__ = f"Search the {what}."
    return search


def test_two_callables_with_one_name_are_refused_naming_both() -> None:
    """A JSON catalog keeps the first of two same-named tools and reports `duplicate_name`;
    two of the application's own callables named alike are a programming error, raised at
    registration instead of silently keeping one of them."""
    web, products = make_search("web for pages"), make_search("product catalog for items")
    with pytest.raises(UserError) as info:
        SchemaRouter.from_callables([book_flight, web, products])
    message = str(info.value)
    assert "'search'" in message
    assert "item 1" in message
    assert "item 2" in message
    assert message.count("make_search.<locals>.search") == 2


def test_the_same_callable_twice_is_one_tool() -> None:
    router = SchemaRouter.from_callables([book_flight, book_flight])
    assert router.catalog.routes == ("python:book_flight",)


def test_same_named_callables_load_under_names_given_in_a_mapping() -> None:
    web, products = make_search("web for pages"), make_search("product catalog for items")
    source = CallableSource("python", {"web_search": web, "product_search": products})
    catalog = source.load()
    assert catalog.routes == ("python:web_search", "python:product_search")
    assert catalog["python:product_search"].description == "Search the product catalog for items."


def log_event(*fields: str) -> None:
    """Log an event."""


def configure(**options: str) -> None:
    """Configure the service."""


def forward_ref(when: Missing) -> None:  # type: ignore[name-defined]  # noqa: F821
    """Annotated with a name that does not exist."""


class Greeter:
    def __call__(self, name: str) -> str:
        """Greet someone."""
        return f"hello {name}"


@pytest.mark.parametrize(
    ("functions", "error", "names"),
    [
        pytest.param(
            [log_event], SchemaError, ["log_event", "*fields", "any number of arguments"], id="*args"
        ),
        pytest.param([configure], SchemaError, ["configure", "**options"], id="**kwargs"),
        pytest.param([forward_ref], SchemaError, ["forward_ref", "Missing"], id="unresolvable-hint"),
        pytest.param(
            [book_flight, functools.partial(book_flight, "LIS")],
            UserError,
            ["item 1", "functools.partial", "book_flight", "no __name__"],
            id="partial",
        ),
        pytest.param(
            [Greeter()], UserError, ["item 0", "Greeter object", "no __name__"], id="callable-object"
        ),
        pytest.param(
            [book_flight, "book_hotel"], UserError, ["item 1", "'book_hotel'", "not callable"], id="str"
        ),
    ],
)
def test_an_unusable_callable_is_refused_naming_it_and_why(
    functions: list[Any], error: type[Exception], names: list[str]
) -> None:
    with pytest.raises(error) as info:
        SchemaRouter.from_callables(functions)
    for name in names:
        assert name in str(info.value)


def convert(amount: float, rate: float) -> float:
    """Convert an amount of money at a rate."""
    return amount * rate


async def test_a_partial_and_a_callable_object_run_under_names_given_in_a_mapping() -> None:
    source = CallableSource("py", {"to_yen": functools.partial(convert, rate=160.0), "greet": Greeter()})
    router = SchemaRouter(source.load(), sources=[source])
    assert router.catalog["py:to_yen"].input_schema["required"] == ["amount"]
    yen = await router.ainvoke(
        PlanRequest("convert 2 euros to yen", {"amount": 2}, preferred_route="py:to_yen")
    )
    assert yen.structured == 320.0
    hello = await router.ainvoke(PlanRequest("greet Ada", {"name": "Ada"}, preferred_route="py:greet"))
    assert hello.structured == "hello Ada"


def add(a: int, b: int, /) -> int:
    """Add two numbers."""
    return a + b


def power(base: float, exponent: float = 2, /, *, digits: int | None = None) -> float:
    """Raise a number to a power."""
    value = base**exponent
    return value if digits is None else round(value, digits)


def pad(width: int = 8, fill: str = " ", /, text: str = "") -> str:
    """Pad a text to a width."""
    return text.rjust(width, fill)


@pytest.mark.parametrize(
    ("route", "arguments", "expected"),
    [
        pytest.param("py:add", {"a": 2, "b": 3}, 5, id="all-positional-only"),
        pytest.param("py:add", {"b": 3, "a": 2}, 5, id="in-any-order"),
        pytest.param("py:power", {"base": 3}, 9, id="default-left-out"),
        pytest.param("py:power", {"base": 2, "exponent": 10, "digits": 0}, 1024, id="with-keyword-only"),
        pytest.param("py:pad", {"fill": "*", "text": "ab"}, "******ab", id="earlier-default-filled-in"),
        pytest.param("py:len", {"obj": [1, 2, 3]}, 3, id="builtin"),
    ],
)
async def test_positional_only_parameters_are_passed_by_position(
    route: str, arguments: dict[str, Any], expected: object
) -> None:
    router = SchemaRouter.from_callables([add, power, pad, len], name="py")
    result = await router.ainvoke(PlanRequest("compute", arguments, preferred_route=route))
    assert result.structured == expected
