"""Conversation mode against real PydanticAI runs (FunctionModel, local function tools).

One list of tools per conversation that only grows, kept in deps; find-tools first; approvals,
hooks and call-time refusals as for routed tools; failing closed without a conversation id.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import Hooks
from pydantic_ai.messages import (
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.test import TestModel
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults, ToolDefinition, ToolDenied
from pydantic_ai.toolsets import AbstractToolset, FunctionToolset
from pydantic_ai.usage import RunUsage

from schemarouter import AllowSet, SchemaRouter, SessionLimits, UserError, Visibility
from schemarouter.visibility import FIND_TOOLS
from schemarouter_pydantic_ai import (
    LOGGER_NAME,
    AdapterSetupError,
    ConversationDeps,
    HiddenToolCallError,
    PydanticAIRouter,
    RoutingRequest,
    RoutingUnavailableError,
    catalog_from_function_toolset,
)

from .conftest import Script, local_tools, run

WEATHER = "weather forecast for Paris"
CURRENCY = "convert 100 USD to EUR"
CUSTOMERS = "search the CRM for customers named Ada"
JOKE = "tell me a joke about cats"
CONVERT_ARGS = {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}


def agent_with(*toolsets: AbstractToolset[Any], capabilities: list[Any] | None = None) -> Agent[Any, Any]:
    return Agent(
        None,
        toolsets=list(toolsets),
        capabilities=capabilities or [],
        output_type=[str, DeferredToolRequests],
    )


def conversation_router(visibility: Visibility, limits: SessionLimits | None = None) -> PydanticAIRouter:
    return PydanticAIRouter(visibility, sessions=limits or SessionLimits())


def tool_answer(result: Any, call_id: str) -> ToolReturnPart | RetryPromptPart:
    for message in reversed(result.all_messages()):
        for part in getattr(message, "parts", ()):
            if isinstance(part, ToolReturnPart | RetryPromptPart) and part.tool_call_id == call_id:
                return part
    raise AssertionError(f"no answer to {call_id}")


def sent_back(answer: ToolReturnPart | RetryPromptPart) -> bool:
    """Was the call answered with feedback for the model instead of a result? (PydanticAI answers an
    unknown tool or a `ModelRetry` with a retry prompt, or, in newer releases, a `retried` return.)"""
    return isinstance(answer, RetryPromptPart) or answer.outcome == "retried"


def find(query: str) -> tuple[str, dict[str, Any]]:
    return (FIND_TOOLS.name, {"query": query})


async def test_find_tools_is_offered_first_exactly_as_core_defines_it(visibility: Visibility) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    script, _ = await run(agent, ConversationDeps(WEATHER, conversation="c-1"))
    offered = script.seen[0]
    assert [d.name for d in offered] == [FIND_TOOLS.name, "get_weather_forecast"]
    finder = offered[0]
    assert finder.description == FIND_TOOLS.description
    assert json.dumps(finder.parameters_json_schema) == json.dumps(FIND_TOOLS.input_schema)
    assert finder.kind == "function"


async def test_without_sessions_no_find_tools_is_offered(visibility: Visibility) -> None:
    agent = agent_with(PydanticAIRouter(visibility).toolset(local_tools()))
    script, _ = await run(agent, ConversationDeps(WEATHER, conversation="c-1"))
    assert script.offered() == ["get_weather_forecast"]


async def test_the_list_only_grows_across_turns(visibility: Visibility) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    deps = ConversationDeps(WEATHER, conversation="c-1")
    offered: list[list[str]] = []
    for query in (WEATHER, CURRENCY, JOKE, CUSTOMERS):
        deps.query = query
        script, _ = await run(agent, deps)
        offered.append(script.offered())
    assert offered[0] == [FIND_TOOLS.name, "get_weather_forecast"]
    for before, after in itertools.pairwise(offered):
        assert after[: len(before)] == before
    assert offered[1] == [FIND_TOOLS.name, "get_weather_forecast", "convert_currency"]
    assert offered[2] == offered[1], "a request with no route adds nothing"
    assert set(offered[3]) > set(offered[2])


async def test_no_route_on_a_first_turn_offers_find_tools_alone(visibility: Visibility) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    script, _ = await run(agent, ConversationDeps(JOKE, conversation="c-1"))
    assert script.offered() == [FIND_TOOLS.name]


async def test_find_tools_reveals_a_missed_tool_which_the_next_step_calls(
    visibility: Visibility, body_calls: list[tuple[str, dict[str, Any]]]
) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    deps = ConversationDeps(WEATHER, conversation="c-1")
    script, result = await run(agent, deps, find("convert currency"), ("convert_currency", CONVERT_ARGS))
    assert "convert_currency" not in script.offered(0)
    assert script.offered(1) == [FIND_TOOLS.name, "get_weather_forecast", "convert_currency"]
    answer = tool_answer(result, "c1")
    assert not sent_back(answer)
    assert str(answer.content).startswith("These tools are now available")
    assert "convert_currency" in str(answer.content)
    assert [name for name, _ in body_calls] == ["convert_currency"]
    assert deps.schemarouter_session is not None
    assert deps.schemarouter_session["routes"] == ["local:get_weather_forecast", "local:convert_currency"]


async def test_find_tools_runs_no_tool_body(
    visibility: Visibility, body_calls: list[tuple[str, dict[str, Any]]]
) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    deps = ConversationDeps(JOKE, conversation="c-1")
    await run(agent, deps, find("convert currency"), find("delete a customer"), find("weather forecast"))
    assert body_calls == []


async def test_a_revealed_tool_that_needs_approval_pauses_and_the_resumed_run_offers_the_same_list(
    visibility: Visibility, body_calls: list[tuple[str, dict[str, Any]]]
) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    deps = ConversationDeps(WEATHER, conversation="c-1")
    script, result = await run(
        agent, deps, find("delete a customer"), ("delete_customer", {"customer_id": "c-2"})
    )
    assert "delete_customer" in script.offered(1)
    assert isinstance(result.output, DeferredToolRequests)
    assert [call.tool_name for call in result.output.approvals] == ["delete_customer"]
    assert body_calls == []
    saved = dict(deps.schemarouter_session or {})

    resumed = Script()
    done = await agent.run(
        deps=deps,
        model=resumed.model(),
        message_history=result.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"c2": True}),
    )
    assert resumed.offered(0) == script.offered(1)
    assert [name for name, _ in body_calls] == ["delete_customer"]
    assert isinstance(tool_answer(done, "c2"), ToolReturnPart)
    assert deps.schemarouter_session == saved


async def test_rejecting_a_revealed_tool_keeps_it_from_running(
    visibility: Visibility, body_calls: list[tuple[str, dict[str, Any]]]
) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    deps = ConversationDeps(WEATHER, conversation="c-1")
    _, result = await run(agent, deps, find("delete a customer"), ("delete_customer", {"customer_id": "c-2"}))
    assert isinstance(result.output, DeferredToolRequests)
    resumed = Script()
    done = await agent.run(
        deps=deps,
        model=resumed.model(),
        message_history=result.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"c2": ToolDenied("no")}),
    )
    assert body_calls == []
    assert "no" in str(tool_answer(done, "c2").content)


async def test_hooks_see_calls_to_revealed_tools(visibility: Visibility) -> None:
    seen: list[str] = []
    hooks: Hooks[Any] = Hooks()

    @hooks.on.before_tool_execute
    async def record(  # pyright: ignore[reportUnusedFunction]
        ctx: RunContext[Any], /, *, call: ToolCallPart, tool_def: ToolDefinition, args: dict[str, Any]
    ) -> dict[str, Any]:
        seen.append(call.tool_name)
        return args

    agent = agent_with(conversation_router(visibility).toolset(local_tools()), capabilities=[hooks])
    await run(
        agent,
        ConversationDeps(WEATHER, conversation="c-1"),
        find("currency"),
        ("convert_currency", CONVERT_ARGS),
    )
    assert seen == [FIND_TOOLS.name, "convert_currency"]


async def test_a_tool_outside_the_list_stays_unknown_to_the_run(
    visibility: Visibility, body_calls: list[tuple[str, dict[str, Any]]]
) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    _, result = await run(
        agent, ConversationDeps(WEATHER, conversation="c-1"), ("convert_currency", CONVERT_ARGS)
    )
    answer = tool_answer(result, "c1")
    assert sent_back(answer)
    assert str(answer.content).startswith("Unknown tool name")
    assert body_calls == []


async def test_call_time_check_uses_the_conversation_list(visibility: Visibility) -> None:
    router = conversation_router(visibility)
    routed = router.toolset(local_tools())
    deps = ConversationDeps(WEATHER, conversation="c-1")
    ctx = RunContext(deps=deps, model=TestModel(), usage=RunUsage())
    tools = await local_tools().get_tools(ctx)
    with pytest.raises(HiddenToolCallError):
        await routed.call_tool("convert_currency", CONVERT_ARGS, ctx, tools["convert_currency"])
    assert "convert_currency" in router.find_tools(ctx, "convert currency")
    assert await routed.call_tool("convert_currency", CONVERT_ARGS, ctx, tools["convert_currency"]) == 100


async def test_find_tools_reveals_nothing_a_rule_blocks(visibility: Visibility) -> None:
    catalog = visibility.router.catalog
    blocking = Visibility(SchemaRouter(catalog), k=3, blocked=("local:delete_customer",))
    agent = agent_with(conversation_router(blocking).toolset(local_tools()))
    script, result = await run(
        agent, ConversationDeps(WEATHER, conversation="c-1"), find("delete a customer")
    )
    assert "delete_customer" not in script.offered(1)
    assert "delete_customer" not in str(tool_answer(result, "c1").content)


class PerPrincipal:
    """Guests are never routed `delete_customer`."""

    def __init__(self, visibility: Visibility) -> None:
        self.router = visibility.router
        self.catalog = visibility.catalog
        self.everyone = visibility
        self.guests = Visibility(visibility.router, k=3, blocked=("local:delete_customer",))

    def _for(self, principal: Hashable | None) -> Visibility:
        return self.guests if principal == "guest" else self.everyone

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        return self._for(principal).allow_set(query, principal)

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        return self._for(principal).search(query, principal, k=k)

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        return self._for(principal).permits(route, principal)


async def test_find_tools_reveals_nothing_hidden_from_the_principal(visibility: Visibility) -> None:
    agent = agent_with(conversation_router(PerPrincipal(visibility)).toolset(local_tools()))  # type: ignore[arg-type]
    guest = ConversationDeps(WEATHER, conversation="c-1", principal="guest")
    member = ConversationDeps(WEATHER, conversation="c-1", principal="member")
    as_guest, _ = await run(agent, guest, find("delete a customer"))
    as_member, _ = await run(agent, member, find("delete a customer"))
    assert "delete_customer" not in as_guest.offered(1)
    assert "delete_customer" in as_member.offered(1)


async def test_concurrent_conversations_never_see_each_others_tools(visibility: Visibility) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    plans = {
        "weather": (WEATHER, "convert currency", "convert_currency"),
        "crm": (CUSTOMERS, "delete a customer", "delete_customer"),
        "joke": (JOKE, "weather forecast", "get_weather_forecast"),
    }

    async def conversation(cid: str) -> tuple[list[str], list[str]]:
        query, search, _ = plans[cid]
        deps = ConversationDeps(query, conversation=cid)
        first, _ = await run(agent, deps, find(search))
        deps.query = JOKE  # a turn with no route: the list as it is
        second, _ = await run(agent, deps)
        return first.offered(1), second.offered()

    for _ in range(3):
        results = await asyncio.gather(*(conversation(cid) for cid in plans for _ in range(2)))
        for (cid, (query, _, found)), (after_find, later) in zip(
            [(cid, plans[cid]) for cid in plans for _ in range(2)], results, strict=True
        ):
            own = {found, *visibility.allow_set(query).names}
            assert set(after_find) - {FIND_TOOLS.name} <= own, cid
            assert later[: len(after_find)] == after_find, cid
            assert set(later) - {FIND_TOOLS.name} <= own, cid


async def test_no_conversation_id_fails_closed(
    visibility: Visibility, caplog: pytest.LogCaptureFixture
) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    for deps in (RoutingRequest(WEATHER), {"query": WEATHER}, {"query": WEATHER, "conversation": ""}):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
            script, _ = await run(agent, deps)
        assert script.offered() == []
        assert any("missing_conversation" in r.getMessage() for r in caplog.records)


async def test_no_conversation_id_raises_when_asked_to(visibility: Visibility) -> None:
    router = PydanticAIRouter(visibility, sessions=SessionLimits(), on_failure="raise")
    with pytest.raises(RoutingUnavailableError) as raised:
        await run(agent_with(router.toolset(local_tools())), {"query": WEATHER})
    assert raised.value.cause == "missing_conversation"


async def test_a_conversation_id_that_is_no_string_fails_closed(
    visibility: Visibility, caplog: pytest.LogCaptureFixture
) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        script, _ = await run(agent, {"query": WEATHER, "conversation": 7})
    assert script.offered() == []
    assert any("request_error" in r.getMessage() for r in caplog.records)


@dataclass(frozen=True)
class FrozenDeps:
    query: str
    conversation: str


async def test_deps_that_cannot_hold_the_state_fail_closed(
    visibility: Visibility, caplog: pytest.LogCaptureFixture
) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        script, _ = await run(agent, FrozenDeps(WEATHER, "c-1"))
    assert script.offered() == []
    assert any("session_error" in r.getMessage() for r in caplog.records)


async def test_dict_deps_carry_the_state(visibility: Visibility) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    deps: dict[str, Any] = {"query": WEATHER, "conversation": "c-1"}
    await run(agent, deps, find("convert currency"))
    assert deps["schemarouter_session"]["routes"] == ["local:get_weather_forecast", "local:convert_currency"]


async def test_the_saved_state_resumes_in_another_router(visibility: Visibility) -> None:
    """The state in deps is all a conversation needs: plain data that survives JSON, read by a
    router that never saw the conversation (another process, another worker)."""
    deps = ConversationDeps(WEATHER, conversation="c-1")
    first, _ = await run(
        agent_with(conversation_router(visibility).toolset(local_tools())), deps, find("currency")
    )
    restored = ConversationDeps(JOKE, conversation="c-1")
    restored.schemarouter_session = json.loads(json.dumps(deps.schemarouter_session))
    later, _ = await run(agent_with(conversation_router(visibility).toolset(local_tools())), restored)
    assert later.offered() == first.offered(1)


async def test_an_older_state_in_deps_wins_over_the_live_session(visibility: Visibility) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    deps = ConversationDeps(WEATHER, conversation="c-1")
    first, _ = await run(agent, deps)
    checkpoint = dict(deps.schemarouter_session or {})
    deps.query = CURRENCY
    await run(agent, deps)
    back = ConversationDeps(WEATHER, conversation="c-1", schemarouter_session=checkpoint)
    again, _ = await run(agent, back)
    assert again.offered() == first.offered()


async def test_a_state_of_another_principal_fails_closed(
    visibility: Visibility, caplog: pytest.LogCaptureFixture
) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    deps = ConversationDeps(WEATHER, conversation="c-1", principal="alice")
    await run(agent, deps, find("delete a customer"))
    deps.principal = "mallory"
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        script, _ = await run(agent, deps)
    assert script.offered() == []
    assert any("session_error" in r.getMessage() and "principal" in r.getMessage() for r in caplog.records)


async def test_a_state_of_another_conversation_fails_closed(
    visibility: Visibility, caplog: pytest.LogCaptureFixture
) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    deps = ConversationDeps(WEATHER, conversation="c-1")
    await run(agent, deps)
    deps.conversation = "c-2"
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        script, _ = await run(agent, deps)
    assert script.offered() == []
    assert any("session_error" in r.getMessage() for r in caplog.records)


async def test_an_unreadable_state_fails_closed(
    visibility: Visibility, caplog: pytest.LogCaptureFixture
) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    deps = {"query": WEATHER, "conversation": "c-1", "schemarouter_session": {"format": 99}}
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        script, _ = await run(agent, deps)
    assert script.offered() == []
    assert any("session_error" in r.getMessage() for r in caplog.records)


async def test_find_tools_off_offers_nothing_on_a_first_turn_with_no_route(visibility: Visibility) -> None:
    agent = agent_with(
        conversation_router(visibility, SessionLimits(find_tools=False)).toolset(local_tools())
    )
    deps = ConversationDeps(JOKE, conversation="c-1")
    script, result = await run(agent, deps, find("convert currency"))
    assert script.offered(0) == []
    assert str(tool_answer(result, "c1").content).startswith("Unknown tool name")
    deps.query = WEATHER
    later, _ = await run(agent, deps)
    assert later.offered() == ["get_weather_forecast"]


@pytest.mark.parametrize(
    "arguments",
    [{"query": "currency", "limit": 3}, {"q": "currency"}, {"query": ""}, {"query": "x" * 501}, {"query": 3}],
    ids=["extra", "missing", "empty", "too_long", "not_a_string"],
)
async def test_bad_find_tools_arguments_are_sent_back_to_the_model(
    visibility: Visibility, arguments: dict[str, Any]
) -> None:
    agent = agent_with(conversation_router(visibility).toolset(local_tools()))
    deps = ConversationDeps(WEATHER, conversation="c-1")
    script, result = await run(agent, deps, (FIND_TOOLS.name, arguments))
    assert sent_back(tool_answer(result, "c1"))
    assert script.offered(1) == [FIND_TOOLS.name, "get_weather_forecast"]
    assert deps.schemarouter_session is not None
    assert deps.schemarouter_session["find_calls"] == 0


async def test_capability_restores_the_conversation_order_agent_wide(visibility: Visibility) -> None:
    """The capability sees every function tool, so it orders them all: find-tools first, then
    the conversation's list in first-offered order (not the order the toolsets list them in)."""
    router = conversation_router(visibility)
    agent = agent_with(local_tools(), capabilities=[router.capability()])
    deps = ConversationDeps(CURRENCY, conversation="c-1")
    await run(agent, deps)
    deps.query = WEATHER
    script, _ = await run(agent, deps, find("search customers"))
    assert script.offered(0) == [FIND_TOOLS.name, "convert_currency", "get_weather_forecast"]
    assert script.offered(1)[:3] == script.offered(0)
    assert "search_customers" in script.offered(1)


async def test_toolset_form_orders_within_the_routed_toolset_only(visibility: Visibility) -> None:
    """PydanticAI lists the agent's own tools first, then each toolset in turn: the routed toolset
    keeps find-tools and the conversation's list in order among its own tools, but a toolset
    listed before it comes first. Put the routed toolset first to keep find-tools at the head."""

    def local_clock() -> str:
        """Tell the time."""
        return "noon"

    router = conversation_router(visibility)
    deps = ConversationDeps(WEATHER, conversation="c-1")
    before, _ = await run(agent_with(FunctionToolset([local_clock]), router.toolset(local_tools())), deps)
    first, _ = await run(agent_with(router.toolset(local_tools()), FunctionToolset([local_clock])), deps)
    assert before.offered() == ["local_clock", FIND_TOOLS.name, "get_weather_forecast"]
    assert first.offered() == [FIND_TOOLS.name, "get_weather_forecast", "local_clock"]


async def test_only_one_routed_toolset_may_offer_find_tools(visibility: Visibility) -> None:
    from pydantic_ai.exceptions import UserError as PydanticAIUserError

    router = conversation_router(visibility)
    deps = ConversationDeps(WEATHER, conversation="c-1")
    both = agent_with(router.toolset(local_tools()), router.toolset(local_tools(), source="local"))
    with pytest.raises(PydanticAIUserError, match="find_tools"):
        await run(both, deps)
    one = agent_with(router.toolset(local_tools()), router.toolset(FunctionToolset(), offer_find_tools=False))
    script, _ = await run(one, deps)
    assert script.offered() == [FIND_TOOLS.name, "get_weather_forecast"]


async def test_a_routed_tool_named_like_find_tools_is_hidden(caplog: pytest.LogCaptureFixture) -> None:
    def find_tools(query: str) -> str:
        """Find tools in the local registry by their name."""
        return query

    toolset = FunctionToolset([find_tools])
    visibility = Visibility(SchemaRouter(catalog_from_function_toolset("local", toolset)), k=3)
    agent = agent_with(conversation_router(visibility).toolset(toolset))
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        script, result = await run(
            agent, ConversationDeps("find tools by name", conversation="c-1"), find("x")
        )
    assert script.offered(0) == [FIND_TOOLS.name]
    assert not sent_back(tool_answer(result, "c1"))
    assert any("offer_find_tools=False" in r.getMessage() for r in caplog.records)


async def test_setup_errors() -> None:
    from pydantic_ai.toolsets import FunctionToolset as Tools

    class NoCatalog:
        def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
            raise AssertionError("never asked")

    with pytest.raises(UserError, match="lacks catalog"):
        PydanticAIRouter(NoCatalog(), sessions=SessionLimits())  # pyright: ignore[reportArgumentType]
    visibility = Visibility(SchemaRouter(catalog_from_function_toolset("local", Tools([]))), k=3)
    with pytest.raises(AdapterSetupError, match="SessionLimits"):
        PydanticAIRouter(visibility, sessions={"max_tools": 3})  # type: ignore[arg-type]
    with pytest.raises(AdapterSetupError, match="conversation_from"):
        PydanticAIRouter(visibility, sessions=SessionLimits(), conversation_from="conversation")  # type: ignore[arg-type]


async def test_conversation_from_can_read_pydantic_ais_conversation_id(visibility: Visibility) -> None:
    router = PydanticAIRouter(
        visibility, sessions=SessionLimits(), conversation_from=lambda ctx: ctx.conversation_id
    )
    agent = agent_with(router.toolset(local_tools()))
    deps: dict[str, Any] = {"query": WEATHER}
    script = Script(find("convert currency"))
    await agent.run("x", deps=deps, model=script.model(), conversation_id="pa-1")
    assert deps["schemarouter_session"]["conversation_id"] == "pa-1"
    deps["query"] = JOKE
    later = Script()
    await agent.run("y", deps=deps, model=later.model(), conversation_id="pa-1")
    assert later.offered() == [FIND_TOOLS.name, "get_weather_forecast", "convert_currency"]
