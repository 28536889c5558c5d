"""Native mode (`router.native_tools()`): a fixed `tools` array, SchemaRouter as the provider's
tool search, each turn's routed tools revealed up front.

PydanticAI's real OpenAI Responses and Anthropic model classes talk through the real SDK clients
to the conformance package's recording fake provider (127.0.0.1); the recorded requests are what
the provider's prompt cache would see.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Sequence
from typing import Any

import pytest

pytest.importorskip("openai", reason="openai is a dev dependency of the prompt-cache measurements")
pytest.importorskip("anthropic", reason="anthropic is a dev dependency of the prompt-cache measurements")

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.capabilities import ToolSearch, Toolset
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolAvailabilityDeltaPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset

from schemarouter import SchemaRouter, SessionLimits, Visibility
from schemarouter_conformance import (
    FakeProviderServer,
    PromptView,
    Text,
    ToolCall,
    ToolSearchCall,
    cache_breaks,
    prompt_view,
)
from schemarouter_pydantic_ai import (
    LOGGER_NAME,
    AdapterSetupError,
    ConversationDeps,
    NativeRoutedTools,
    PydanticAIRouter,
    RoutingRequest,
    catalog_from_function_toolset,
)

from .conftest import convert_currency, get_weather_forecast, local_tools
from .test_prompt_cache import model

APIS = ["responses", "messages"]
WEATHER = "what is the weather forecast for Paris"
CONVERT = "convert 100 USD to EUR"
WEATHER_CALL = ToolCall("get_weather_forecast", {"city": "Paris"})
CONVERT_CALL = ToolCall("convert_currency", {"amount": 100, "from_currency": "USD", "to_currency": "EUR"})
EVERY_TOOL = {"search_customers", "get_weather_forecast", "convert_currency", "delete_customer"}


def search(api: str, words: str) -> Any:
    """The model's search, in the form the request offers it: OpenAI's client-executed
    `tool_search` on Responses, PydanticAI's `search_tools` with `tool_reference` results on Anthropic."""
    return ToolSearchCall((words,)) if api == "responses" else ToolCall("search_tools", {"queries": [words]})


def catalog_visibility(**rules: Any) -> Visibility:
    return Visibility(SchemaRouter(catalog_from_function_toolset("local", local_tools())), k=3, **rules)


async def converse(
    api: str, capabilities: list[Any], script: list[Any], turns: Sequence[RoutingRequest], toolset: Any = None
) -> tuple[list[PromptView], list[str]]:
    """Run `turns` as one conversation (history carried over); the requests' views and outputs."""
    outputs: list[str] = []
    with FakeProviderServer(script) as fake:
        agent = Agent(model(api, fake), toolsets=[toolset or local_tools()], capabilities=capabilities)
        history: list[Any] = []
        for turn in turns:
            result = await agent.run(turn.query, deps=turn, message_history=history)
            history = result.all_messages()
            outputs.append(result.output)
    assert fake.errors == []
    assert {r.api for r in fake.requests} == {api}
    return [prompt_view(r) for r in fake.requests], outputs


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    ("mode", "breaks"), [("session", [(2, ("tools",), "tools +convert_currency")]), ("native", [])]
)
async def test_native_mode_keeps_the_cache_that_session_mode_breaks(
    api: str, mode: str, breaks: list[Any], visibility: Visibility, body_calls: list[Any]
) -> None:
    script = [WEATHER_CALL, Text("Sunny."), CONVERT_CALL, Text("92 EUR.")]
    with FakeProviderServer(script) as fake:
        if mode == "session":
            toolset: Any = PydanticAIRouter(visibility, sessions=SessionLimits()).toolset(local_tools())
            agent = Agent(model(api, fake), toolsets=[toolset])
        else:
            agent = Agent(
                model(api, fake),
                toolsets=[local_tools()],
                capabilities=[PydanticAIRouter(visibility).native_tools()],
            )
        deps = ConversationDeps(WEATHER, conversation="c-1")
        first = await agent.run(WEATHER, deps=deps)
        deps.query = CONVERT
        second = await agent.run(CONVERT, deps=deps, message_history=first.all_messages())
    assert (first.output, second.output) == ("Sunny.", "92 EUR.")
    assert [name for name, _ in body_calls] == ["get_weather_forecast", "convert_currency"]
    assert fake.errors == []
    views = [prompt_view(r) for r in fake.requests]
    assert len(views) == 4  # each needed tool was callable at its turn's first request: no search
    assert [(b.index, b.reasons, b.detail) for b in cache_breaks(views)] == breaks
    if mode == "native":
        # one tools array for the whole conversation; the turn's routed tool revealed up front
        assert {v.tools_bytes for v in views} == {views[0].tools_bytes}
        assert set(views[0].deferred_names) == EVERY_TOOL
        assert views[0].revealed == ("get_weather_forecast",)
        assert views[2].revealed == ("get_weather_forecast", "convert_currency")
        assert "convert_currency" not in views[1].callable_names
        assert "convert_currency" in views[2].callable_names


@pytest.mark.parametrize("api", APIS)
async def test_a_tool_the_turn_did_not_route_is_found_by_the_routed_search(
    api: str, visibility: Visibility, body_calls: list[Any]
) -> None:
    script = [
        WEATHER_CALL,
        Text("Sunny."),
        CONVERT_CALL,
        search(api, "search customers by name"),
        ToolCall("search_customers", {"query": "Ada"}),
        Text("Ada: 92 EUR."),
    ]
    router = PydanticAIRouter(visibility)
    turns = [RoutingRequest(WEATHER), RoutingRequest(CONVERT)]
    views, outputs = await converse(api, [router.native_tools()], script, turns)
    assert outputs == ["Sunny.", "Ada: 92 EUR."]
    assert [name for name, _ in body_calls] == [
        "get_weather_forecast",
        "convert_currency",
        "search_customers",
    ]
    assert cache_breaks(views) == []
    assert "search_customers" not in views[3].callable_names
    assert "search_customers" in views[4].callable_names


@pytest.mark.parametrize("api", APIS)
async def test_a_blocked_tool_is_never_sent_revealed_or_run(api: str, body_calls: list[Any]) -> None:
    visibility = catalog_visibility(blocked=["delete_customer"])
    request = "permanently delete the customer record c-1 from the CRM"
    script = [
        ToolCall("delete_customer", {"customer_id": "c-1"}),  # called blind: refused
        search(api, "delete customer record"),
        Text("I cannot delete customers."),
    ]
    router = PydanticAIRouter(visibility)
    views, outputs = await converse(api, [router.native_tools()], script, [RoutingRequest(request)])
    assert outputs == ["I cannot delete customers."]
    assert body_calls == []
    assert len(views) == 3
    for view in views:
        assert "delete_customer" not in {*view.tool_names, *view.deferred_names, *view.revealed}
        assert set(view.deferred_names) == EVERY_TOOL - {"delete_customer"}
    assert "delete_customer" in views[1].messages[-1]  # PydanticAI told the model the tool is unknown
    assert cache_breaks(views) == []


class StaffOnlyCurrency(Visibility):
    """A principal rule: only `staff` may see `convert_currency`."""

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        if not super().permits(route, principal):
            return False
        return route != "local:convert_currency" or principal == "staff"


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("principal", ["staff", "guest"])
async def test_a_principal_rule_decides_what_is_sent(api: str, principal: str, body_calls: list[Any]) -> None:
    visibility = StaffOnlyCurrency(SchemaRouter(catalog_from_function_toolset("local", local_tools())), k=3)
    script = [CONVERT_CALL, Text("done")]
    router = PydanticAIRouter(visibility)
    views, _ = await converse(
        api, [router.native_tools()], script, [RoutingRequest(CONVERT, principal=principal)]
    )
    sent = {name for view in views for name in (*view.deferred_names, *view.revealed)}
    if principal == "staff":
        assert "convert_currency" in views[0].callable_names
        assert [name for name, _ in body_calls] == ["convert_currency"]
    else:
        assert "convert_currency" not in sent
        assert sent == EVERY_TOOL - {"convert_currency"}
        assert body_calls == []


@pytest.mark.parametrize("api", APIS)
async def test_pinned_tools_are_loaded_from_the_first_request(api: str, body_calls: list[Any]) -> None:
    visibility = catalog_visibility(always_visible=["search_customers"])
    script = [WEATHER_CALL, Text("Sunny."), ToolCall("search_customers", {"query": "Ada"}), Text("Ada.")]
    router = PydanticAIRouter(visibility)
    turns = [RoutingRequest(WEATHER), RoutingRequest("who is Ada")]
    views, _ = await converse(api, [router.native_tools()], script, turns)
    assert [name for name, _ in body_calls] == ["get_weather_forecast", "search_customers"]
    for view in views:
        assert "search_customers" in view.tool_names
        assert "search_customers" not in view.deferred_names
        assert "search_customers" not in view.revealed
    assert cache_breaks(views) == []


@pytest.mark.parametrize("api", APIS)
async def test_a_routing_failure_sends_and_reveals_nothing_routable(
    api: str, visibility: Visibility, caplog: pytest.LogCaptureFixture, body_calls: list[Any]
) -> None:
    script = [WEATHER_CALL, Text("no tools")]
    router = PydanticAIRouter(visibility)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME), FakeProviderServer(script) as fake:
        agent = Agent(model(api, fake), toolsets=[local_tools()], capabilities=[router.native_tools()])
        result = await agent.run(WEATHER, deps=None)  # no routing request
    assert result.output == "no tools"
    assert body_calls == []
    for view in map(prompt_view, fake.requests):
        assert (view.tool_names, view.deferred_names, view.revealed) == ((), (), ())
    assert any("missing_request" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("api", APIS)
async def test_without_the_reveal_the_model_searches_first(
    api: str, visibility: Visibility, body_calls: list[Any]
) -> None:
    script = [search(api, "weather forecast"), WEATHER_CALL, Text("Sunny.")]
    router = PydanticAIRouter(visibility)
    views, _ = await converse(
        api, [router.native_tools(reveal_routed=False)], script, [RoutingRequest(WEATHER)]
    )
    assert views[0].revealed == ()
    assert "get_weather_forecast" in views[1].callable_names
    assert [name for name, _ in body_calls] == ["get_weather_forecast"]
    assert cache_breaks(views) == []


def test_native_mode_refuses_a_conversation_mode_router(visibility: Visibility) -> None:
    router = PydanticAIRouter(visibility, sessions=SessionLimits())
    with pytest.raises(AdapterSetupError, match="without sessions="):
        router.native_tools()


def test_native_mode_is_the_agents_tool_search(visibility: Visibility) -> None:
    native = PydanticAIRouter(visibility).native_tools(source="local")
    assert isinstance(native, ToolSearch)
    assert isinstance(native, NativeRoutedTools)
    assert native.strategy == native.router.tool_search(source="local")


async def test_a_tool_a_deferred_capability_gates_waits_for_that_capability(visibility: Visibility) -> None:
    """Routed but owned by a deferred capability: not revealed; the model loads the capability."""
    offered: list[list[str]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append([tool.name for tool in info.function_tools])
        if len(offered) == 1:
            return ModelResponse(parts=[ToolCallPart("load_capability", {"id": "money"}, tool_call_id="l1")])
        return ModelResponse(parts=[TextPart("done")])

    money = Toolset(FunctionToolset([convert_currency]), id="money", description="money", defer_loading=True)
    agent = Agent(
        FunctionModel(respond),
        tools=[get_weather_forecast],
        capabilities=[PydanticAIRouter(visibility).native_tools(), money],
    )
    result = await agent.run(CONVERT, deps=RoutingRequest(CONVERT))
    assert "convert_currency" not in offered[0]
    assert "convert_currency" in offered[1]
    messages = result.all_messages()
    load = next(i for i, m in enumerate(messages) for p in m.parts if isinstance(p, ToolCallPart))
    revealed_at = [
        i
        for i, message in enumerate(messages)
        for part in message.parts
        if isinstance(part, ToolAvailabilityDeltaPart) and "convert_currency" in part.tools_added
    ]
    assert revealed_at, "PydanticAI records the loaded capability's tools"
    assert min(revealed_at) > load, "revealed only once its capability was loaded"


def test_pydantic_ai_refuses_a_second_tool_search_beside_native_mode(visibility: Visibility) -> None:
    native = PydanticAIRouter(visibility).native_tools()
    model = FunctionModel(lambda *_: ModelResponse(parts=[TextPart("done")]))
    with pytest.raises(UserError, match="'tool_search' is used by capabilities of different types"):
        Agent(model, capabilities=[native, ToolSearch()])


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    ("approve", "answer", "ran"),
    [(True, "Sunny.", ["get_weather_forecast"]), (False, "Not allowed, then.", [])],
)
async def test_approvals_hold_in_native_mode(
    api: str, approve: bool, answer: str, ran: list[str], visibility: Visibility, body_calls: list[Any]
) -> None:
    """A routed tool behind `.approval_required()` pauses the run in native mode as anywhere: its
    body runs only once approved, on the resumed run (which has no prompt to route on), and never
    when denied; the tools array stays the same throughout."""
    router = PydanticAIRouter(visibility)
    request = RoutingRequest(WEATHER)
    with FakeProviderServer([WEATHER_CALL, Text(answer)]) as fake:
        agent = Agent(
            model(api, fake),
            toolsets=[local_tools().approval_required()],
            capabilities=[router.native_tools()],
            output_type=[str, DeferredToolRequests],
        )
        paused = await agent.run(WEATHER, deps=request)
        assert isinstance(paused.output, DeferredToolRequests)
        assert [call.tool_name for call in paused.output.approvals] == ["get_weather_forecast"]
        assert body_calls == []  # asked for approval: nothing ran
        decided = DeferredToolResults(approvals={paused.output.approvals[0].tool_call_id: approve})
        resumed = await agent.run(
            deps=request, message_history=paused.all_messages(), deferred_tool_results=decided
        )
    assert resumed.output == answer
    assert [name for name, _ in body_calls] == ran
    assert fake.errors == []
    views = [prompt_view(r) for r in fake.requests]
    assert cache_breaks(views) == []
    assert {v.tools_bytes for v in views} == {views[0].tools_bytes}
