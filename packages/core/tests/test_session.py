"""RoutingSession: a conversation's list only grows, find-tools reaches what routing missed,
and the same rules (static rules, principals, the gate) hold at every step."""

from __future__ import annotations

import json
import threading
from collections.abc import Hashable

import pytest

from schemarouter import (
    AllowSet,
    Catalog,
    RoutingError,
    RoutingSession,
    SchemaRouter,
    SessionLimits,
    SessionState,
    SessionStateError,
    ToolSpec,
    UserError,
    Visibility,
)
from schemarouter.visibility import FIND_TOOLS

TOOLS = [
    ToolSpec("get_weather", "Current weather and temperature for a city."),
    ToolSpec("convert_currency", "Convert an amount of money from one currency to another."),
    ToolSpec("send_email", "Send an email message to a recipient."),
    ToolSpec("list_invoices", "List a customer's invoices, filtered by payment status."),
    ToolSpec("delete_customer", "Permanently delete a customer record from the CRM."),
    ToolSpec("translate_text", "Translate text into another language."),
    ToolSpec("search_flights", "Search flights between two airports on a date."),
]
CATALOG = Catalog.from_specs("app", TOOLS)


def visibility(**rules: object) -> Visibility:
    return Visibility(SchemaRouter(CATALOG), k=3, **rules)  # type: ignore[arg-type]


def session(vis: Visibility | None = None, **kwargs: object) -> RoutingSession:
    return RoutingSession(vis or visibility(), conversation_id="c-1", **kwargs)  # type: ignore[arg-type]


def test_each_turn_starts_with_the_previous_turns_list() -> None:
    s = session()
    first = s.offer("what's the weather in Lisbon?")
    assert first.names == ("get_weather",)
    assert first.added == ("app:get_weather",)
    second = s.offer("convert 100 dollars to euros")
    assert second.names[: len(first.names)] == first.names
    assert second.names == ("get_weather", "convert_currency")
    assert second.added == ("app:convert_currency",)
    assert not second.reset
    again = s.offer("what's the weather in Lisbon?")  # a tool offered before is not appended twice
    assert again.names == second.names
    assert again.added == ()
    assert s.state.turn == 3


def test_the_next_step_of_a_turn_is_not_routed_again() -> None:
    s = session()
    s.offer("send an email to Ada")
    step = s.offer("send an email to Ada")
    assert step.added == ()
    assert s.state.turn == 1


def test_no_route_offers_find_tools_alone_and_nothing_when_it_is_off() -> None:
    on = session().offer("tell me a joke about cats")
    assert on.outcome == "no_route"
    assert on.routes == ()
    assert on.find_tools
    off = session(limits=SessionLimits(find_tools=False)).offer("tell me a joke about cats")
    assert off.routes == ()
    assert not off.find_tools


def test_find_tools_adds_what_routing_missed_for_the_next_step() -> None:
    s = session()
    s.offer("I need to get to Denver next Friday")  # shares no word with search_flights
    assert "search_flights" not in s.names
    result = s.find_tools("search flights")
    assert [t.name for t in result.added] == ["search_flights"]
    assert "search_flights" in result.text()
    assert "next step" in result.text()
    step = s.offer("I need to get to Denver next Friday")
    assert "search_flights" in step.names


def test_find_tools_says_what_is_already_there_and_when_nothing_fits() -> None:
    s = session()
    s.offer("what's the weather in Lisbon?")
    result = s.find_tools("weather")
    assert result.added == ()
    assert [t.name for t in result.already] == ["get_weather"]
    assert "Already available" in result.text()
    nothing = s.find_tools("write a sonnet")
    assert nothing.found == ()
    assert "No tool fits" in nothing.text()


def test_find_tools_is_bounded_per_turn_and_refuses_an_empty_query() -> None:
    s = session(limits=SessionLimits(find_calls_per_turn=2))
    s.offer("hello")
    assert s.find_tools("   ").refused == "empty_query"
    s.find_tools("weather")
    s.find_tools("currency")
    over = s.find_tools("email")
    assert over.refused == "too_many_calls"
    assert "send_email" not in {t.name for t in over.found}
    s.offer("a new request starts a new turn")
    assert s.find_tools("email").refused is None


def test_find_tools_results_are_bounded() -> None:
    query = "customer invoices and email"
    assert len(session().find_tools(query).found) > 1
    result = session(limits=SessionLimits(find_results=1)).find_tools(query)
    assert [t.name for t in result.found] == ["list_invoices"]


def test_find_tools_never_reveals_a_blocked_tool() -> None:
    assert "delete_customer" in {t.name for t in session().find_tools("delete a customer").found}
    s = session(visibility(blocked={"delete_customer"}))
    result = s.find_tools("delete a customer")
    assert "delete_customer" not in {t.name for t in result.found}
    assert "delete_customer" not in s.offer("delete customer c-200").names


class PerPrincipal:
    """A provider that shows `delete_customer` to admins only, as a principal-aware rule would."""

    def __init__(self) -> None:
        self.router = SchemaRouter(CATALOG)
        self.admin = Visibility(self.router, k=3)
        self.guest = Visibility(self.router, k=3, blocked={"delete_customer"})

    @property
    def catalog(self) -> Catalog:
        return self.router.catalog

    def _for(self, principal: Hashable | None) -> Visibility:
        return self.admin if principal == "admin" else self.guest

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        return self._for(principal).allow_set(query, principal)

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        return self._for(principal).search(query, principal, k=k)

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        return self._for(principal).permits(route, principal)


def test_find_tools_never_reveals_another_principals_tools() -> None:
    provider = PerPrincipal()
    guest = RoutingSession(provider, conversation_id="g", principal="guest")
    admin = RoutingSession(provider, conversation_id="a", principal="admin")
    assert "delete_customer" not in {t.name for t in guest.find_tools("delete a customer").found}
    assert "delete_customer" in {t.name for t in admin.find_tools("delete a customer").found}


def test_state_is_plain_data_and_a_resumed_session_offers_the_same() -> None:
    s = session(principal=("tenant", 7))
    s.offer("what's the weather in Lisbon?")
    s.find_tools("send email")
    saved = json.loads(json.dumps(s.state.to_dict()))
    resumed = RoutingSession(visibility(), principal=("tenant", 7), state=saved)
    assert resumed.state == s.state
    assert (
        resumed.offer("what's the weather in Lisbon?").names == s.offer("what's the weather in Lisbon?").names
    )


@pytest.mark.parametrize("other", [("tenant", 8), ("tenant", True), None, "tenant-7"])
def test_a_state_is_never_resumed_for_another_principal(other: Hashable | None) -> None:
    s = session(principal=("tenant", 1))
    s.offer("convert 100 dollars to euros")
    with pytest.raises(RoutingError, match="another principal"):
        RoutingSession(visibility(), principal=other, state=s.state.to_dict())


@pytest.mark.parametrize(
    "change",
    [
        {"format": 99},
        {"routes": "app:get_weather"},
        {"routes": [1, 2]},
        {"turn": -1},
        {"turn": True},
        {"resets": "1"},
        {"conversation_id": 3},
        {"surprise": 1},
    ],
)
def test_a_malformed_state_is_refused(change: dict[str, object]) -> None:
    data = session().state.to_dict() | change
    with pytest.raises(SessionStateError):
        SessionState.from_dict(data)
    with pytest.raises(SessionStateError):
        RoutingSession(visibility(), state=data)


def test_tools_gone_from_the_catalog_are_dropped_and_counted() -> None:
    s = session()
    s.offer("send an email to Ada")
    s.offer("convert 100 dollars to euros")
    smaller = Catalog.from_specs("app", [t for t in TOOLS if t.name != "send_email"])
    resumed = RoutingSession(Visibility(SchemaRouter(smaller), k=3), state=s.state)
    assert resumed.names == ("convert_currency",)
    assert resumed.state.dropped_stale == 1
    assert resumed.state.catalog_version == smaller.version


def test_a_full_list_starts_over_once_under_reset() -> None:
    s = session(limits=SessionLimits(max_tools=2))
    s.offer("what's the weather in Lisbon?")
    s.offer("convert 100 dollars to euros")
    third = s.offer("send an email to Ada")
    assert third.reset
    assert third.names == ("send_email",)
    assert s.state.resets == 1


def test_a_full_list_stays_as_it_is_under_stop() -> None:
    s = session(limits=SessionLimits(max_tools=2, on_full="stop"))
    s.offer("what's the weather in Lisbon?")
    s.offer("convert 100 dollars to euros")
    third = s.offer("send an email to Ada")
    assert not third.reset
    assert third.names == ("get_weather", "convert_currency")
    assert s.state.held_back == 1
    found = s.find_tools("send email")
    assert [t.name for t in found.held_back] == ["send_email"]
    assert "not added" in found.text()


def test_the_schema_byte_budget_counts_the_offered_definitions() -> None:
    one = CATALOG.get("app:get_weather")
    assert one is not None
    limits = SessionLimits(max_schema_bytes=one.schema_bytes, on_full="stop", max_tool_share=1.0)
    s = session(limits=limits)
    first = s.offer("what's the weather in Lisbon?")
    assert first.schema_bytes == one.schema_bytes
    assert s.offer("convert 100 dollars to euros").names == ("get_weather",)


def test_two_conversations_never_see_each_others_tools() -> None:
    vis = visibility()
    requests = {"a": "what's the weather in Lisbon?", "b": "convert 100 dollars to euros"}
    sessions = {key: RoutingSession(vis, conversation_id=key) for key in requests}
    seen: dict[str, set[tuple[str, ...]]] = {key: set() for key in requests}

    def talk(key: str) -> None:
        for _ in range(50):
            seen[key].add(sessions[key].offer(requests[key]).names)
            sessions[key].find_tools("weather" if key == "a" else "currency")

    threads = [threading.Thread(target=talk, args=(key,)) for key in requests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {"a": {("get_weather",)}, "b": {("convert_currency",)}}


def test_limits_are_checked() -> None:
    for bad in ({"max_tools": 0}, {"find_results": 1.5}, {"on_full": "evict"}, {"find_tools": 1}):
        with pytest.raises(UserError):
            SessionLimits(**bad)  # type: ignore[arg-type]


def test_the_find_tools_tool_has_one_required_string_argument() -> None:
    schema = FIND_TOOLS.input_schema
    assert FIND_TOOLS.name == "find_tools"
    assert schema["required"] == [FIND_TOOLS.argument]
    assert schema["properties"][FIND_TOOLS.argument]["type"] == "string"


def test_find_tools_comes_first_in_the_list_as_offered() -> None:
    s = session()
    first = s.offer("what's the weather in Lisbon?")
    assert first.tool_names == (FIND_TOOLS.name, "get_weather")
    second = s.offer("convert 100 dollars to euros")
    assert second.tool_names[: len(first.tool_names)] == first.tool_names
    off = session(limits=SessionLimits(find_tools=False)).offer("what's the weather in Lisbon?")
    assert off.tool_names == ("get_weather",)


def test_a_reset_by_find_tools_keeps_the_turns_own_tools() -> None:
    s = session(limits=SessionLimits(max_tools=2))
    s.offer("what's the weather in Lisbon?")
    s.offer("convert 100 dollars to euros")
    found = s.find_tools("send email")
    assert s.state.resets == 1
    assert s.names == ("convert_currency", "send_email")  # the turn's tool first, then the found one
    assert [t.name for t in found.added] == ["send_email"]
    assert found.already == ()
    step = s.offer("convert 100 dollars to euros")
    assert step.names == ("convert_currency", "send_email")


class Counting:
    def __init__(self, inner: Visibility) -> None:
        self.inner = inner
        self.catalog = inner.catalog
        self.calls = 0

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        self.calls += 1
        return self.inner.allow_set(query, principal)

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        return self.inner.search(query, principal, k=k)

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        return self.inner.permits(route, principal)


def test_every_step_asks_the_provider_and_appends_only_on_a_new_turn() -> None:
    """A provider that fails, or whose rules changed while a call waited, must be heard on the
    next step of the same turn too."""
    provider = Counting(visibility())
    s = RoutingSession(provider, conversation_id="c")
    for _ in range(3):
        assert s.offer("send an email to Ada").names == ("send_email",)
    assert provider.calls == 3
    assert s.state.turn == 1


class Changing:
    """A provider whose static rules change between steps (as when a rule is set during an approval pause)."""

    def __init__(self) -> None:
        self.vis = visibility()
        self.catalog = self.vis.catalog
        self.hidden: set[str] = set()
        self.fail = False

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        if self.fail:
            raise RoutingError("the provider is down")
        return self.vis.allow_set(query, principal)

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        return self.vis.search(query, principal, k=k)

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        return route not in self.hidden and self.vis.permits(route, principal)


def test_a_tool_a_rule_now_hides_is_not_offered_on_the_next_step() -> None:
    provider = Changing()
    s = RoutingSession(provider, conversation_id="c")
    s.offer("what's the weather in Lisbon?")
    assert s.offer("send an email to Ada").names == ("get_weather", "send_email")
    provider.hidden.add("app:send_email")
    step = s.offer("send an email to Ada")
    assert step.names == ("get_weather",)
    assert "app:send_email" in s.state.routes  # kept in the state: it comes back if the rule goes
    provider.hidden.clear()
    assert s.offer("send an email to Ada").names == ("get_weather", "send_email")


def test_a_failing_provider_is_heard_on_the_next_step() -> None:
    provider = Changing()
    s = RoutingSession(provider, conversation_id="c")
    s.offer("send an email to Ada")
    provider.fail = True
    with pytest.raises(RoutingError):
        s.offer("send an email to Ada")


def test_visibility_permits_reads_its_static_rules() -> None:
    ruled = visibility(blocked={"send_email"}, allowed={"send_email", "get_weather"})
    assert not ruled.permits("app:send_email")
    assert ruled.permits("app:get_weather")
    assert not ruled.permits("app:convert_currency")
    assert not ruled.permits("app:no_such_tool")
