"""Conversation mode's hooks against real SDK objects and a real `Visibility` (no model, no server):
where the conversation id and the session state live, failing closed, the find-tools tool, order."""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunContextWrapper, function_tool
from agents.mcp import ToolFilterContext
from agents.tool_context import ToolContext

from schemarouter import AllowSet, Catalog, RoutingError, SchemaRouter, SessionLimits, UserError, Visibility
from schemarouter.visibility import FIND_TOOLS
from schemarouter_conformance import UNSUPPORTED_QUERIES
from schemarouter_openai_agents import (
    LOGGER_NAME,
    SESSION_KEY,
    MissingConversationError,
    MissingRequestError,
    OpenAIAgentsRouter,
    RoutedAgent,
    default_conversation_from,
    mirror_function_tools,
)

AGENT: Agent[Any] = Agent(name="under-test")
WEATHER = "what is the weather forecast for Paris this week"
CURRENCY = "convert 100 USD to EUR at today's exchange rate"
NO_ROUTE = UNSUPPORTED_QUERIES[0]


@pytest.fixture
def visibility(fixture_catalog: Catalog) -> Visibility:
    return Visibility(SchemaRouter(fixture_catalog), k=3)


@pytest.fixture
def routing(visibility: Visibility) -> OpenAIAgentsRouter:
    return OpenAIAgentsRouter(visibility, sessions=SessionLimits())


def _filter_context(context: object) -> ToolFilterContext:
    return ToolFilterContext(
        run_context=RunContextWrapper(context=context), agent=AGENT, server_name="fixture"
    )


async def _visible(routing: OpenAIAgentsRouter, context: object, tools: list[Any]) -> list[str]:
    ctx = _filter_context(context)
    return [tool.name for tool in tools if await routing.tool_filter(ctx, tool)]


async def _find(routing: OpenAIAgentsRouter, context: object, query: str) -> str:
    tool_context = ToolContext(
        context=context,
        tool_name=FIND_TOOLS.name,
        tool_call_id="find-1",
        tool_arguments=json.dumps({"query": query}),
    )
    return str(await routing.find_tools.on_invoke_tool(tool_context, json.dumps({"query": query})))


# -- the find-tools tool ---------------------------------------------------------------------------


def test_find_tools_is_offered_exactly_as_core_specifies_it(routing: OpenAIAgentsRouter) -> None:
    tool = routing.find_tools
    assert isinstance(tool, FunctionTool)
    assert (tool.name, tool.description) == (FIND_TOOLS.name, FIND_TOOLS.description)
    assert tool.strict_json_schema, "the SDK's strict mode is on, and leaves the schema as it is"
    offered = json.dumps(tool.params_json_schema, separators=(",", ":"))
    assert offered == json.dumps(FIND_TOOLS.input_schema, separators=(",", ":")), (
        "byte for byte, key order too"
    )
    assert tool.params_json_schema is not FIND_TOOLS.input_schema, "core's spec is never shared or mutated"
    assert routing.find_tools is tool, "one tool per router"


def test_find_tools_needs_conversation_mode(visibility: Visibility) -> None:
    with pytest.raises(UserError, match="conversation mode"):
        _ = OpenAIAgentsRouter(visibility).find_tools


@pytest.mark.parametrize("sessions", ["yes", True, {"max_tools": 3}])
def test_sessions_must_be_session_limits(visibility: Visibility, sessions: Any) -> None:
    with pytest.raises(UserError, match="SessionLimits"):
        OpenAIAgentsRouter(visibility, sessions=sessions)


def test_conversation_mode_needs_a_provider_with_a_catalog(visibility: Visibility) -> None:
    class Bare:
        def allow_set(self, query: str, principal: object = None) -> AllowSet:
            return visibility.allow_set(query)

    with pytest.raises(UserError, match="lacks catalog, search, permits"):
        OpenAIAgentsRouter(Bare(), sessions=SessionLimits())  # pyright: ignore[reportArgumentType]
    with pytest.raises(UserError, match="lacks catalog, search, permits"):
        OpenAIAgentsRouter(Bare())  # pyright: ignore[reportArgumentType]  # per request too: calls are re-checked


async def test_find_tools_adds_to_the_list_the_next_step_shows(
    routing: OpenAIAgentsRouter, fixture_tools: list[Any]
) -> None:
    context = {"query": WEATHER, "conversation": "c-1"}
    assert await _visible(routing, context, fixture_tools) == ["get_weather_forecast"]
    text = await _find(routing, context, "convert currency")
    assert "convert_currency" in text
    # find-tools adds its best match first, then runners-up (up to `SessionLimits.find_results`)
    found = routing.outcome(RunContextWrapper(context=context)).tool_names
    assert found[:3] == ("find_tools", "get_weather_forecast", "convert_currency")
    assert len(found) <= 2 + SessionLimits().find_results
    visible = await _visible(routing, context, fixture_tools)
    assert {"get_weather_forecast", "convert_currency"} <= set(visible)
    assert set(visible) == set(found) - {"find_tools"}


async def test_find_tools_is_enabled_only_while_the_conversation_offers_it(
    visibility: Visibility,
) -> None:
    on = OpenAIAgentsRouter(visibility, sessions=SessionLimits())
    off = OpenAIAgentsRouter(visibility, sessions=SessionLimits(find_tools=False))
    run = RunContextWrapper(context={"query": NO_ROUTE, "conversation": "c-1"})
    assert await _enabled(on.find_tools, run)
    assert not await _enabled(off.find_tools, run)
    assert off.outcome(run).tool_names == (), "find-tools off and no route: nothing at all"
    assert not await _enabled(on.find_tools, RunContextWrapper(context={"query": NO_ROUTE})), (
        "no conversation"
    )


async def _enabled(tool: FunctionTool, run: RunContextWrapper[Any]) -> bool:
    enabled = tool.is_enabled
    assert callable(enabled)
    result = enabled(run, AGENT)
    return bool(await result) if not isinstance(result, bool) else result  # pyright: ignore[reportGeneralTypeIssues]


async def test_find_tools_answers_nothing_when_the_run_cannot_be_routed(
    routing: OpenAIAgentsRouter, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        text = await _find(routing, {"query": WEATHER}, "convert currency")
    assert "search failed" in text
    assert "convert_currency" not in text
    assert "no conversation" in caplog.text


# -- the conversation id and where the state lives ------------------------------------------------


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ({"conversation": "c-1"}, "c-1"),
        ({"conversation": ""}, None),
        ({"query": "q"}, None),
        ("a query", None),
        (None, None),
        (type("Ctx", (), {"conversation": "c-2"})(), "c-2"),
    ],
)
def test_default_conversation_from(context: object, expected: str | None) -> None:
    assert default_conversation_from(context) == expected


async def test_no_conversation_id_fails_closed(
    routing: OpenAIAgentsRouter, fixture_tools: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert await _visible(routing, {"query": WEATHER}, fixture_tools) == []
    outcome = routing.outcome(RunContextWrapper(context={"query": WEATHER}))
    assert isinstance(outcome.error, MissingConversationError)
    assert isinstance(outcome.error, MissingRequestError)
    assert outcome.tool_names == ()
    assert "names no conversation" in caplog.text


@pytest.mark.parametrize(
    ("context", "match"),
    [
        ({"query": WEATHER, "conversation": 7}, "conversation id must be a string"),
        ("weather in Paris", "names no conversation"),
        (
            dataclasses.make_dataclass("Frozen", ["query", "conversation"], frozen=True)(WEATHER, "c-1"),
            "session state",
        ),
        ({"query": WEATHER, "conversation": "c-1", SESSION_KEY: "not a state"}, "not a saved session state"),
        (
            {"query": WEATHER, "conversation": "c-1", SESSION_KEY: {"conversation_id": "c-1", "format": 99}},
            "unknown session state format",
        ),
    ],
)
async def test_an_unusable_conversation_fails_closed(
    routing: OpenAIAgentsRouter, fixture_tools: list[Any], context: object, match: str
) -> None:
    assert await _visible(routing, context, fixture_tools) == []
    outcome = routing.outcome(RunContextWrapper(context=context))
    assert isinstance(outcome.error, RoutingError)
    assert match in (outcome.failure or "")


async def test_a_raising_conversation_from_fails_closed(
    visibility: Visibility, fixture_tools: list[Any]
) -> None:
    def broken(context: object) -> str:
        raise KeyError("conversation")

    routing = OpenAIAgentsRouter(visibility, sessions=SessionLimits(), conversation_from=broken)
    assert await _visible(routing, {"query": WEATHER, "conversation": "c-1"}, fixture_tools) == []
    failure = routing.outcome(RunContextWrapper(context={"query": WEATHER})).failure
    assert "conversation_from raised KeyError" in (failure or "")


async def test_the_state_is_plain_data_in_the_run_context(
    routing: OpenAIAgentsRouter, fixture_tools: list[Any]
) -> None:
    context: dict[str, Any] = {"query": WEATHER, "conversation": "c-1"}
    await _visible(routing, context, fixture_tools)
    saved = context[SESSION_KEY]
    assert json.loads(json.dumps(saved)) == saved
    assert saved["conversation_id"] == "c-1"
    assert saved["routes"] == ["fixture:get_weather_forecast"]


async def test_a_dataclass_context_keeps_the_state_in_its_field(
    routing: OpenAIAgentsRouter, fixture_tools: list[Any]
) -> None:
    @dataclasses.dataclass
    class AppContext:
        query: str
        conversation: str
        schemarouter_session: dict[str, Any] | None = None

    context = AppContext(WEATHER, "c-1")
    assert await _visible(routing, context, fixture_tools) == ["get_weather_forecast"]
    assert context.schemarouter_session is not None
    assert context.schemarouter_session["routes"] == ["fixture:get_weather_forecast"]


async def test_the_saved_state_wins_over_the_routers_memory(
    visibility: Visibility, fixture_tools: list[Any]
) -> None:
    """A context carrying an older state (a checkpoint) offers what that state offered."""
    routing = OpenAIAgentsRouter(visibility, sessions=SessionLimits())
    context: dict[str, Any] = {"query": WEATHER, "conversation": "c-1"}
    await _visible(routing, context, fixture_tools)
    checkpoint = json.loads(json.dumps(context))
    context["query"] = CURRENCY
    assert await _visible(routing, context, fixture_tools) == ["get_weather_forecast", "convert_currency"]
    assert await _visible(routing, checkpoint, fixture_tools) == ["get_weather_forecast"]


async def test_a_fresh_context_continues_the_conversation_it_names(
    routing: OpenAIAgentsRouter, fixture_tools: list[Any]
) -> None:
    await _visible(routing, {"query": WEATHER, "conversation": "c-1"}, fixture_tools)
    later = {"query": CURRENCY, "conversation": "c-1"}
    assert await _visible(routing, later, fixture_tools) == ["get_weather_forecast", "convert_currency"]


async def test_a_forgotten_session_is_rebuilt_from_the_context(
    visibility: Visibility, fixture_tools: list[Any]
) -> None:
    routing = OpenAIAgentsRouter(visibility, sessions=SessionLimits(), cache_size=1)
    first: dict[str, Any] = {"query": WEATHER, "conversation": "c-1"}
    await _visible(routing, first, fixture_tools)
    await _visible(routing, {"query": CURRENCY, "conversation": "c-2"}, fixture_tools)  # c-1 forgotten
    first["query"] = CURRENCY
    assert await _visible(routing, first, fixture_tools) == ["get_weather_forecast", "convert_currency"]
    assert await _visible(routing, {"query": NO_ROUTE, "conversation": "c-1"}, fixture_tools) == [
        "get_weather_forecast",
        "convert_currency",
    ]


async def test_a_state_saved_for_another_conversation_fails_closed(
    routing: OpenAIAgentsRouter, fixture_tools: list[Any]
) -> None:
    context: dict[str, Any] = {"query": WEATHER, "conversation": "c-1"}
    await _visible(routing, context, fixture_tools)
    context["conversation"] = "c-2"
    assert await _visible(routing, context, fixture_tools) == []
    failure = routing.outcome(RunContextWrapper(context=context)).failure
    assert "belongs to conversation" in (failure or "")


async def test_a_state_saved_for_another_principal_fails_closed(
    routing: OpenAIAgentsRouter, fixture_tools: list[Any]
) -> None:
    context: dict[str, Any] = {"query": WEATHER, "conversation": "c-1", "principal": "alice"}
    await _visible(routing, context, fixture_tools)
    context["principal"] = "mallory"
    assert await _visible(routing, context, fixture_tools) == []
    failure = routing.outcome(RunContextWrapper(context=context)).failure
    assert "another principal" in (failure or "")


async def test_conversations_and_principals_never_share_a_list(
    routing: OpenAIAgentsRouter, fixture_tools: list[Any]
) -> None:
    await _visible(routing, {"query": WEATHER, "conversation": "c-1", "principal": "alice"}, fixture_tools)
    assert await _visible(
        routing, {"query": CURRENCY, "conversation": "c-2", "principal": "alice"}, fixture_tools
    ) == ["convert_currency"]
    assert await _visible(
        routing, {"query": CURRENCY, "conversation": "c-1", "principal": "bob"}, fixture_tools
    ) == ["convert_currency"]


async def test_a_gated_function_tool_follows_the_conversations_list(
    fixture_catalog: Catalog,
) -> None:
    @function_tool(needs_approval=True)
    def refund_policy(country: str) -> str:
        """Look up the refund policy that applies to invoices in a country."""
        return country

    catalog = Catalog.merge(fixture_catalog, mirror_function_tools([refund_policy]))
    routing = OpenAIAgentsRouter(Visibility(SchemaRouter(catalog), k=3), sessions=SessionLimits())
    routing.gate(refund_policy)
    context: dict[str, Any] = {"query": WEATHER, "conversation": "c-1"}
    run = RunContextWrapper(context=context)
    assert not await _enabled(refund_policy, run)
    assert "refund_policy" in await _find(routing, context, "refund policy for invoices")
    assert await _enabled(refund_policy, RunContextWrapper(context=context))
    assert refund_policy.needs_approval is True, "the tool's own approval is untouched"


# -- order -----------------------------------------------------------------------------------------


async def test_order_tools_puts_find_tools_first_and_the_list_in_first_offered_order(
    routing: OpenAIAgentsRouter, fixture_tools: list[Any]
) -> None:
    context: dict[str, Any] = {"query": CURRENCY, "conversation": "c-1"}
    await _visible(routing, context, fixture_tools)
    await _find(routing, context, "weather forecast")
    run = RunContextWrapper(context=context)
    assert routing.outcome(run).visible_names == ("convert_currency", "get_weather_forecast")

    @function_tool
    def always_there() -> str:
        """A tool the router does not route."""
        return ""

    by_name = {tool.name: tool for tool in fixture_tools}
    sdk_order = [
        by_name["get_weather_forecast"],
        by_name["convert_currency"],
        always_there,
        routing.find_tools,
    ]
    ordered = routing.order_tools(run, sdk_order)
    assert [tool.name for tool in ordered] == [
        "find_tools",
        "always_there",
        "convert_currency",
        "get_weather_forecast",
    ]


def test_routed_agent_keeps_its_router_through_clone(routing: OpenAIAgentsRouter) -> None:
    agent = RoutedAgent(name="support", routing=routing, tools=[routing.find_tools])
    clone = agent.clone(name="other")
    assert isinstance(clone, RoutedAgent)
    assert clone.routing is routing
