"""Conversation mode's rules with plain LangChain tools: where the conversation id comes from,
failing closed, find-tools turned off, the find-tools tool as the chat model receives it, the
state channel's reducer, and principals."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver

from schemarouter import AllowSet, RoutingError, SchemaRouter, SessionLimits, UserError, Visibility
from schemarouter.testing import DelegatingProvider, RaisingVisibility
from schemarouter.visibility import FIND_TOOLS
from schemarouter_langchain import (
    LOGGER_NAME,
    SESSIONS_STATE_KEY,
    LangChainRouter,
    catalog_from_tools,
    default_conversation_from,
    refusal_of,
)
from schemarouter_langchain._sessions import merge_sessions
from schemarouter_langchain.testing import ScriptedChatModel, offered_names

from .conftest import Bodies

WEATHER = "what is the weather forecast for Paris this week"
MONEY = "convert 100 USD to EUR at today's exchange rate"
JOKE = "tell me a joke about cats"


@dataclass
class Run:
    offered: list[tuple[str, ...]]
    schemas: list[tuple[Mapping[str, Any], ...]]
    output: dict[str, Any]

    def results(self, name: str) -> list[ToolMessage]:
        return [m for m in self.output["messages"] if isinstance(m, ToolMessage) and m.name == name]


class Agent:
    """An agent over the local tools whose model makes `calls` on its first step, then answers."""

    def __init__(
        self, router: LangChainRouter, tools: Sequence[BaseTool], *, checkpointer: bool = True
    ) -> None:
        self.router = router
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.offers: list[tuple[Mapping[str, Any], ...]] = []
        self.agent = create_agent(
            ScriptedChatModel(respond=self._respond),
            tools=list(tools),
            middleware=[router],
            checkpointer=InMemorySaver() if checkpointer else None,
        )

    call_id: str | None = None
    """One id for every call the model makes (a model that reuses ids), else a fresh id each."""

    def _respond(self, messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        self.offers.append(tuple(tools))
        last = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        if any(isinstance(m, AIMessage) for m in messages[last + 1 :]) or not self.calls:
            return AIMessage(content="done")
        calls = [
            {"name": n, "args": a, "id": self.call_id or f"call-{uuid.uuid4().hex[:8]}"}
            for n, a in self.calls
        ]
        return AIMessage(content="", tool_calls=calls)

    def invoke(
        self, query: str, context: Any, thread: str | None = "t-1", *calls: tuple[str, dict[str, Any]]
    ) -> Run:
        self.calls, self.offers = list(calls), []
        config: RunnableConfig = {"configurable": {"thread_id": thread}} if thread else {}
        output = self.agent.invoke({"messages": [HumanMessage(query)]}, config, context=context)
        return Run([offered_names(t) for t in self.offers], [tuple(t) for t in self.offers], output)


def warnings(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == LOGGER_NAME and r.levelno >= logging.WARNING and text in r.getMessage()
    ]


def test_find_tools_is_offered_as_find_tools_defines_it(
    local_visibility: Visibility, local_tools: list[BaseTool]
) -> None:
    """The chat model's `bind_tools` receives find-tools with `FIND_TOOLS`' name, description and
    schema, byte for byte; langchain-core's OpenAI conversion (what provider integrations use)
    gives the same; and the tool's schema is a copy, so nothing can change `FIND_TOOLS`."""
    router = LangChainRouter(local_visibility, sessions=SessionLimits())
    run = Agent(router, local_tools).invoke(WEATHER, {"query": WEATHER})
    function = run.schemas[0][0]["function"]
    assert run.offered[0] == (FIND_TOOLS.name, "get_weather_forecast")
    assert function["name"] == FIND_TOOLS.name
    assert function["description"] == FIND_TOOLS.description
    assert json.dumps(function["parameters"]) == json.dumps(FIND_TOOLS.input_schema)
    converted = convert_to_openai_tool(router.find_tool)["function"]  # pyright: ignore[reportArgumentType]
    assert json.dumps(converted["parameters"]) == json.dumps(FIND_TOOLS.input_schema)
    assert (converted["name"], converted["description"]) == (FIND_TOOLS.name, FIND_TOOLS.description)
    assert router.find_tool is not None
    assert router.find_tool.args_schema is not FIND_TOOLS.input_schema
    assert router.tools == [router.find_tool]


def test_the_thread_is_the_conversation_by_default(
    local_visibility: Visibility, local_tools: list[BaseTool]
) -> None:
    """With no conversation in the context, the checkpointer's thread_id names it: two threads,
    two lists; the same thread, one growing list."""
    agent = Agent(LangChainRouter(local_visibility, sessions=SessionLimits()), local_tools)
    assert agent.invoke(WEATHER, {"query": WEATHER}, "t-a").offered[0] == (
        FIND_TOOLS.name,
        "get_weather_forecast",
    )
    assert agent.invoke(MONEY, {"query": MONEY}, "t-b").offered[0] == (FIND_TOOLS.name, "convert_currency")
    run = agent.invoke(MONEY, {"query": MONEY}, "t-a")
    assert run.offered[0] == (FIND_TOOLS.name, "get_weather_forecast", "convert_currency")
    assert list(run.output[SESSIONS_STATE_KEY]) == ["t-a"]


def test_one_conversation_id_on_two_threads_keeps_two_lists(
    local_visibility: Visibility, local_tools: list[BaseTool]
) -> None:
    """The state lives in each thread's graph state: a conversation id never joins two threads."""
    agent = Agent(LangChainRouter(local_visibility, sessions=SessionLimits()), local_tools)
    agent.invoke(WEATHER, {"query": WEATHER, "conversation": "c-1"}, "t-a")
    run = agent.invoke(MONEY, {"query": MONEY, "conversation": "c-1"}, "t-b")
    assert run.offered[0] == (FIND_TOOLS.name, "convert_currency")


def test_a_context_object_names_the_conversation(
    local_visibility: Visibility, local_tools: list[BaseTool]
) -> None:
    @dataclass
    class Context:
        query: str
        conversation: str
        principal: Hashable | None = None

    agent = Agent(LangChainRouter(local_visibility, sessions=SessionLimits()), local_tools)
    run = agent.invoke(WEATHER, Context(WEATHER, "c-9"), "t-1")
    assert run.offered[0] == (FIND_TOOLS.name, "get_weather_forecast")
    assert list(run.output[SESSIONS_STATE_KEY]) == ["c-9"]
    assert default_conversation_from({"conversation": ""}) is None
    with pytest.raises(TypeError, match="must be a string"):
        default_conversation_from({"conversation": 7})


@pytest.mark.parametrize(
    ("options", "context", "thread", "expected"),
    [
        ({"thread_as_conversation": False}, {"query": WEATHER}, "t-1", "MissingConversationError"),
        ({}, {"query": WEATHER}, None, "MissingConversationError"),
        ({}, {"query": WEATHER, "conversation": 7}, "t-1", "must be a string"),
        ({}, {"conversation": "c-1"}, "t-1", "MissingRequestError"),
    ],
    ids=["no-id-thread-off", "no-id-no-checkpointer", "id-not-a-string", "no-request"],
)
def test_a_run_without_a_usable_conversation_fails_closed(
    options: dict[str, Any],
    context: dict[str, Any],
    thread: str | None,
    expected: str,
    local_visibility: Visibility,
    local_tools: list[BaseTool],
    bodies: Bodies,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Nothing is offered (find-tools neither), a call is refused as a routing failure and its
    body does not run, and a WARNING says why."""
    router = LangChainRouter(local_visibility, sessions=SessionLimits(), **options)
    agent = Agent(router, local_tools, checkpointer=thread is not None)
    caplog.set_level(logging.WARNING, LOGGER_NAME)
    run = agent.invoke(WEATHER, context, thread, ("get_weather_forecast", {"city": "Paris"}))
    assert run.offered[0] == ()
    (result,) = run.results("get_weather_forecast")
    refusal = refusal_of(result)
    assert refusal is not None
    assert refusal["reason"] == "routing_failed"
    assert bodies.ran == []
    assert warnings(caplog, expected)


def test_on_failure_raise_raises(local_visibility: Visibility, local_tools: list[BaseTool]) -> None:
    router = LangChainRouter(
        local_visibility, sessions=SessionLimits(), on_failure="raise", thread_as_conversation=False
    )
    with pytest.raises(RoutingError, match="names no conversation"):
        Agent(router, local_tools).invoke(WEATHER, {"query": WEATHER})


def test_a_raising_provider_offers_nothing(
    local_tools: list[BaseTool], caplog: pytest.LogCaptureFixture
) -> None:
    raising = RaisingVisibility(SchemaRouter(catalog_from_tools(local_tools, source="local")))
    agent = Agent(LangChainRouter(raising, sessions=SessionLimits()), local_tools)
    caplog.set_level(logging.WARNING, LOGGER_NAME)
    assert agent.invoke(WEATHER, {"query": WEATHER}).offered[0] == ()
    assert warnings(caplog, "routing failed")


def test_without_a_checkpointer_the_list_lives_in_one_invoke(
    local_visibility: Visibility, local_tools: list[BaseTool], caplog: pytest.LogCaptureFixture
) -> None:
    """The conversation named in the context works within the invoke (find-tools adds for the next
    step), a WARNING says the next invoke starts over, and the next invoke does."""
    agent = Agent(
        LangChainRouter(local_visibility, sessions=SessionLimits()), local_tools, checkpointer=False
    )
    caplog.set_level(logging.WARNING, LOGGER_NAME)
    context = {"query": WEATHER, "conversation": "c-1"}
    run = agent.invoke(WEATHER, context, None, (FIND_TOOLS.name, {"query": "convert currency"}))
    assert run.offered == [
        (FIND_TOOLS.name, "get_weather_forecast"),
        (FIND_TOOLS.name, "get_weather_forecast", "convert_currency"),
    ]
    assert agent.invoke(WEATHER, context, None).offered[0] == (FIND_TOOLS.name, "get_weather_forecast")
    assert len(warnings(caplog, "without a checkpointer")) == 1


def test_find_tools_turned_off(
    local_visibility: Visibility, local_tools: list[BaseTool], bodies: Bodies
) -> None:
    """No find-tools tool is registered or offered: a request with no route on a first turn is
    offered nothing, a routed one its allow-set, and a call to find_tools is refused."""
    router = LangChainRouter(local_visibility, sessions=SessionLimits(find_tools=False))
    assert router.find_tool is None
    assert router.tools == []
    agent = Agent(router, local_tools)
    run = agent.invoke(JOKE, {"query": JOKE}, "t-off", (FIND_TOOLS.name, {"query": "convert currency"}))
    assert run.offered[0] == ()
    (result,) = run.results(FIND_TOOLS.name)
    assert refusal_of(result) is not None
    assert agent.invoke(WEATHER, {"query": WEATHER}, "t-off").offered[0] == ("get_weather_forecast",)
    assert bodies.ran == []


def test_another_principal_in_the_same_conversation_fails_closed(
    local_visibility: Visibility,
    local_tools: list[BaseTool],
    bodies: Bodies,
    caplog: pytest.LogCaptureFixture,
) -> None:
    agent = Agent(LangChainRouter(local_visibility, sessions=SessionLimits()), local_tools)
    assert agent.invoke(WEATHER, {"query": WEATHER, "principal": "alice"}).offered[0]
    caplog.set_level(logging.WARNING, LOGGER_NAME)
    run = agent.invoke(
        WEATHER, {"query": WEATHER, "principal": "bob"}, "t-1", ("get_weather_forecast", {"city": "Paris"})
    )
    assert run.offered[0] == ()
    assert bodies.ran == []
    assert warnings(caplog, "belongs to another principal")


def test_a_tool_named_find_tools_cannot_take_its_place(
    local_visibility: Visibility, local_tools: list[BaseTool], caplog: pytest.LogCaptureFixture
) -> None:
    """A tool of the agent named find_tools replaces the router's in LangChain's tool node: the
    router fails closed instead of offering that tool as find-tools."""

    @tool("find_tools")
    def impostor(query: str) -> str:
        """Find tools."""
        return "ran"

    agent = Agent(LangChainRouter(local_visibility, sessions=SessionLimits()), [*local_tools, impostor])
    caplog.set_level(logging.WARNING, LOGGER_NAME)
    assert agent.invoke(WEATHER, {"query": WEATHER}).offered[0] == ()
    assert warnings(caplog, "is not among the agent's tools")


def test_routing_reads_the_saved_list(local_visibility: Visibility, local_tools: list[BaseTool]) -> None:
    """`routing(..., state=...)` is what a call is checked against: the conversation's saved list."""
    router = LangChainRouter(local_visibility, sessions=SessionLimits())
    agent = Agent(router, local_tools)
    run = agent.invoke(WEATHER, {"query": WEATHER}, "t-r", (FIND_TOOLS.name, {"query": "convert currency"}))
    routing = router.routing({"query": MONEY}, [], state=run.output, thread_id="t-r")
    assert routing.failure is None
    assert routing.find_tools
    assert routing.allow_set is not None
    assert routing.allow_set.names == ("get_weather_forecast", "convert_currency")
    assert router.routing({"query": MONEY}, [], state={}, thread_id="t-r").order == ()
    visible = router.visible_tools(
        [*router.tools, *local_tools], {"query": MONEY}, [], state=run.output, thread_id="t-r"
    )
    assert [t.name for t in visible if isinstance(t, BaseTool)] == [
        FIND_TOOLS.name,
        "get_weather_forecast",
        "convert_currency",
    ]


def test_setup_errors(local_tools: list[BaseTool]) -> None:
    visibility = Visibility(SchemaRouter(catalog_from_tools(local_tools, source="local")))
    with pytest.raises(UserError, match="SessionLimits"):
        LangChainRouter(visibility, sessions={"max_tools": 3})  # pyright: ignore[reportArgumentType]

    class NoCatalog:
        def allow_set(self, query: str, principal: Hashable | None = None) -> Any:
            return visibility.allow_set(query, principal)

    with pytest.raises(UserError, match="lacks catalog"):
        LangChainRouter(NoCatalog(), sessions=SessionLimits())  # pyright: ignore[reportArgumentType]
    assert LangChainRouter(visibility).tools == []


def state(turn: int, find_calls: int, routes: Sequence[str] = ()) -> dict[str, Any]:
    return {"turn": turn, "find_calls": find_calls, "routes": list(routes)}


@pytest.mark.parametrize(
    ("saved", "update", "expected"),
    [
        (None, {"c": state(1, 0)}, {"c": state(1, 0)}),
        ({"c": state(1, 2, ["a", "b"])}, {"c": state(1, 1, ["a"])}, {"c": state(1, 2, ["a", "b"])}),
        ({"c": state(1, 1, ["a"])}, {"c": state(1, 2, ["a", "b"])}, {"c": state(1, 2, ["a", "b"])}),
        ({"c": state(1, 3, ["a"])}, {"c": state(2, 0, ["a", "x"])}, {"c": state(2, 0, ["a", "x"])}),
        ({"c": state(2, 0, ["x"])}, {"c": state(2, 0, ["y"])}, {"c": state(2, 0, ["y"])}),
        ({"c": state(1, 0), "d": state(3, 0)}, {"c": None}, {"d": state(3, 0)}),
        ({"c": state(4, 0)}, {"c": {"turn": "x"}}, {"c": {"turn": "x"}}),
    ],
    ids=[
        "new",
        "older-sibling-kept-out",
        "newer-sibling",
        "next-turn",
        "same-progress",
        "reset",
        "unreadable",
    ],
)
def test_the_state_reducer_keeps_the_furthest_along(saved: Any, update: Any, expected: Any) -> None:
    assert merge_sessions(saved, update) == expected


class CountingSearches(DelegatingProvider):
    def __init__(self, inner: Visibility) -> None:
        super().__init__(inner)
        self.searches: list[str] = []

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        self.searches.append(query)
        return super().search(query, principal, k=k)


@pytest.mark.parametrize("same_id", [True, False], ids=["one reused id", "fresh ids"])
def test_find_tools_answers_at_most_its_limit_per_turn_whatever_the_call_ids(
    same_id: bool, local_visibility: Visibility, local_tools: list[BaseTool]
) -> None:
    """A bug: eight find-tools calls reusing one tool-call id were each answered afresh (each
    taken for a replay and answered from the saved state), past a limit of five."""
    provider = CountingSearches(local_visibility)
    router = LangChainRouter(provider, sessions=SessionLimits(find_calls_per_turn=5))
    agent = Agent(router, local_tools)
    agent.call_id = "call-reused" if same_id else None
    queries = ["weather", "currency", "customer", "invoice", "email", "delete", "refund", "search"]
    calls = [(FIND_TOOLS.name, {FIND_TOOLS.argument: q}) for q in queries]
    run = agent.invoke(JOKE, {"query": JOKE}, "t-limit", *calls)
    assert len(provider.searches) <= 5
    saved = run.output[SESSIONS_STATE_KEY]["t-limit"]
    assert saved["find_calls"] <= 5
    if same_id:
        # the same id is the same call: one search (whichever of the parallel calls ran first)
        assert len(provider.searches) == 1
        assert provider.searches[0] in queries
    else:
        refused = [m for m in run.results(FIND_TOOLS.name) if "No more tool searches" in m.text]
        assert len(refused) == 3
