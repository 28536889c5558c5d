"""Conversation mode in a real `create_agent` loop over the fixture MCP server (stdio and HTTP).

`LangChainRouter(visibility, sessions=SessionLimits())` keeps one `RoutingSession` per
conversation in the graph state, under an `InMemorySaver`: the list only grows from turn to turn,
find-tools (offered first) reveals what routing missed, `HumanInTheLoopMiddleware` still pauses a
revealed destructive tool, a resumed run is offered exactly what it was offered before, and
conversations on separate threads never mix. Every expectation comes from core's own
`RoutingSession`; every "did it run?" answer from the fixture's call log.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, HumanInTheLoopMiddleware
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from schemarouter import McpSource, RoutingSession, SchemaRouter, SessionLimits, SessionState, Visibility
from schemarouter.catalog import canonical_bytes
from schemarouter.visibility import FIND_TOOLS
from schemarouter_conformance import read_call_log
from schemarouter_langchain import SESSIONS_STATE_KEY, LangChainRouter, McpToolkit, refusal_of
from schemarouter_langchain.testing import ScriptedChatModel, offered_names

from .conftest import SOURCE

WEATHER = "what is the weather forecast for Paris this week"
MONEY = "convert 100 USD to EUR at today's exchange rate"
INVOICES = "list the overdue invoices of customer c-100"
CRM = "search the CRM for customers named Ada"
JOKE = "tell me a joke about cats"
DELETE = "permanently delete customer c-200 from the CRM"

Call = tuple[str, Mapping[str, Any]]


def find(query: str) -> Call:
    return (FIND_TOOLS.name, {FIND_TOOLS.argument: query})


def this_turn(messages: Sequence[BaseMessage]) -> Sequence[BaseMessage]:
    last = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
    return messages[last + 1 :]


@dataclass
class Script:
    """Per-run plans (keyed by the run's human message id): on model step i, make the calls of
    `plan[i]`, then answer. Records the tools offered on every model step of every run."""

    plans: dict[str, list[list[Call]]] = field(default_factory=dict[str, list[list[Call]]])
    offers: dict[str, list[tuple[Mapping[str, Any], ...]]] = field(
        default_factory=dict[str, list[tuple[Mapping[str, Any], ...]]]
    )

    def __call__(self, messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        run = str(next(m for m in reversed(messages) if isinstance(m, HumanMessage)).id)
        self.offers.setdefault(run, []).append(tuple(tools))
        step = sum(isinstance(m, AIMessage) for m in this_turn(messages))
        plan = self.plans.get(run, [])
        if step >= len(plan):
            return AIMessage(content="done")
        calls = [
            {"name": n, "args": dict(a), "id": f"{run}-{step}-{i}"} for i, (n, a) in enumerate(plan[step])
        ]
        return AIMessage(content="", tool_calls=calls)

    def names(self, run: str) -> list[tuple[str, ...]]:
        """The names offered on each model step of `run`."""
        return [offered_names(tools) for tools in self.offers.get(run, [])]


@dataclass
class Served:
    """The fixture server over one transport, and the call-log entries since the test started."""

    source: McpSource
    log: Path
    start: int

    def calls(self) -> list[dict[str, Any]]:
        return read_call_log(self.log)[self.start :]


@pytest.fixture(params=["stdio", "http"])
def served(request: pytest.FixtureRequest, call_log: Path) -> Served:
    if request.param == "stdio":
        source: McpSource = request.getfixturevalue("stdio_source")
        return Served(source, call_log, 0)
    url, log = request.getfixturevalue("http_server")
    return Served(McpSource.http(url, name=SOURCE), log, len(read_call_log(log)))


@dataclass
class Chat:
    """One agent in conversation mode, and how to say something in a thread."""

    agent: Any
    router: LangChainRouter
    script: Script
    visibility: Visibility

    def expected(self) -> RoutingSession:
        """Core's own session over the same visibility: what a conversation should be offered."""
        return RoutingSession(self.visibility, conversation_id="expected")

    async def say(
        self,
        thread: str,
        query: str,
        *plan: list[Call],
        context: Any = None,
        resume: Any = None,
    ) -> tuple[str, Any]:
        """One run in `thread` (the context names the conversation `thread` unless given)."""
        run = f"run-{uuid.uuid4().hex}"
        self.script.plans[run] = list(plan)
        config: RunnableConfig = {"configurable": {"thread_id": thread}}
        ctx = context if context is not None else {"query": query, "conversation": thread}
        message: Any = (
            Command(resume=resume) if resume is not None else {"messages": [HumanMessage(query, id=run)]}
        )
        out = await self.agent.ainvoke(message, config, context=ctx, version="v2")
        return run, out

    def saved(self, thread: str) -> dict[str, Any]:
        return self.agent.get_state({"configurable": {"thread_id": thread}}).values.get(
            SESSIONS_STATE_KEY, {}
        )


@pytest.fixture
async def chat(served: Served, fixture_router: SchemaRouter) -> AsyncIterator[Chat]:
    async with McpToolkit(served.source) as toolkit:
        yield make_chat(Visibility(fixture_router, k=3), toolkit.tools)


def make_chat(
    visibility: Visibility,
    tools: Sequence[BaseTool],
    *,
    sessions: SessionLimits | None = None,
    approvals: Sequence[str] = ("delete_customer", "delete_invoice"),
    **options: Any,
) -> Chat:
    script = Script()
    router = LangChainRouter(visibility, sessions=sessions or SessionLimits(), **options)
    middleware: list[AgentMiddleware[Any, Any, Any]] = [router]
    if approvals:
        middleware.append(HumanInTheLoopMiddleware(dict.fromkeys(approvals, True)))
    agent = create_agent(
        ScriptedChatModel(respond=script),
        tools=list(tools),
        middleware=middleware,
        checkpointer=InMemorySaver(),
    )
    return Chat(agent, router, script, visibility)


def tool_results(out: Any, name: str) -> list[ToolMessage]:
    return [m for m in this_turn(out.value["messages"]) if isinstance(m, ToolMessage) and m.name == name]


async def test_the_list_only_grows_find_tools_first(chat: Chat, served: Served) -> None:
    """Three turns: each is offered the conversation's tools as core's session has them (find-tools
    first, then first-offered order), each list starts with the previous one, and every schema is
    the source's, byte for byte (find-tools' is `FIND_TOOLS.input_schema`)."""
    expected = chat.expected()
    catalog = chat.visibility.router.catalog
    previous: tuple[str, ...] = ()
    for query in (WEATHER, MONEY, INVOICES):
        run, _ = await chat.say("c-1", query)
        (offered,) = chat.script.offers[run]
        names = offered_names(offered)
        assert names == expected.offer(query).tool_names
        assert names[0] == FIND_TOOLS.name
        assert names[: len(previous)] == previous
        assert len(names) > len(previous)
        for tool in offered[1:]:
            cap = catalog.lookup(SOURCE, tool["function"]["name"])
            assert cap is not None
            assert canonical_bytes(tool["function"]["parameters"]) == canonical_bytes(cap.input_schema)
        assert offered[0]["function"] == {
            "name": FIND_TOOLS.name,
            "description": FIND_TOOLS.description,
            "parameters": FIND_TOOLS.input_schema,
        }
        previous = names
    assert json.dumps(chat.script.offers[run][0][0]["function"]["parameters"]) == json.dumps(
        FIND_TOOLS.input_schema
    )
    assert served.calls() == []


async def test_find_tools_reveals_a_tool_the_next_step_calls(chat: Chat, served: Served) -> None:
    """find-tools adds a tool routing missed; the next model step is offered it (appended last)
    and calls it, and it runs once. find-tools itself runs no tool body."""
    expected = chat.expected()
    first = expected.offer(WEATHER).tool_names
    found = expected.find_tools("convert currency")
    added = tuple(t.name for t in found.added)
    assert added[0] == "convert_currency", "the best match first, then runners-up"
    arguments = {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}
    run, out = await chat.say("c-2", WEATHER, [find("convert currency")], [("convert_currency", arguments)])
    steps = chat.script.names(run)
    assert steps[0] == first
    assert steps[1] == expected.offer(WEATHER).tool_names == (*first, *added)
    assert [m.text for m in tool_results(out, FIND_TOOLS.name)] == [found.text()]
    (result,) = tool_results(out, "convert_currency")
    assert result.status == "success"
    assert served.calls() == [{"tool": "convert_currency", "arguments": arguments}]
    # The next turn starts from the grown list.
    run, _ = await chat.say("c-2", MONEY)
    assert chat.script.names(run)[0] == expected.offer(MONEY).tool_names


async def test_a_revealed_destructive_tool_pauses_and_the_resumed_run_offers_the_same(
    chat: Chat, served: Served
) -> None:
    """delete_customer, revealed by find-tools, still pauses for approval (HITL); the pause saved the
    conversation's list with the checkpoint, and the resumed run is offered exactly that list,
    after a rejection (nothing runs) and after an approval (it runs once)."""
    thread = "c-3"
    arguments = {"customer_id": "c-200"}
    for decision, runs in (
        ("reject", []),
        ("approve", [{"tool": "delete_customer", "arguments": arguments}]),
    ):
        run, out = await chat.say(
            thread, WEATHER, [find("delete customer")], [("delete_customer", arguments)]
        )
        steps = chat.script.names(run)
        assert "delete_customer" in steps[-1]
        (interrupt,) = out.interrupts
        assert interrupt.value["action_requests"][0]["name"] == "delete_customer"
        assert served.calls() == []
        saved = chat.saved(thread)
        answer = {"decisions": [{"type": decision}]}
        _, out = await chat.say(
            thread, WEATHER, resume={interrupt.id: answer}, context={"query": WEATHER, "conversation": thread}
        )
        assert not out.interrupts
        resumed = chat.script.names(run)
        assert resumed[-1] == steps[-1], "the resumed run must be offered the list it paused with"
        assert chat.saved(thread) == saved
        (result,) = tool_results(out, "delete_customer")
        assert refusal_of(result) is None
        assert served.calls() == runs
    # The state is plain data, and loads as a core SessionState.
    state = json.loads(json.dumps(chat.saved(thread)))[thread]
    assert "fixture:delete_customer" in SessionState.from_dict(state).routes


async def test_concurrent_conversations_do_not_mix(chat: Chat, served: Served) -> None:
    """Two pairs of conversations with disjoint plans run step by step at once, on one agent:
    each is offered exactly its own conversation's tools at every step."""
    plans = {"left": (WEATHER, "convert currency", INVOICES), "right": (CRM, "translate text", MONEY)}
    expected: dict[str, list[tuple[str, ...]]] = {}
    for plan, (first, search, second) in plans.items():
        session = chat.expected()
        expected[plan] = [session.offer(first).tool_names]
        session.find_tools(search)
        expected[plan] += [session.offer(first).tool_names, session.offer(second).tool_names]
    threads = [(f"{plan}-{copy}", plan) for copy in range(2) for plan in plans]

    async def step(thread: str, plan: str, index: int) -> tuple[str, ...]:
        first, search, second = plans[plan]
        if index == 0:
            run, _ = await chat.say(thread, first)
            return chat.script.names(run)[0]
        if index == 1:
            run, _ = await chat.say(thread, first, [find(search)])
            return chat.script.names(run)[1]
        run, _ = await chat.say(thread, second)
        return chat.script.names(run)[0]

    for index in range(3):
        offered = await asyncio.gather(*(step(thread, plan, index) for thread, plan in threads))
        for (thread, plan), names in zip(threads, offered, strict=True):
            assert names == expected[plan][index], (thread, index)
    assert served.calls() == []


async def test_parallel_find_tools_calls_of_one_step_all_count(chat: Chat) -> None:
    """A model answer with two find-tools calls: LangChain runs them as two tasks of one step,
    from the same saved state; both searches are kept, as core's session answers them in turn."""
    expected = chat.expected()
    expected.offer(WEATHER)
    texts = [expected.find_tools(q).text() for q in ("convert currency", "translate text")]
    run, out = await chat.say("c-5", WEATHER, [find("convert currency"), find("translate text")])
    assert sorted(m.text for m in tool_results(out, FIND_TOOLS.name)) == sorted(texts)
    # The two tasks may run in either order: the same tools, appended in the order they answered.
    offered = chat.script.names(run)[1]
    wanted = expected.offer(WEATHER).tool_names
    assert offered[:2] == wanted[:2]
    assert sorted(offered) == sorted(wanted)
    saved = chat.saved("c-5")["c-5"]
    assert saved["find_calls"] == 2
    assert sorted(saved["routes"]) == sorted(expected.state.routes)


async def test_a_call_is_checked_against_the_list_the_model_was_offered(chat: Chat, served: Served) -> None:
    """The model calls delete_customer, which its conversation was never offered; batched HITL asks
    about it anyway. The resume carries a request that would route delete_customer, and is
    approved: the call is still refused (the saved list decides, nothing is routed anew) and
    does not run."""
    run, out = await chat.say("c-6", WEATHER, [("delete_customer", {"customer_id": "c-200"})])
    assert "delete_customer" not in chat.script.names(run)[0]
    (interrupt,) = out.interrupts
    context = {"query": DELETE, "conversation": "c-6"}
    _, out = await chat.say(
        "c-6", DELETE, resume={interrupt.id: {"decisions": [{"type": "approve"}]}}, context=context
    )
    (result,) = tool_results(out, "delete_customer")
    refusal = refusal_of(result)
    assert refusal is not None
    assert refusal["reason"] == "hidden"
    assert served.calls() == []
