"""find-tools searches past the list it already gave: the best tools for its query that are not
listed yet, confident or not, by rank (`Visibility.search`); never a tool with no evidence."""

from __future__ import annotations

from collections.abc import Hashable

import pytest

from schemarouter import (
    AllowSet,
    RoutingError,
    RoutingSession,
    SchemaRouter,
    SessionLimits,
    UserError,
    Visibility,
)


def get_customer(customer_id: str) -> str:
    """Get a customer record by id."""
    return customer_id


def create_customer(name: str) -> str:
    """Create a customer record."""
    return name


def delete_customer(customer_id: str) -> str:
    """Permanently delete a customer."""
    return customer_id


def list_invoices(customer_id: str) -> str:
    """List the invoices of a customer."""
    return customer_id


def get_weather(city: str) -> str:
    """Current weather for a city."""
    return city


def crm() -> SchemaRouter:
    return SchemaRouter.from_callables(
        [get_customer, create_customer, delete_customer, list_invoices, get_weather], name="crm"
    )


def names(found: object) -> list[str]:
    return [tool.name for tool in found]  # type: ignore[attr-defined]


def test_search_reaches_past_the_gate_by_rank() -> None:
    visibility = Visibility(crm(), k=3)
    wide = visibility.search("delete customer", k=5)
    assert wide.names == ("delete_customer", "get_customer", "create_customer", "list_invoices")
    shown = [(d.name, d.reason) for d in wide.decisions if d.visible]
    assert shown == [
        ("delete_customer", "routed"),
        ("get_customer", "uncertain"),
        ("create_customer", "uncertain"),
        ("list_invoices", "uncertain"),
    ]
    assert visibility.search("delete customer", k=1).names == ("delete_customer",)
    # no evidence, nothing found: "weather" alone names one tool
    assert visibility.search("weather in Paris", k=5).names == ("get_weather",)


def test_search_keeps_the_rules() -> None:
    visibility = Visibility(crm(), k=3, blocked=["get_customer"])
    wide = visibility.search("delete customer", k=5)
    assert "get_customer" not in wide.names
    assert wide.names == ("delete_customer", "create_customer", "list_invoices")


@pytest.mark.parametrize("k", [0, -1, True])
def test_search_needs_a_k(k: object) -> None:
    with pytest.raises(UserError):
        Visibility(crm()).search("delete customer", k=k)  # type: ignore[arg-type]


def test_find_tools_adds_the_best_tools_not_listed_by_rank() -> None:
    session = RoutingSession(Visibility(crm(), k=3))
    assert session.offer("weather in Paris").names == ("get_weather",)
    first = session.find_tools("delete customer")
    assert names(first.added) == ["delete_customer", "get_customer", "create_customer", "list_invoices"]
    assert names(first.already) == []
    again = session.find_tools("delete customer")
    assert names(again.added) == []
    assert names(again.already) == ["delete_customer", "get_customer", "create_customer", "list_invoices"]
    assert session.offer("weather in Paris").names == (
        "get_weather",
        "delete_customer",
        "get_customer",
        "create_customer",
        "list_invoices",
    )


def test_find_tools_adds_at_most_find_results_by_rank() -> None:
    session = RoutingSession(Visibility(crm(), k=3), limits=SessionLimits(find_results=2))
    session.offer("weather in Paris")
    assert names(session.find_tools("delete customer").added) == ["delete_customer", "get_customer"]
    assert names(session.find_tools("delete customer").added) == ["create_customer", "list_invoices"]


def test_find_tools_with_the_request_itself_finds_what_the_allow_set_left_out() -> None:
    """A model that repeats the request (the tools it got do not fit) still gets new tools."""
    session = RoutingSession(Visibility(crm(), k=1))
    assert session.offer("customer invoices").names == ("list_invoices",)
    found = session.find_tools("customer invoices")
    assert names(found.added) == ["get_customer", "delete_customer", "create_customer"]
    assert names(found.already) == ["list_invoices"]


def test_find_tools_never_finds_a_blocked_tool_by_going_wider() -> None:
    session = RoutingSession(Visibility(crm(), k=3, blocked=["get_customer", "create_customer"]))
    session.offer("weather in Paris")
    session.find_tools("delete customer")
    again = session.find_tools("delete customer")
    assert names(again.added) == []
    assert "get_customer" not in session.offer("weather in Paris").names


class AllowSetOnly:
    """A provider with `allow_set` alone: no way to search or to re-check a rule."""

    def __init__(self, visibility: Visibility) -> None:
        self.visibility = visibility
        self.catalog = visibility.catalog

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        return self.visibility.allow_set(query, principal)


def test_a_provider_without_search_or_permits_is_refused_at_setup() -> None:
    with pytest.raises(UserError, match="lacks search, permits"):
        RoutingSession(AllowSetOnly(Visibility(crm(), k=3)))  # pyright: ignore[reportArgumentType]


class BadSearch(AllowSetOnly):
    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> object:
        return ["get_customer"]

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        return self.visibility.permits(route, principal)


def test_a_search_that_gives_no_allow_set_fails_closed() -> None:
    session = RoutingSession(BadSearch(Visibility(crm(), k=3)))  # pyright: ignore[reportArgumentType]
    session.offer("weather in Paris")
    with pytest.raises(RoutingError, match="not an AllowSet"):
        session.find_tools("delete customer")
    assert session.offer("weather in Paris").names == ("get_weather",)
