"""`schemarouter.testing`: the framework-free fake agent (per turn and in conversation mode) and the
raising Visibility, over Python callables."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from typing import Any

import pytest

from schemarouter import RoutingError, SchemaRouter, SessionLimits, UserError, Visibility
from schemarouter.testing import SESSIONS_KEY, FakeAgent, FakeTool, RaisingVisibility, ScriptedCall
from schemarouter.visibility import FIND_TOOLS


def get_weather_forecast(city: str) -> str:
    """Get the weather forecast for a city."""
    return f"sunny in {city}"


def delete_customer(customer_id: str) -> str:
    """Permanently delete a customer record."""
    return f"deleted {customer_id}"


def search_customers(query: str) -> str:
    """Search customer records by name."""
    return f"found {query}"


FUNCTIONS = (get_weather_forecast, delete_customer, search_customers)


@pytest.fixture
def router() -> SchemaRouter:
    return SchemaRouter.from_callables(FUNCTIONS, name="py")


@pytest.fixture
def ran() -> list[tuple[str, dict[str, Any]]]:
    return []


def _tools(router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]) -> list[FakeTool]:
    bodies = {fn.__name__: fn for fn in FUNCTIONS}

    def invoker(name: str) -> Any:
        async def invoke(arguments: Mapping[str, Any]) -> str:
            ran.append((name, dict(arguments)))
            return bodies[name](**arguments)

        return invoke

    return [
        FakeTool(cap.name, cap.input_schema, invoker(cap.name), cap.description, "py")
        for cap in router.catalog
    ]


def _agent(router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]], **kwargs: Any) -> FakeAgent:
    return FakeAgent(_tools(router, ran), kwargs.pop("visibility", Visibility(router, k=2)), **kwargs)


def test_offers_exactly_the_allow_set(router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]) -> None:
    async def scenario() -> None:
        visibility = Visibility(router, k=2)
        agent = _agent(router, ran, visibility=visibility)
        assert visibility.allow_set("what is the weather forecast in Paris").names, "precondition: it routes"
        for query in ("what is the weather forecast in Paris", "tell me a joke"):
            result = await agent.run(query)
            assert result.outcome == "no_call"
            assert result.turn.names == tuple(
                n for n in (c.name for c in router.catalog) if n in visibility.allow_set(query).names
            )
        assert ran == []

    asyncio.run(scenario())


def test_hidden_tool_is_refused_and_never_runs(
    router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]
) -> None:
    async def scenario() -> None:
        agent = _agent(router, ran)
        result = await agent.run(
            "weather forecast for Paris", call=ScriptedCall("delete_customer", {"customer_id": "c-1"})
        )
        assert result.outcome == "refused_hidden"
        assert "delete_customer" in result.detail
        assert ran == []

    asyncio.run(scenario())


def test_approval_pauses_rejects_and_runs_once(
    router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]
) -> None:
    async def scenario() -> None:
        agent = _agent(router, ran, approval_required={"delete_customer"})
        query = "permanently delete customer record c-1"
        paused = await agent.run(query, call=ScriptedCall("delete_customer", {"customer_id": "c-1"}))
        assert paused.outcome == "awaiting_approval"
        assert paused.pending is not None
        assert (await agent.resume(paused.pending, approve=False)).outcome == "rejected"
        assert ran == []
        approved = await agent.resume(paused.pending, approve=True)
        assert approved.outcome == "ran"
        assert approved.output == "deleted c-1"
        assert ran == [("delete_customer", {"customer_id": "c-1"})]

    asyncio.run(scenario())


def test_resume_rechecks_visibility_for_the_paused_request(
    router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]
) -> None:
    async def scenario() -> None:
        visibility = Visibility(router, k=2)
        agent = _agent(router, ran, visibility=visibility, approval_required={"delete_customer"})
        paused = await agent.run(
            "permanently delete customer record c-1",
            call=ScriptedCall("delete_customer", {"customer_id": "c-1"}),
        )
        assert paused.pending is not None
        agent.visibility = Visibility(router, k=2, blocked={"delete_customer"})
        assert (await agent.resume(paused.pending, approve=True)).outcome == "refused_hidden"
        assert ran == []

    asyncio.run(scenario())


def test_guardrails_block_inputs_and_see_outputs(
    router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]
) -> None:
    async def scenario() -> None:
        seen: list[tuple[str, Any]] = []

        def input_guardrail(tool: str, arguments: Mapping[str, Any]) -> str | None:
            return "no secrets" if "secret" in str(arguments) else None

        async def output_guardrail(tool: str, output: Any) -> None:
            seen.append((tool, output))

        agent = _agent(router, ran, input_guardrail=input_guardrail, output_guardrail=output_guardrail)
        query = "search customer records by name"
        blocked = await agent.run(query, call=ScriptedCall("search_customers", {"query": "secret"}))
        assert (blocked.outcome, blocked.detail, ran) == ("blocked_by_input_guardrail", "no secrets", [])
        done = await agent.run(query, call=ScriptedCall("search_customers", {"query": "Ada"}))
        assert done.outcome == "ran"
        assert done.output_seen_by_guardrail
        assert seen == [("search_customers", "found Ada")]

    asyncio.run(scenario())


@pytest.mark.parametrize("query", ["weather forecast for Paris", None])
def test_fails_closed_and_logs(
    router: SchemaRouter,
    ran: list[tuple[str, dict[str, Any]]],
    caplog: pytest.LogCaptureFixture,
    query: str | None,
) -> None:
    async def scenario() -> None:
        raising = RaisingVisibility(router)
        agent = _agent(router, ran, visibility=raising if query else Visibility(router))
        with caplog.at_level(logging.WARNING, logger="schemarouter.testing"):
            result = await agent.run(query, call=ScriptedCall("get_weather_forecast", {"city": "Paris"}))
        assert result.outcome == "refused_hidden"
        assert result.turn.names == ()
        assert result.turn.failure
        assert any(r.name == "schemarouter.testing" and r.levelno == logging.WARNING for r in caplog.records)
        assert raising.calls == (1 if query else 0)
        assert ran == []

    asyncio.run(scenario())


def test_raising_visibility_raises_a_routing_error(router: SchemaRouter) -> None:
    with pytest.raises(RoutingError):
        RaisingVisibility(router).allow_set("anything")
    with pytest.raises(KeyError):
        RaisingVisibility(router, error=KeyError("boom")).allow_set("anything")


def test_tool_names_must_be_unique(router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]) -> None:
    tools = _tools(router, ran)
    with pytest.raises(UserError, match="unique"):
        FakeAgent([*tools, tools[0]], Visibility(router))


# -- conversation mode ----------------------------------------------------------------------------

JOKE = "tell me a joke about cats"
WEATHER = "what is the weather forecast in Paris"
FIND_DELETE = ScriptedCall(FIND_TOOLS.name, {FIND_TOOLS.argument: "delete customer record"})
FOUND = (FIND_TOOLS.name, "delete_customer", "search_customers")
"""What the list holds after FIND_DELETE: both tools routed for "delete customer record" (find-tools
adds up to `SessionLimits.find_results` tools, whatever the visibility's k)."""


def _conversing(router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]], **kwargs: Any) -> FakeAgent:
    """A fake agent in conversation mode; one tool per request (k=1) keeps the lists short."""
    kwargs.setdefault("visibility", Visibility(router, k=1))
    return _agent(router, ran, sessions=kwargs.pop("sessions", SessionLimits()), **kwargs)


def test_conversation_offers_find_tools_first_and_the_list_grows(
    router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]
) -> None:
    async def scenario() -> None:
        agent = _conversing(router, ran)
        context: dict[str, Any] = {}
        first = await agent.run(JOKE, conversation="c-1", context=context)
        assert first.turn.names == (FIND_TOOLS.name,)
        find_tool = first.turn.tools[0]
        assert (find_tool.input_schema, find_tool.description) == (
            FIND_TOOLS.input_schema,
            FIND_TOOLS.description,
        )
        second = await agent.run(WEATHER, conversation="c-1", context=context)
        third = await agent.run("search customer records by name", conversation="c-1", context=context)
        assert second.turn.names == (FIND_TOOLS.name, "get_weather_forecast")
        assert third.turn.names == (*second.turn.names, "search_customers")
        assert third.turn.session is not None
        assert third.turn.session.tool_names == third.turn.names
        saved = context[SESSIONS_KEY]["c-1"]
        assert json.loads(json.dumps(saved)) == saved  # plain data
        assert saved["turn"] == 3
        assert ran == []

    asyncio.run(scenario())


def test_found_tool_is_offered_next_and_keeps_its_approval(
    router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]
) -> None:
    async def scenario() -> None:
        agent = _conversing(router, ran, approval_required={"delete_customer"})
        context: dict[str, Any] = {}
        found = await agent.run(JOKE, call=FIND_DELETE, conversation="c-1", context=context)
        assert (found.outcome, found.tool) == ("ran", FIND_TOOLS.name)
        assert "delete_customer" in found.output
        assert found.turn.names == (FIND_TOOLS.name,)
        assert found.next_turn is not None
        assert found.next_turn.names == FOUND
        assert ran == []  # find-tools runs no tool body
        call = ScriptedCall("delete_customer", {"customer_id": "c-1"})
        paused = await agent.run(JOKE, call=call, conversation="c-1", context=context)
        assert (paused.outcome, paused.next_turn) == ("awaiting_approval", None)
        assert paused.pending is not None
        assert paused.pending.conversation == "c-1"
        assert (await agent.resume(paused.pending, approve=False, context=context)).outcome == "rejected"
        assert ran == []
        approved = await agent.resume(paused.pending, approve=True, context=context)
        assert approved.outcome == "ran"
        assert ran == [("delete_customer", {"customer_id": "c-1"})]
        assert approved.next_turn is not None
        assert approved.next_turn.names == FOUND

    asyncio.run(scenario())


def test_the_context_carries_the_conversation(
    router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]
) -> None:
    """A new agent given the saved context goes on where the conversation was; a fresh context,
    or another conversation id, starts over."""

    async def scenario() -> None:
        context: dict[str, Any] = {}
        await _conversing(router, ran).run(JOKE, call=FIND_DELETE, conversation="c-1", context=context)
        saved = json.loads(json.dumps(context))
        later = _conversing(router, ran)
        assert (await later.run(JOKE, conversation="c-1", context=saved)).turn.names == FOUND
        assert (await later.run(JOKE, conversation="c-2", context=saved)).turn.names == (FIND_TOOLS.name,)
        assert (await later.run(JOKE, conversation="c-1", context={})).turn.names == (FIND_TOOLS.name,)

    asyncio.run(scenario())


@pytest.mark.parametrize("conversation", [None, ""])
def test_conversation_mode_fails_closed_without_a_conversation_id(
    router: SchemaRouter,
    ran: list[tuple[str, dict[str, Any]]],
    caplog: pytest.LogCaptureFixture,
    conversation: str | None,
) -> None:
    async def scenario() -> None:
        agent = _conversing(router, ran)
        with caplog.at_level(logging.WARNING, logger="schemarouter.testing"):
            result = await agent.run(
                WEATHER,
                call=ScriptedCall("get_weather_forecast", {"city": "Paris"}),
                conversation=conversation,
                context={},
            )
        assert (result.outcome, result.turn.names) == ("refused_hidden", ())
        assert result.turn.failure is not None
        assert "conversation id" in result.turn.failure
        assert any(r.name == "schemarouter.testing" and r.levelno == logging.WARNING for r in caplog.records)
        assert ran == []

    asyncio.run(scenario())


def test_another_principal_gets_nothing_from_a_conversations_state(
    router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]
) -> None:
    async def scenario() -> None:
        agent = _conversing(router, ran)
        context: dict[str, Any] = {}
        assert (await agent.run(WEATHER, "alice", conversation="c-1", context=context)).turn.names
        other = await agent.run(WEATHER, "bob", conversation="c-1", context=context)
        assert other.turn.names == ()
        assert other.turn.failure is not None
        assert "SessionStateError" in other.turn.failure

    asyncio.run(scenario())


def test_find_tools_turned_off_offers_nothing_without_a_route(
    router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]
) -> None:
    async def scenario() -> None:
        agent = _conversing(router, ran, sessions=SessionLimits(find_tools=False))
        context: dict[str, Any] = {}
        assert (await agent.run(JOKE, conversation="c-1", context=context)).turn.names == ()
        refused = await agent.run(JOKE, call=FIND_DELETE, conversation="c-1", context=context)
        assert refused.outcome == "refused_hidden"
        assert (await agent.run(WEATHER, conversation="c-1", context=context)).turn.names == (
            "get_weather_forecast",
        )

    asyncio.run(scenario())


def test_conversation_mode_misuse_is_a_user_error(
    router: SchemaRouter, ran: list[tuple[str, dict[str, Any]]]
) -> None:
    with pytest.raises(UserError, match="context="):
        asyncio.run(_conversing(router, ran).run(WEATHER, conversation="c-1"))
    tools = _tools(router, ran)
    clash = FakeTool(FIND_TOOLS.name, {"type": "object"}, tools[0].invoke)
    with pytest.raises(UserError, match="find-tools"):
        FakeAgent([*tools, clash], Visibility(router), sessions=SessionLimits())
    with pytest.raises(UserError, match="SessionLimits"):
        FakeAgent(tools, Visibility(router), sessions={"find_tools": False})  # pyright: ignore[reportArgumentType]
