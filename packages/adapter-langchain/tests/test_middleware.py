"""LangChainRouter in a real `create_agent` loop with plain LangChain tools (sync and async paths)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, HumanInTheLoopMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from schemarouter import AllowSet, Catalog, RoutingError, SchemaRouter, UserError, Visibility
from schemarouter.testing import DelegatingProvider, RaisingVisibility
from schemarouter_langchain import LOGGER_NAME, LangChainRouter, RouteRequest, refusal_of, routed_model
from schemarouter_langchain._turn import TurnRouter
from schemarouter_langchain.testing import ScriptedChatModel, call_then_answer, offered_names

WEATHER = "what is the weather forecast for Paris this week"
MONEY = "convert 100 USD to EUR at today's exchange rate"
PROVIDER_TOOL = {"type": "web_search_preview"}


class Recorder:
    """A script that records what the model was offered on every turn."""

    def __init__(self, tool: str | None = None, arguments: Mapping[str, Any] | None = None) -> None:
        self.offered: list[tuple[Mapping[str, Any], ...]] = []
        self.script = call_then_answer(tool, arguments)

    def __call__(self, messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        self.offered.append(tuple(tools))
        return self.script(messages, tools)

    @property
    def first(self) -> tuple[str, ...]:
        return offered_names(self.offered[0])


def agent_for(
    tools: Sequence[BaseTool | dict[str, Any]], middleware: Sequence[AgentMiddleware], script: Recorder
) -> Any:
    return create_agent(ScriptedChatModel(respond=script), tools=list(tools), middleware=list(middleware))


def tool_result(output: Mapping[str, Any]) -> ToolMessage:
    return next(m for m in output["messages"] if isinstance(m, ToolMessage))


def test_offers_exactly_the_allow_set_in_order(
    local_tools: list[BaseTool], local_visibility: Visibility
) -> None:
    script = Recorder()
    agent = agent_for(local_tools, [LangChainRouter(local_visibility)], script)
    agent.invoke({"messages": [HumanMessage(WEATHER)]}, context={"query": WEATHER})
    expected = local_visibility.allow_set(WEATHER)
    assert expected.names
    assert "get_weather_forecast" in expected.names
    assert script.first == expected.names


async def test_async_path_offers_the_same(local_tools: list[BaseTool], local_visibility: Visibility) -> None:
    script = Recorder()
    agent = agent_for(local_tools, [LangChainRouter(local_visibility)], script)
    await agent.ainvoke({"messages": [HumanMessage(MONEY)]}, context={"query": MONEY})
    assert script.first == local_visibility.allow_set(MONEY).names


def test_unsupported_query_offers_no_routed_tool(
    local_tools: list[BaseTool], local_visibility: Visibility
) -> None:
    query = "tell me a joke about cats"
    assert local_visibility.allow_set(query).no_route
    script = Recorder()
    agent = agent_for(local_tools, [LangChainRouter(local_visibility)], script)
    agent.invoke({"messages": [HumanMessage(query)]}, context={"query": query})
    assert script.first == ()


def test_provider_dict_tools_and_always_visible_are_kept(
    local_tools: list[BaseTool], local_visibility: Visibility
) -> None:
    script = Recorder()
    router = LangChainRouter(local_visibility, always_visible=["search_customers"])
    agent = agent_for([*local_tools, PROVIDER_TOOL], [router], script)
    agent.invoke({"messages": [HumanMessage(WEATHER)]}, context={"query": WEATHER})
    routed = local_visibility.allow_set(WEATHER).names
    assert script.first == (*routed, "search_customers")
    assert PROVIDER_TOOL in [dict(t) for t in script.offered[0]]


def test_the_trap_narrowing_alone_still_runs_a_hidden_tool(local_tools: list[BaseTool], bodies: Any) -> None:
    """Why call-time refusal exists: LangChain's tool node runs any registered tool the model names."""

    class NarrowOnly(AgentMiddleware[Any, Any, Any]):
        def wrap_model_call(
            self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
        ) -> Any:
            return handler(
                request.override(
                    tools=[t for t in request.tools if getattr(t, "name", "") == "get_weather_forecast"]
                )
            )

    script = Recorder("delete_customer", {"customer_id": "c-1"})
    agent_for(local_tools, [NarrowOnly()], script).invoke({"messages": [HumanMessage(WEATHER)]})
    assert script.first == ("get_weather_forecast",)
    assert bodies.ran == ["delete_customer"]


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_hidden_tool_call_is_refused_and_never_runs(
    mode: str, local_tools: list[BaseTool], local_visibility: Visibility, bodies: Any
) -> None:
    assert "delete_customer" not in local_visibility.allow_set(WEATHER)
    script = Recorder("delete_customer", {"customer_id": "c-1"})
    agent = agent_for(local_tools, [LangChainRouter(local_visibility)], script)
    payload = {"messages": [HumanMessage(WEATHER)]}
    if mode == "sync":
        output = agent.invoke(payload, context={"query": WEATHER})
    else:
        output = await agent.ainvoke(payload, context={"query": WEATHER})
    message = tool_result(output)
    assert bodies.ran == []
    assert message.status == "error"
    assert refusal_of(message) == {"tool": "delete_customer", "reason": "hidden", "detail": ""}


def test_visible_tool_call_runs(
    local_tools: list[BaseTool], local_visibility: Visibility, bodies: Any
) -> None:
    script = Recorder("get_weather_forecast", {"city": "Paris"})
    output = agent_for(local_tools, [LangChainRouter(local_visibility)], script).invoke(
        {"messages": [HumanMessage(WEATHER)]}, context={"query": WEATHER}
    )
    assert bodies.ran == ["get_weather_forecast"]
    assert tool_result(output).text == "sunny in Paris"


class Raising(RaisingVisibility):
    """An allow-set provider whose router is broken."""

    def __init__(self) -> None:
        super().__init__(SchemaRouter(Catalog()), error=RuntimeError("index corrupted"))


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_raising_router_fails_closed_and_is_logged(
    mode: str, local_tools: list[BaseTool], bodies: Any, caplog: pytest.LogCaptureFixture
) -> None:
    script = Recorder("get_weather_forecast", {"city": "Paris"})
    agent = agent_for([*local_tools, PROVIDER_TOOL], [LangChainRouter(Raising())], script)
    payload = {"messages": [HumanMessage(WEATHER)]}
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        if mode == "sync":
            output = agent.invoke(payload, context={"query": WEATHER})
        else:
            output = await agent.ainvoke(payload, context={"query": WEATHER})
    assert script.first == ()
    assert [dict(t) for t in script.offered[0]] == [PROVIDER_TOOL]
    assert bodies.ran == []
    refusal = refusal_of(tool_result(output))
    assert refusal is not None
    assert refusal["reason"] == "routing_failed"
    assert "index corrupted" in refusal["detail"]
    assert any(r.name == LOGGER_NAME and r.levelno >= logging.WARNING for r in caplog.records)


def test_on_failure_raise_surfaces_a_routing_error(local_tools: list[BaseTool], bodies: Any) -> None:
    agent = agent_for(local_tools, [LangChainRouter(Raising(), on_failure="raise")], Recorder())
    with pytest.raises(RoutingError, match="index corrupted"):
        agent.invoke({"messages": [HumanMessage(WEATHER)]}, context={"query": WEATHER})
    assert bodies.ran == []


def test_missing_request_fails_closed(
    local_tools: list[BaseTool], local_visibility: Visibility, caplog: pytest.LogCaptureFixture
) -> None:
    script = Recorder()
    agent = agent_for(local_tools, [LangChainRouter(local_visibility)], script)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        agent.invoke({"messages": [HumanMessage("")]})
    assert script.first == ()
    assert any("MissingRequestError" in r.getMessage() for r in caplog.records)


def test_falls_back_to_the_last_human_message_when_asked_and_says_so_once(
    local_tools: list[BaseTool], local_visibility: Visibility, caplog: pytest.LogCaptureFixture
) -> None:
    router = LangChainRouter(local_visibility, fallback_to_messages=True)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        for _ in range(2):
            script = Recorder()
            agent_for(local_tools, [router], script).invoke({"messages": [HumanMessage(MONEY)]})
            assert script.first == local_visibility.allow_set(MONEY).names
    fallbacks = [
        r.getMessage() for r in caplog.records if "routing on the last human message" in r.getMessage()
    ]
    assert len(fallbacks) == 1, fallbacks
    assert "no principal" in fallbacks[0]


def test_context_wins_over_the_message(local_tools: list[BaseTool], local_visibility: Visibility) -> None:
    script = Recorder()
    agent = agent_for(local_tools, [LangChainRouter(local_visibility)], script)
    agent.invoke({"messages": [HumanMessage(MONEY)]}, context={"query": WEATHER})
    assert script.first == local_visibility.allow_set(WEATHER).names


def test_custom_request_from_and_principal(local_tools: list[BaseTool], local_visibility: Visibility) -> None:
    seen: list[tuple[str, Hashable | None]] = []

    class Recording(DelegatingProvider):
        def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
            seen.append((query, principal))
            return local_visibility.allow_set(query, principal)

    class Ctx:
        def __init__(self, ask: str, user: str) -> None:
            self.ask, self.user = ask, user

    router = LangChainRouter(
        Recording(local_visibility), request_from=lambda ctx: RouteRequest(ctx.ask, ctx.user)
    )
    script = Recorder()
    agent_for(local_tools, [router], script).invoke(
        {"messages": [HumanMessage("hi")]}, context=Ctx(WEATHER, "alice")
    )
    assert seen
    assert set(seen) == {(WEATHER, "alice")}
    assert script.first == local_visibility.allow_set(WEATHER).names


def test_bad_request_from_fails_closed(local_tools: list[BaseTool], local_visibility: Visibility) -> None:
    script = Recorder()
    router = LangChainRouter(local_visibility, request_from=lambda ctx: 42)  # pyright: ignore[reportArgumentType]
    agent_for(local_tools, [router], script).invoke({"messages": [HumanMessage(WEATHER)]}, context={})
    assert script.first == ()


def test_allow_set_cached_for_model_calls_and_asked_again_per_tool_call(
    local_tools: list[BaseTool], local_visibility: Visibility
) -> None:
    calls: list[str] = []

    class Counting(DelegatingProvider):
        router = local_visibility.router

        def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
            calls.append(query)
            return local_visibility.allow_set(query, principal)

    router = LangChainRouter(Counting(local_visibility))
    agent = agent_for(local_tools, [router], Recorder("get_weather_forecast", {"city": "Paris"}))
    context = {"query": WEATHER}
    agent.invoke({"messages": [HumanMessage(WEATHER)]}, context=context)
    assert (
        calls == [WEATHER] * 2
    )  # the first model turn, then the tool call asks afresh; the second turn reuses it
    agent.invoke({"messages": [HumanMessage(WEATHER)]}, context={"query": WEATHER})
    assert calls == [WEATHER] * 4  # another context is never served from the first one's entry


async def test_concurrent_runs_see_only_their_own_allow_sets(
    local_tools: list[BaseTool], local_visibility: Visibility
) -> None:
    offered: dict[str, tuple[str, ...]] = {}

    def respond(messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        run = next(m.id for m in messages if isinstance(m, HumanMessage))
        assert run is not None
        offered[run] = offered_names(tools)
        return AIMessage(content="done")

    agent = create_agent(
        ScriptedChatModel(respond=respond), tools=local_tools, middleware=[LangChainRouter(local_visibility)]
    )
    queries = [WEATHER, MONEY, "search the CRM for customers named Ada", "tell me a joke about cats"] * 6

    async def one(i: int, query: str) -> None:
        await agent.ainvoke({"messages": [HumanMessage("ignored", id=f"r{i}")]}, context={"query": query})

    await asyncio.gather(*(one(i, q) for i, q in enumerate(queries)))
    assert len(offered) == len(queries)
    for i, query in enumerate(queries):
        assert offered[f"r{i}"] == local_visibility.allow_set(query).names


def test_same_input_same_offer(local_tools: list[BaseTool], local_visibility: Visibility) -> None:
    seen = []
    for _ in range(3):
        script = Recorder()
        agent_for(local_tools, [LangChainRouter(local_visibility)], script).invoke(
            {"messages": [HumanMessage(WEATHER)]}, context={"query": WEATHER}
        )
        seen.append(script.first)
    assert len(set(seen)) == 1


def test_tool_choice_naming_a_hidden_tool_is_dropped(
    local_tools: list[BaseTool], local_visibility: Visibility
) -> None:
    choices: list[Any] = []

    class Force(AgentMiddleware[Any, Any, Any]):
        def wrap_model_call(
            self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
        ) -> Any:
            return handler(request.override(tool_choice="delete_customer"))

    class Spy(AgentMiddleware[Any, Any, Any]):
        def wrap_model_call(
            self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
        ) -> Any:
            choices.append(request.tool_choice)
            return handler(request)

    agent = agent_for(local_tools, [Force(), LangChainRouter(local_visibility), Spy()], Recorder())
    agent.invoke({"messages": [HumanMessage(WEATHER)]}, context={"query": WEATHER})
    assert choices == [None]


@pytest.mark.parametrize("pass_context_again", [True, False])
def test_resume_needs_the_context_again(
    pass_context_again: bool, local_tools: list[BaseTool], local_visibility: Visibility, bodies: Any
) -> None:
    """LangGraph does not checkpoint `runtime.context`: a resume without it fails closed."""
    assert "get_weather_forecast" in local_visibility.allow_set(WEATHER)
    assert "get_weather_forecast" not in local_visibility.allow_set(MONEY)
    agent = create_agent(
        ScriptedChatModel(respond=Recorder("get_weather_forecast", {"city": "Paris"})),
        tools=local_tools,
        middleware=[
            LangChainRouter(local_visibility),
            HumanInTheLoopMiddleware({"get_weather_forecast": True}, interrupt_mode="per_call"),
        ],
        checkpointer=InMemorySaver(),
    )
    config: Any = {"configurable": {"thread_id": f"resume-{pass_context_again}"}}
    first = agent.invoke(
        {"messages": [HumanMessage(MONEY)]}, config, context={"query": WEATHER}, version="v2"
    )
    assert len(first.interrupts) == 1
    assert bodies.ran == []
    answer = Command(resume={first.interrupts[0].id: {"type": "approve"}})
    context = {"query": WEATHER} if pass_context_again else None
    done = agent.invoke(answer, config, context=context, version="v2")
    result = tool_result(done.value)
    if pass_context_again:
        assert bodies.ran == ["get_weather_forecast"]
        assert refusal_of(result) is None
    else:
        assert bodies.ran == []
        refusal = refusal_of(result)
        assert refusal is not None
        assert refusal["reason"] == "routing_failed"
        assert "MissingRequestError" in refusal["detail"]


class Changing(DelegatingProvider):
    """An allow-set source whose answer a test changes while a run waits for an approval."""

    def __init__(self, visibility: Visibility) -> None:
        super().__init__(visibility)
        self.router = visibility.router
        self.current: Any = visibility

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        return self.current.allow_set(query, principal)

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        return self.current.search(query, principal, k=k)

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        return self.current.permits(route, principal)


@pytest.mark.parametrize("change", ["blocks", "raises"])
def test_resume_with_the_same_context_asks_again(
    change: str, local_tools: list[BaseTool], local_visibility: Visibility, bodies: Any
) -> None:
    """The documented resume passes the same context object: the paused allow-set, cached for it,
    must not decide the approved call once routing hides the tool (a bug: it ran), nor what the
    model is offered after the refusal."""
    source = Changing(local_visibility)
    script = Recorder("get_weather_forecast", {"city": "Paris"})
    agent = create_agent(
        ScriptedChatModel(respond=script),
        tools=local_tools,
        middleware=[
            LangChainRouter(source),
            HumanInTheLoopMiddleware({"get_weather_forecast": True}, interrupt_mode="per_call"),
        ],
        checkpointer=InMemorySaver(),
    )
    config: Any = {"configurable": {"thread_id": f"changed-{change}"}}
    context = {"query": WEATHER}
    first = agent.invoke({"messages": [HumanMessage(WEATHER)]}, config, context=context, version="v2")
    assert len(first.interrupts) == 1
    blocked = Visibility(local_visibility.router, k=2, blocked={"get_weather_forecast"})
    source.current = blocked if change == "blocks" else RaisingVisibility(local_visibility.router)
    answer = Command(resume={first.interrupts[0].id: {"type": "approve"}})
    done = agent.invoke(answer, config, context=context, version="v2")
    assert bodies.ran == []
    refusal = refusal_of(tool_result(done.value))
    assert refusal is not None
    assert refusal["reason"] == ("hidden" if change == "blocks" else "routing_failed")
    assert "get_weather_forecast" not in offered_names(script.offered[-1])  # nor offered after the resume


@pytest.mark.parametrize("form", ["middleware", "routed_model"])
def test_a_tool_missing_from_the_catalog_is_named_once(
    local_tools: list[BaseTool], local_visibility: Visibility, caplog: pytest.LogCaptureFixture, form: str
) -> None:
    @tool
    def audit_log(entry: str) -> str:
        """Append an entry to the audit log of customer records in the CRM."""
        return "logged"

    tools = [*local_tools, audit_log]  # audit_log was never mirrored into the catalog
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        if form == "middleware":
            router = LangChainRouter(local_visibility)
            for query in (WEATHER, MONEY):
                script = Recorder()
                agent_for(tools, [router], script).invoke(
                    {"messages": [HumanMessage(query)]}, context={"query": query}
                )
                assert "audit_log" not in script.first
        else:
            bound = routed_model(ScriptedChatModel(respond=Recorder()), tools, local_visibility)
            for query in (WEATHER, MONEY):
                bound.invoke(query)
    unlisted = [r.getMessage() for r in caplog.records if "not in the router's catalog" in r.getMessage()]
    assert unlisted == [unlisted[0]], unlisted
    assert "'audit_log'" in unlisted[0]


def test_catalogued_tools_log_no_catalog_warning(
    local_tools: list[BaseTool], local_visibility: Visibility, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        agent_for(local_tools, [LangChainRouter(local_visibility)], Recorder()).invoke(
            {"messages": [HumanMessage(WEATHER)]}, context={"query": WEATHER}
        )
    assert not [r for r in caplog.records if r.name == LOGGER_NAME]


@pytest.mark.parametrize(
    ("context", "request_from", "expected"),
    [
        ({"query": 123}, None, "unusable request in the run context: the request query must be a string"),
        ({"query": "q", "principal": ["a"]}, None, "unusable request in the run context: the principal"),
        ({"query": WEATHER}, lambda ctx: ctx["tenant"], "request_from raised KeyError: 'tenant'"),
        ({"query": WEATHER}, lambda ctx: 42, "request_from returned an unusable request"),
    ],
    ids=["int-query", "unhashable-principal", "raising-request-from", "non-request"],
)
def test_an_unusable_request_is_a_routing_error_with_an_accurate_message(
    local_tools: list[BaseTool], local_visibility: Visibility, context: Any, request_from: Any, expected: str
) -> None:
    router = LangChainRouter(local_visibility, request_from=request_from, on_failure="raise")
    agent = agent_for(local_tools, [router], Recorder())
    with pytest.raises(RoutingError) as raised:
        agent.invoke({"messages": [HumanMessage(WEATHER)]}, context=context)
    assert expected in str(raised.value)
    if request_from is None:
        assert "request_from" not in str(raised.value), "no request_from was given"


@pytest.mark.parametrize("cache_size", [-1, 1.5])
def test_cache_size_must_be_a_non_negative_int(local_visibility: Visibility, cache_size: Any) -> None:
    with pytest.raises(UserError, match="cache_size"):
        TurnRouter(local_visibility, cache_size=cache_size)


def test_principals_equal_in_python_are_routed_apart(
    local_tools: list[BaseTool], local_visibility: Visibility
) -> None:
    """`1 == True` in Python: a context reused with its principal changed from `True` to `1` must
    not be served the allow-set cached for the other principal."""

    class FlagOnly(DelegatingProvider):
        router = local_visibility.router

        def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
            return local_visibility.allow_set(query if principal is True else "", principal)

    agent_router = LangChainRouter(FlagOnly(local_visibility))
    context: dict[str, Any] = {"query": WEATHER, "principal": True}
    flagged = Recorder()
    agent_for(local_tools, [agent_router], flagged).invoke(
        {"messages": [HumanMessage(WEATHER)]}, context=context
    )
    assert flagged.first
    context["principal"] = 1
    account = Recorder()
    agent_for(local_tools, [agent_router], account).invoke(
        {"messages": [HumanMessage(WEATHER)]}, context=context
    )
    assert account.first == ()
