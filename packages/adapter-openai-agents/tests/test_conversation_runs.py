"""Conversation mode in real `Runner.run` turns: the offline `ScriptedModel`, the fixture MCP server
over stdio and streamable HTTP, the server's own `require_approval` and tool guardrails."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, FunctionTool, ModelBehaviorError, Runner, RunState
from agents.items import ToolCallOutputItem
from agents.mcp import MCPServer, MCPServerStdio, MCPServerStreamableHttp
from agents.testing import ScriptedModel, assistant_message, function_call

from schemarouter import Catalog, SchemaRouter, SessionLimits, Visibility
from schemarouter.visibility import FIND_TOOLS
from schemarouter_conformance import (
    DESTRUCTIVE_TOOLS,
    GUARDRAIL_TRIP_VALUE,
    UNSUPPORTED_QUERIES,
    http_fixture_server,
    read_call_log,
    stdio_command,
)
from schemarouter_conformance.drivers.openai_agents import GuardrailProbe, run_config
from schemarouter_openai_agents import SESSION_KEY, OpenAIAgentsRouter, RoutedAgent

pytestmark = pytest.mark.slow

WEATHER = "what is the weather forecast for Paris this week"
CURRENCY = "convert 100 USD to EUR at today's exchange rate"
EMAIL = "send an email to ada@example.com saying hello"
NO_ROUTE = UNSUPPORTED_QUERIES[0]


@dataclass
class Fixture:
    """One transport of the fixture server: connect SDK servers to it, read its call log."""

    connect: Callable[[OpenAIAgentsRouter, GuardrailProbe], MCPServer]
    call_log: Path

    def calls(self) -> list[str]:
        return [str(entry["tool"]) for entry in read_call_log(self.call_log)]


@contextmanager
def _fixture(transport: str, workdir: Path, http_server: tuple[str, Path] | None) -> Iterator[Fixture]:
    """The fixture over `transport`: stdio starts the server per connection; http uses the
    running `http_server` (url, call log), its call log emptied first."""
    call_log = workdir / "calls.jsonl"

    def hooks(routing: OpenAIAgentsRouter, probe: GuardrailProbe) -> dict[str, Any]:
        return {
            "name": "fixture",
            "tool_filter": routing.tool_filter,
            "require_approval": {"always": {"tool_names": list(DESTRUCTIVE_TOOLS)}},
            "tool_input_guardrails": [probe.input_guardrail],
            "tool_output_guardrails": [probe.output_guardrail],
            "client_session_timeout_seconds": 20,
        }

    if transport == "stdio":
        command, args = stdio_command(call_log)
        yield Fixture(
            lambda r, p: MCPServerStdio({"command": command, "args": args}, **hooks(r, p)), call_log
        )
        return
    assert http_server is not None, "the http transport needs the module's server"
    url, shared_log = http_server
    shared_log.write_text("", encoding="utf-8")
    yield Fixture(lambda r, p: MCPServerStreamableHttp({"url": url}, **hooks(r, p)), shared_log)


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One HTTP fixture server for this module's tests: its tools only read, so nothing one
    test does changes what another sees; each test starts with its call log emptied."""
    workdir = tmp_path_factory.mktemp("http-fixture")
    log = workdir / "calls.jsonl"
    with http_fixture_server(log, workdir / "server.log") as url:
        yield url, log


@pytest.fixture(params=["stdio", "http"])
def fixture(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Fixture]:
    shared = request.getfixturevalue("http_server") if request.param == "http" else None
    with _fixture(request.param, tmp_path, shared) as found:
        yield found


@dataclass
class Built:
    routing: OpenAIAgentsRouter
    probe: GuardrailProbe
    agent: Agent[Any]


@pytest.fixture
async def stack() -> AsyncIterator[AsyncExitStack]:
    async with AsyncExitStack() as exits:
        yield exits


async def _build(
    fixture: Fixture,
    catalog: Catalog,
    exits: AsyncExitStack,
    *,
    limits: SessionLimits | None = None,
    routed_agent: bool = True,
) -> Built:
    routing = OpenAIAgentsRouter(Visibility(SchemaRouter(catalog), k=3), sessions=limits or SessionLimits())
    probe = GuardrailProbe(GUARDRAIL_TRIP_VALUE)
    server = fixture.connect(routing, probe)
    await server.connect()
    exits.push_async_callback(server.cleanup)
    if routed_agent:
        agent: Agent[Any] = RoutedAgent(
            name="ops", mcp_servers=[server], tools=[routing.find_tools], routing=routing
        )
    else:
        agent = Agent(name="ops", mcp_servers=[server], tools=[routing.find_tools])
    return Built(routing, probe, agent)


async def _run(agent: Agent[Any], context: dict[str, Any], *steps: list[Any]) -> tuple[ScriptedModel, Any]:
    model = ScriptedModel([*steps, [assistant_message("done")]])
    result = await Runner.run(
        agent.clone(model=model), context["query"], context=context, run_config=run_config()
    )
    return model, result


def _offered(model: ScriptedModel, step: int = 0) -> list[str]:
    return [tool.name for tool in model.calls[step].tools]


def _find(query: str, call_id: str = "find-1") -> list[Any]:
    return [function_call(FIND_TOOLS.name, {"query": query}, call_id=call_id)]


def _output(result: Any, call_id: str) -> str:
    return next(
        str(i.output) for i in result.new_items if isinstance(i, ToolCallOutputItem) and i.call_id == call_id
    )


async def test_the_list_only_grows_from_turn_to_turn(
    fixture: Fixture, fixture_catalog: Catalog, stack: AsyncExitStack
) -> None:
    built = await _build(fixture, fixture_catalog, stack)
    context: dict[str, Any] = {"conversation": "c-1"}
    offered: list[list[str]] = []
    for query in (WEATHER, CURRENCY, EMAIL):
        context["query"] = query
        model, _ = await _run(built.agent, context)
        offered.append(_offered(model))
        schema = next(
            t.params_json_schema
            for t in model.calls[0].tools
            if isinstance(t, FunctionTool) and t.name == FIND_TOOLS.name
        )
        assert json.dumps(schema) == json.dumps(FIND_TOOLS.input_schema), (
            "the model gets core's schema, byte for byte"
        )
    assert offered[:2] == [
        ["find_tools", "get_weather_forecast"],
        ["find_tools", "get_weather_forecast", "convert_currency"],
    ]
    assert offered[2][:3] == offered[1]
    assert "send_email" in offered[2][3:]
    assert fixture.calls() == []


async def test_find_tools_reveals_a_tool_the_next_step_calls(
    fixture: Fixture, fixture_catalog: Catalog, stack: AsyncExitStack
) -> None:
    built = await _build(fixture, fixture_catalog, stack)
    context: dict[str, Any] = {"query": WEATHER, "conversation": "c-1"}
    call = function_call(
        "convert_currency", {"amount": 5, "from_currency": "USD", "to_currency": "EUR"}, call_id="c1"
    )
    model, result = await _run(built.agent, context, _find("convert currency"), [call])
    assert _offered(model, 0) == ["find_tools", "get_weather_forecast"]
    # the list grows at its end: the tool found first, then what else the search reached, best first
    assert _offered(model, 1)[:3] == ["find_tools", "get_weather_forecast", "convert_currency"]
    assert "convert_currency" in _output(result, "find-1")
    assert fixture.calls() == ["convert_currency"], "find-tools ran no tool body; the found tool ran once"
    assert "c1" in built.probe.outputs, "the server's output guardrail saw the found tool's result"


async def test_a_found_tool_keeps_the_servers_input_guardrail(
    fixture: Fixture, fixture_catalog: Catalog, stack: AsyncExitStack
) -> None:
    built = await _build(fixture, fixture_catalog, stack)
    context: dict[str, Any] = {"query": WEATHER, "conversation": "c-1"}
    call = function_call(
        "send_email", {"to": "a@example.com", "subject": "hi", "body": GUARDRAIL_TRIP_VALUE}, call_id="e1"
    )
    await _run(built.agent, context, _find("send an email"), [call])
    assert built.probe.tripped == {"e1"}
    assert fixture.calls() == []


@pytest.mark.parametrize("approve", [True, False], ids=["approved", "rejected"])
async def test_a_found_destructive_tool_pauses_and_the_resumed_run_offers_the_same_list(
    fixture: Fixture, fixture_catalog: Catalog, stack: AsyncExitStack, approve: bool
) -> None:
    built = await _build(fixture, fixture_catalog, stack)
    context: dict[str, Any] = {"query": WEATHER, "conversation": "c-1"}
    delete = function_call("delete_customer", {"customer_id": "c-200"}, call_id="d1")
    paused_model, paused = await _run(built.agent, context, _find("delete a customer record"), [delete])
    assert [item.tool_name for item in paused.interruptions] == ["delete_customer"]
    before = _offered(paused_model, 1)
    assert before[:3] == ["find_tools", "get_weather_forecast", "delete_customer"]
    saved = json.loads(json.dumps(context[SESSION_KEY]))

    # another worker: a new router (nothing remembered) and a new connection; the state comes
    # back only through the RunState JSON, in the run context
    other = await _build(fixture, fixture_catalog, stack)
    resumed_model = ScriptedModel([[assistant_message("done")]])
    state = await RunState.from_json(other.agent.clone(model=resumed_model), paused.to_state().to_json())
    assert state._context is not None  # pyright: ignore[reportPrivateUsage]
    assert state._context.context[SESSION_KEY] == saved  # pyright: ignore[reportPrivateUsage]
    for item in state.get_interruptions():
        state.approve(item) if approve else state.reject(item)
    resumed = await Runner.run(other.agent.clone(model=resumed_model), state, run_config=run_config())
    assert resumed.final_output == "done"
    assert _offered(resumed_model) == before
    assert fixture.calls() == (["delete_customer"] if approve else [])
    assert resumed.context_wrapper.context[SESSION_KEY]["routes"] == saved["routes"]


async def test_concurrent_conversations_never_see_each_others_tools(
    fixture: Fixture, fixture_catalog: Catalog, stack: AsyncExitStack
) -> None:
    built = await _build(fixture, fixture_catalog, stack)
    first: dict[str, Any] = {"query": WEATHER, "conversation": "c-1"}
    second: dict[str, Any] = {"query": WEATHER, "conversation": "c-2"}
    (model_1, _), (model_2, _) = await asyncio.gather(
        _run(built.agent, first, _find("convert currency")),
        _run(built.agent, second, _find("translate text")),
    )
    found_1, found_2 = _offered(model_1, 1), _offered(model_2, 1)
    assert found_1[:3] == ["find_tools", "get_weather_forecast", "convert_currency"]
    assert found_2[:3] == ["find_tools", "get_weather_forecast", "translate_text"]
    assert "translate_text" not in found_1
    assert "convert_currency" not in found_2
    again, _ = await _run(built.agent, first)
    assert _offered(again) == found_1


async def test_a_run_with_no_conversation_id_is_offered_nothing(
    fixture: Fixture, fixture_catalog: Catalog, stack: AsyncExitStack
) -> None:
    built = await _build(fixture, fixture_catalog, stack)
    model, _ = await _run(built.agent, {"query": WEATHER})
    assert _offered(model) == []
    call = function_call("get_weather_forecast", {"city": "Paris"}, call_id="w1")
    with pytest.raises(ModelBehaviorError, match="Tool get_weather_forecast not found"):
        await _run(built.agent, {"query": WEATHER}, [call])
    with pytest.raises(ModelBehaviorError, match="Tool find_tools not found"):
        await _run(built.agent, {"query": WEATHER}, _find("weather"))
    assert fixture.calls() == []


async def test_a_tool_not_yet_found_is_refused_by_the_sdk(
    fixture: Fixture, fixture_catalog: Catalog, stack: AsyncExitStack
) -> None:
    built = await _build(fixture, fixture_catalog, stack)
    delete = function_call("delete_customer", {"customer_id": "c-200"}, call_id="d1")
    with pytest.raises(ModelBehaviorError, match="Tool delete_customer not found"):
        await _run(built.agent, {"query": WEATHER, "conversation": "c-1"}, [delete])
    assert fixture.calls() == []


async def test_with_find_tools_off_a_first_turn_without_a_route_offers_nothing(
    fixture: Fixture, fixture_catalog: Catalog, stack: AsyncExitStack
) -> None:
    built = await _build(fixture, fixture_catalog, stack, limits=SessionLimits(find_tools=False))
    model, _ = await _run(built.agent, {"query": NO_ROUTE, "conversation": "c-1"})
    assert _offered(model) == []
    model, _ = await _run(built.agent, {"query": WEATHER, "conversation": "c-1"})
    assert _offered(model) == ["get_weather_forecast"]


async def test_the_sdk_lists_mcp_tools_first_and_routed_agent_restores_the_conversations_order(
    fixture: Fixture, fixture_catalog: Catalog, stack: AsyncExitStack
) -> None:
    """A plain `Agent` gets the SDK's order: every MCP tool in the server's order, then function
    tools; the list as offered then changes in the middle. `RoutedAgent` keeps it a prefix."""
    plain = await _build(fixture, fixture_catalog, stack, routed_agent=False)
    routed = await _build(fixture, fixture_catalog, stack)
    seen: dict[str, list[list[str]]] = {}
    for label, built in (("plain", plain), ("routed", routed)):
        model, _ = await _run(
            built.agent, {"query": WEATHER, "conversation": "c-1"}, _find("search customers")
        )
        seen[label] = [_offered(model, 0), _offered(model, 1)]
    (plain_0, plain_1), (routed_0, routed_1) = seen["plain"], seen["routed"]
    assert plain_0 == ["get_weather_forecast", "find_tools"]
    assert plain_1[-1] == "find_tools"  # the SDK: every MCP tool first, in the server's order
    assert plain_1[: len(plain_0)] != plain_0  # so the list as offered changed in the middle
    assert routed_0 == ["find_tools", "get_weather_forecast"]
    assert routed_1[:3] == ["find_tools", "get_weather_forecast", "search_customers"]
    assert sorted(routed_1) == sorted(plain_1)
