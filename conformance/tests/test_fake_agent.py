"""`schemarouter.testing`: the framework-free fake agent and the raising Visibility, over Python callables."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

import pytest

from schemarouter import RoutingError, SchemaRouter, UserError, Visibility
from schemarouter.testing import FakeAgent, FakeTool, RaisingVisibility, ScriptedCall


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
