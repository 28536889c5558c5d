"""`schemarouter.adapter.SessionCache`: a live session is used only while it is what the stored
state says; `stored_state` / `store_state` read and write that state in a run context or deps."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import pytest

from schemarouter import Catalog, RoutingError, SchemaRouter, SessionLimits, ToolSpec, Visibility
from schemarouter.adapter import (
    SESSION_FIELD,
    SessionCache,
    listed_allow_set,
    store_state,
    stored_state,
)

TOOLS = [
    ToolSpec("get_weather", "Current weather and temperature for a city."),
    ToolSpec("convert_currency", "Convert an amount of money from one currency to another."),
    ToolSpec("send_email", "Send an email message to a recipient."),
    ToolSpec("search_flights", "Search flights between two airports on a date."),
]
KEY = "k" * 32


def cache(*, resume_unsaved: bool = True, size: int = 8, tools: list[ToolSpec] = TOOLS) -> SessionCache:
    vis = Visibility(SchemaRouter(Catalog.from_specs("app", tools)), k=3)
    return SessionCache(vis, SessionLimits(), size=size, key=KEY, resume_unsaved=resume_unsaved)


def test_a_session_goes_on_while_the_stored_state_is_its_own() -> None:
    sessions = cache()
    live = sessions.session("c-1", "ann", None)
    _, step = live.offer("what's the weather in Lisbon?", None)
    assert step.changed
    assert step.state["routes"] == ["app:get_weather"]
    assert sessions.session("c-1", "ann", step.state) is live
    _, again = live.offer("what's the weather in Lisbon?", step.state)
    assert not again.changed  # the next step of the same turn: nothing to store


def test_another_stored_state_rebuilds_the_session_from_it() -> None:
    sessions = cache()
    live = sessions.session("c-1", "ann", None)
    _, first = live.offer("what's the weather in Lisbon?", None)
    _, second = live.offer("convert 100 dollars to euros", first.state)
    # an older checkpoint wins over the live session, which has gone further
    older = sessions.session("c-1", "ann", first.state)
    assert older is not live
    assert older.session.state.to_dict() == first.state
    assert second.state != first.state


def test_an_edit_in_place_is_not_passed_over() -> None:
    sessions = cache()
    live = sessions.session("c-1", "ann", None)
    _, step = live.offer("what's the weather in Lisbon?", None)
    step.state["routes"] = ["app:get_weather", "app:send_email"]  # edited where it is kept
    with pytest.raises(RoutingError, match="fails its seal"):
        sessions.session("c-1", "ann", step.state)


def test_no_stored_state_resumes_or_restarts_as_configured() -> None:
    for resume, expect_same in ((True, True), (False, False)):
        sessions = cache(resume_unsaved=resume)
        live = sessions.session("c-1", "ann", None)
        _, step = live.offer("what's the weather in Lisbon?", None)
        assert step.changed
        again = sessions.session("c-1", "ann", None)
        assert (again is live) is expect_same
        if not expect_same:
            assert again.session.state.turn == 0  # a new conversation: nothing kept


def test_principals_and_scopes_never_share_a_session() -> None:
    sessions = cache()
    ann = sessions.session("c-1", "ann", None)
    _, step = ann.offer("what's the weather in Lisbon?", None)
    assert sessions.session("c-1", "bob", None) is not ann
    assert sessions.session("c-1", 1, None) is not sessions.session("c-1", True, None)
    assert sessions.session("c-1", "ann", None, scope="thread-2") is not ann
    with pytest.raises(RoutingError):  # ann's stored state is not bob's
        sessions.session("c-1", "bob", step.state, scope="thread-3")


def test_siblings_of_one_step_share_the_session_that_step_grew() -> None:
    sessions = cache(resume_unsaved=False)
    live = sessions.session("c-1", "ann", None, step="s1")
    _, model_step = live.offer("what's the weather in Lisbon?", None)
    saved = model_step.state
    first = sessions.session("c-1", "ann", saved, step="s2")
    found, after = first.find("send an email", saved, call="call-1")
    assert after.changed
    assert "app:send_email" in after.state["routes"]
    sibling = sessions.session("c-1", "ann", saved, step="s2")  # started from the same stored state
    assert sibling is first
    # a call id seen again gets its first answer, neither searched nor counted again
    assert first.find("send an email", saved, call="call-1") == (found, after)
    assert sessions.session("c-1", "ann", saved, step="s3") is not first  # a later step: rebuilt


def test_a_reloaded_catalog_rebuilds_the_live_session() -> None:
    sessions = cache()
    live = sessions.session("c-1", "ann", None)
    live.offer("what's the weather in Lisbon?", None)
    smaller = Visibility(SchemaRouter(Catalog.from_specs("app", TOOLS[1:])), k=3)
    sessions.provider = smaller  # a provider whose catalog was reloaded
    again = sessions.session("c-1", "ann", None)
    assert again is not live
    assert again.session.state.routes == ()  # its tool is gone from the catalog


def test_the_cache_is_bounded() -> None:
    sessions = cache(size=2)
    for conversation in ("a", "b", "c"):
        sessions.session(conversation, None, None)
    assert len(sessions) == 2


def test_parallel_calls_grow_one_list_one_after_the_other() -> None:
    sessions = cache()
    live = sessions.session("c-1", None, None)
    live.offer("what's the weather in Lisbon?", None)
    threads = [
        threading.Thread(target=live.find, args=(query, None))
        for query in ("send an email", "search flights")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(live.session.state.routes) == {"app:get_weather", "app:send_email", "app:search_flights"}


def test_listed_allow_set_is_the_conversations_list() -> None:
    sessions = cache()
    live = sessions.session("c-1", "ann", None)
    offer, _ = live.offer("what's the weather in Lisbon?", None)
    listed = listed_allow_set("what's the weather in Lisbon?", "ann", live.session, offer)
    assert (listed.routes, listed.names, listed.reason) == (offer.routes, offer.names, "routed")
    assert listed.catalog_version == live.session.state.catalog_version
    empty = sessions.session("c-2", "ann", None)
    nothing = listed_allow_set("hello", "ann", empty.session)
    assert nothing.no_route
    assert nothing.routes == ()


@dataclass
class Holder:
    schemarouter_session: dict[str, Any] | None = None


@pytest.mark.parametrize("holder", [{}, Holder()], ids=["mapping", "attribute"])
def test_state_is_stored_and_read_back(holder: object) -> None:
    assert stored_state(holder) is None
    store_state(holder, {"turn": 1})
    assert stored_state(holder) == {"turn": 1}


@pytest.mark.parametrize("holder", [None, "text", (), {"a": 1}.keys(), object()])
def test_a_holder_that_cannot_keep_state_is_a_routing_error(holder: object) -> None:
    with pytest.raises(RoutingError, match="cannot hold"):
        store_state(holder, {"turn": 1})


def test_a_stored_value_that_is_no_state_is_a_routing_error() -> None:
    with pytest.raises(RoutingError, match="not a saved session state"):
        stored_state({SESSION_FIELD: ["app:get_weather"]})


def test_an_edit_in_place_within_a_step_is_not_taken_for_a_sibling() -> None:
    sessions = cache(resume_unsaved=False)
    _, first = sessions.session("c-1", "ann", None, step="s1").offer("what's the weather in Lisbon?", None)
    saved = first.state
    sessions.session("c-1", "ann", saved, step="s2")  # the step starts from the stored state
    saved["routes"].append("app:send_email")  # edited where it is kept, during that step
    with pytest.raises(RoutingError, match="fails its seal"):
        sessions.session("c-1", "ann", saved, step="s2")
