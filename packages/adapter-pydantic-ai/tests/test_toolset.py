"""The routed toolset and the capability against real PydanticAI runs (FunctionModel, local tools)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Hashable
from typing import Any

import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults, ToolDefinition
from pydantic_ai.toolsets import AbstractToolset

import schemarouter
from schemarouter import AllowSet, Catalog, SchemaRouter, Visibility
from schemarouter.testing import DelegatingProvider, RaisingVisibility
from schemarouter_pydantic_ai import (
    LOGGER_NAME,
    AdapterSetupError,
    HiddenToolCallError,
    PydanticAIRouter,
    RouteRequest,
    RoutingRequest,
    RoutingUnavailableError,
)

from .conftest import local_tools

SUPPORTED = "search the CRM for customers named Ada"
UNSUPPORTED = "tell me a joke about cats"
DELETE = "permanently delete customer c-200 from the CRM"


class Script:
    """A FunctionModel script: optionally call one tool first, then answer; records what it saw."""

    def __init__(self, tool: str | None = None, args: dict[str, Any] | None = None) -> None:
        self.tool, self.args = tool, args or {}
        self.seen: list[list[ToolDefinition]] = []

    def model(self) -> FunctionModel:
        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.seen.append(list(info.function_tools))
            if self.tool is not None and len(self.seen) == 1:
                return ModelResponse(parts=[ToolCallPart(self.tool, self.args, tool_call_id="c1")])
            return ModelResponse(parts=[TextPart("done")])

        return FunctionModel(respond)

    @property
    def offered(self) -> list[str]:
        return [d.name for d in self.seen[0]]


def agent_with(*toolsets: AbstractToolset[Any], capabilities: list[Any] | None = None) -> Agent[Any, Any]:
    return Agent(
        None,
        toolsets=list(toolsets),
        capabilities=capabilities or [],
        output_type=[str, DeferredToolRequests],
    )


async def offered(agent: Agent[Any, Any], deps: object) -> list[str]:
    script = Script()
    await agent.run("hello", deps=deps, model=script.model())
    return script.offered


class CountingVisibility(DelegatingProvider):
    """Counts allow-set computations; delegates to a real Visibility."""

    def __init__(self, visibility: Visibility) -> None:
        super().__init__(visibility)
        self.visibility, self.calls = visibility, 0
        self.router = visibility.router

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        self.calls += 1
        return self.visibility.allow_set(query, principal)


class Exploding(RaisingVisibility):
    def __init__(self) -> None:
        super().__init__(SchemaRouter(Catalog()), error=RuntimeError("index unavailable"))


async def test_supported_query_offers_the_allow_set_in_rank_order(visibility: Visibility) -> None:
    router = PydanticAIRouter(visibility)
    expected = visibility.allow_set(SUPPORTED)
    assert not expected.no_route
    names = await offered(agent_with(router.toolset(local_tools())), RoutingRequest(SUPPORTED))
    assert names == list(expected.names)


async def test_unsupported_query_offers_nothing(visibility: Visibility) -> None:
    router = PydanticAIRouter(visibility)
    assert visibility.allow_set(UNSUPPORTED).no_route
    assert await offered(agent_with(router.toolset(local_tools())), RoutingRequest(UNSUPPORTED)) == []


async def test_unrouted_toolsets_next_to_the_routed_one_are_untouched(visibility: Visibility) -> None:
    from pydantic_ai.toolsets import FunctionToolset

    def local_clock() -> str:
        """Tell the time."""
        return "noon"

    router = PydanticAIRouter(visibility)
    agent = agent_with(router.toolset(local_tools()), FunctionToolset([local_clock]))
    assert await offered(agent, RoutingRequest(UNSUPPORTED)) == ["local_clock"]


async def test_tool_definitions_pass_unchanged(visibility: Visibility) -> None:
    router = PydanticAIRouter(visibility)
    ctx_defs: dict[str, ToolDefinition] = {}
    script = Script()
    await agent_with(router.toolset(local_tools())).run(
        "x", deps=RoutingRequest(DELETE), model=script.model()
    )
    ctx_defs = {d.name: d for d in script.seen[0]}
    plain = Script()
    await agent_with(local_tools()).run("x", model=plain.model())
    originals = {d.name: d for d in plain.seen[0]}
    assert "delete_customer" in ctx_defs
    for name, tool_def in ctx_defs.items():
        assert tool_def == originals[name]
    assert ctx_defs["delete_customer"].kind == "unapproved"
    assert ctx_defs["delete_customer"].metadata == {"owner": "crm"}


@pytest.mark.parametrize(
    "layout",
    ["prefix_outside", "prefix_inside", "approval_outside", "approval_inside"],
)
async def test_composes_with_prefixed_and_approval_required(visibility: Visibility, layout: str) -> None:
    router = PydanticAIRouter(visibility)
    tools = local_tools()
    if layout == "prefix_outside":
        toolset: AbstractToolset[Any] = router.toolset(tools).prefixed("crm")
    elif layout == "prefix_inside":
        toolset = router.toolset(tools.prefixed("crm"))
    elif layout == "approval_outside":
        toolset = router.toolset(tools).approval_required()
    else:
        toolset = router.toolset(tools.approval_required())
    expected = list(visibility.allow_set(SUPPORTED).names)
    names = await offered(agent_with(toolset), RoutingRequest(SUPPORTED))
    if layout.startswith("prefix"):
        expected = [f"crm_{n}" for n in expected]
    assert names == expected


@pytest.mark.parametrize("approval_outside", [False, True])
async def test_approval_kept_and_resume_routes_the_same(
    visibility: Visibility, body_calls: list[Any], approval_outside: bool
) -> None:
    prompts: list[object] = []

    def request_from(ctx: RunContext[Any]) -> RoutingRequest | None:
        prompts.append(ctx.prompt)
        return ctx.deps

    router = PydanticAIRouter(visibility, request_from=request_from)
    if approval_outside:
        agent = agent_with(
            router.toolset(local_tools()).approval_required(lambda ctx, d, a: d.name == "delete_customer")
        )
    else:
        agent = agent_with(router.toolset(local_tools()))
    script = Script("delete_customer", {"customer_id": "c-200"})
    first = await agent.run("delete c-200", deps=RoutingRequest(DELETE), model=script.model())
    assert isinstance(first.output, DeferredToolRequests)
    assert [c.tool_name for c in first.output.approvals] == ["delete_customer"]
    assert body_calls == []
    resumed = await agent.run(
        deps=RoutingRequest(DELETE),
        model=Script().model(),
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"c1": True}),
    )
    assert resumed.output == "done"
    assert body_calls == [("delete_customer", {"customer_id": "c-200"})]
    assert prompts[0] == "delete c-200"
    assert prompts[-1] is None, "a resumed run has no prompt; routing must not depend on it"


async def test_resume_without_a_request_runs_nothing(visibility: Visibility, body_calls: list[Any]) -> None:
    router = PydanticAIRouter(visibility)
    agent = agent_with(router.toolset(local_tools()))
    first = await agent.run(
        "delete",
        deps=RoutingRequest(DELETE),
        model=Script("delete_customer", {"customer_id": "c-200"}).model(),
    )
    assert isinstance(first.output, DeferredToolRequests)
    resumed = Script()
    await agent.run(
        deps=None,
        model=resumed.model(),
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"c1": True}),
    )
    assert body_calls == []
    assert resumed.offered == []


async def test_hidden_tool_call_is_refused_by_the_framework(
    visibility: Visibility, body_calls: list[Any]
) -> None:
    router = PydanticAIRouter(visibility)
    assert "get_weather_forecast" not in visibility.allow_set(SUPPORTED).names
    script = Script("get_weather_forecast", {"city": "Paris"})
    await agent_with(router.toolset(local_tools())).run(
        "x", deps=RoutingRequest(SUPPORTED), model=script.model()
    )
    assert body_calls == []


async def test_call_tool_refuses_a_hidden_tool_directly(
    visibility: Visibility, body_calls: list[Any]
) -> None:
    """Defence in depth: even a caller bypassing the tool listing cannot run a hidden tool."""
    router = PydanticAIRouter(visibility)
    routed = router.toolset(local_tools())
    captured: dict[str, Any] = {}

    async def grab(ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        captured["ctx"] = ctx
        return tool_defs

    from pydantic_ai.capabilities import PrepareTools

    await agent_with(routed, capabilities=[PrepareTools(grab)]).run(
        "x", deps=RoutingRequest(SUPPORTED), model=Script().model()
    )
    ctx = captured["ctx"]
    all_tools = await local_tools().get_tools(ctx)
    with pytest.raises(HiddenToolCallError) as raised:
        await routed.call_tool(
            "get_weather_forecast", {"city": "Paris"}, ctx, all_tools["get_weather_forecast"]
        )
    assert raised.value.reason == "hidden_tool"
    assert body_calls == []


@pytest.mark.parametrize(
    ("deps", "cause"),
    [
        (None, "missing_request"),
        ({"principal": "u1"}, "missing_request"),
        (42, "missing_request"),
        ({"query": 42}, "request_error"),
        ({"query": "q", "principal": ["not", "hashable"]}, "request_error"),
        (RoutingRequest, "request_error"),
    ],
    ids=["none", "no-query", "int", "int-query", "unhashable-principal", "cls"],
)
async def test_no_usable_request_hides_routed_tools_and_warns(
    visibility: Visibility, caplog: pytest.LogCaptureFixture, deps: object, cause: str
) -> None:
    router = PydanticAIRouter(visibility)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert await offered(agent_with(router.toolset(local_tools())), deps) == []
    assert any(r.name == LOGGER_NAME and cause in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("returned", [42, ("q", "p", "extra"), (42, None), ("q", ["unhashable"])])
async def test_request_from_returning_a_non_request_is_a_setup_error(
    visibility: Visibility, returned: object
) -> None:
    router = PydanticAIRouter(visibility, request_from=lambda ctx: returned)  # type: ignore[arg-type, return-value]
    with pytest.raises(AdapterSetupError, match="request_from returned an unusable request"):
        await offered(agent_with(router.toolset(local_tools())), None)


def test_routing_request_is_the_core_request_type() -> None:
    assert RoutingRequest is RouteRequest is schemarouter.RouteRequest


async def test_raising_router_hides_routed_tools_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    router = PydanticAIRouter(Exploding())
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert await offered(agent_with(router.toolset(local_tools())), RoutingRequest(SUPPORTED)) == []
    assert any(
        "router_error" in r.getMessage() and "index unavailable" in r.getMessage() for r in caplog.records
    )


async def test_raising_request_callable_hides_routed_tools(visibility: Visibility) -> None:
    def broken(ctx: RunContext[Any]) -> RoutingRequest:
        raise KeyError("tenant")

    router = PydanticAIRouter(visibility, request_from=broken)
    assert await offered(agent_with(router.toolset(local_tools())), RoutingRequest(SUPPORTED)) == []


async def test_raise_on_failure_ends_the_run(body_calls: list[Any]) -> None:
    router = PydanticAIRouter(Exploding(), on_failure="raise")
    with pytest.raises(RoutingUnavailableError) as raised:
        await agent_with(router.toolset(local_tools())).run(
            "x", deps=RoutingRequest(SUPPORTED), model=Script("search_customers", {"query": "Ada"}).model()
        )
    assert raised.value.cause == "router_error"
    assert body_calls == []


async def test_allow_set_computed_once_per_step_and_never_shared(visibility: Visibility) -> None:
    counting = CountingVisibility(visibility)
    router = PydanticAIRouter(counting)
    agent = agent_with(router.toolset(local_tools()), router.toolset(local_tools().prefixed("again")))
    await offered(agent, RoutingRequest(SUPPORTED))
    one_run = counting.calls
    assert one_run >= 1
    await offered(agent, RoutingRequest(SUPPORTED))
    assert counting.calls == 2 * one_run, "a second run must compute its own allow-set"


async def test_concurrent_runs_see_their_own_allow_sets(visibility: Visibility) -> None:
    router = PydanticAIRouter(visibility)
    agent = agent_with(router.toolset(local_tools()))
    queries = [SUPPORTED, UNSUPPORTED, DELETE, "what is the weather forecast for Paris"] * 6
    results = await asyncio.gather(
        *(offered(agent, RoutingRequest(q, principal=i)) for i, q in enumerate(queries))
    )
    for query, names in zip(queries, results, strict=True):
        assert names == list(visibility.allow_set(query).names)


async def test_same_input_same_order(visibility: Visibility) -> None:
    router = PydanticAIRouter(visibility)
    agent = agent_with(router.toolset(local_tools()))
    runs = {tuple(await offered(agent, RoutingRequest(DELETE))) for _ in range(5)}
    assert len(runs) == 1


async def test_blocked_wins_and_names_match_whole(visibility: Visibility) -> None:
    names = visibility.allow_set(SUPPORTED).names
    rules = Visibility(visibility.router, k=3, allowed=set(names), blocked={names[0]})
    router = PydanticAIRouter(rules)
    got = await offered(agent_with(router.toolset(local_tools())), RoutingRequest(SUPPORTED))
    assert names[0] not in got
    assert got == list(rules.allow_set(SUPPORTED).names)


async def test_capability_narrows_agent_wide(visibility: Visibility, body_calls: list[Any]) -> None:
    router = PydanticAIRouter(visibility)
    agent = agent_with(local_tools(), capabilities=[router.capability(source="local")])
    assert await offered(agent, RoutingRequest(SUPPORTED)) == list(visibility.allow_set(SUPPORTED).names)
    assert await offered(agent, RoutingRequest(UNSUPPORTED)) == []
    await agent.run(
        "x", deps=RoutingRequest(SUPPORTED), model=Script("get_weather_forecast", {"city": "P"}).model()
    )
    assert body_calls == []


async def test_capability_with_prefixed_tools_needs_a_catalog_name(visibility: Visibility) -> None:
    router = PydanticAIRouter(visibility)
    expected = [f"crm_{n}" for n in visibility.allow_set(SUPPORTED).names]
    strip = router.capability(catalog_name=lambda d: d.name.removeprefix("crm_"))
    assert (
        await offered(
            agent_with(local_tools().prefixed("crm"), capabilities=[strip]), RoutingRequest(SUPPORTED)
        )
        == expected
    )


@pytest.mark.parametrize(
    ("deps", "query", "principal"),
    [
        (RoutingRequest("q", "p"), "q", "p"),
        ("q", "q", None),
        ({"query": "q", "principal": "p"}, "q", "p"),
    ],
    ids=["request", "str", "mapping"],
)
async def test_default_request_from_reads_deps(
    visibility: Visibility, deps: object, query: str, principal: str | None
) -> None:
    seen: list[tuple[str, Hashable | None]] = []

    class Recording(CountingVisibility):
        def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
            seen.append((query, principal))
            return super().allow_set(query, principal)

    await offered(agent_with(PydanticAIRouter(Recording(visibility)).toolset(local_tools())), deps)
    assert seen[0] == (query, principal)


def audit_log(entry: str) -> str:
    """Append an entry to the audit log of customer records in the CRM."""
    return "logged"


@pytest.mark.parametrize("form", ["toolset", "capability"])
async def test_a_routed_tool_missing_from_the_catalog_is_named_once(
    visibility: Visibility, caplog: pytest.LogCaptureFixture, form: str
) -> None:
    router = PydanticAIRouter(visibility)
    tools = local_tools()
    tools.add_function(audit_log)  # never mirrored into the catalog
    if form == "toolset":
        agent = agent_with(router.toolset(tools, source="local"))
    else:
        agent = agent_with(tools, capabilities=[router.capability(source="local")])
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        for query in (SUPPORTED, DELETE):
            assert "audit_log" not in await offered(agent, RoutingRequest(query))
    unlisted = [r.getMessage() for r in caplog.records if "not in the router's catalog" in r.getMessage()]
    assert len(unlisted) == 1, unlisted
    assert "'audit_log'" in unlisted[0]
    assert "local:audit_log" in unlisted[0]
    assert "Mirror it into the catalog" in unlisted[0], "a function tool's fix is a mirror"


async def test_catalogued_tools_log_no_catalog_warning(
    visibility: Visibility, caplog: pytest.LogCaptureFixture
) -> None:
    router = PydanticAIRouter(visibility)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        await offered(agent_with(router.toolset(local_tools())), RoutingRequest(SUPPORTED))
    assert not [r for r in caplog.records if r.name == LOGGER_NAME]


@pytest.mark.parametrize(
    ("deps", "expected"),
    [
        ({"query": 42}, "the request query must be a string, got int"),
        ({"query": "q", "principal": ["a"]}, "the principal must be hashable, got list"),
    ],
    ids=["int-query", "unhashable-principal"],
)
async def test_unusable_deps_fail_as_a_routing_error_that_does_not_blame_request_from(
    visibility: Visibility, deps: object, expected: str
) -> None:
    router = PydanticAIRouter(visibility, on_failure="raise")
    with pytest.raises(RoutingUnavailableError) as raised:
        await offered(agent_with(router.toolset(local_tools())), deps)
    assert isinstance(raised.value, schemarouter.RoutingError)
    assert raised.value.cause == "request_error"
    assert "deps carry an unusable routing request" in str(raised.value)
    assert expected in str(raised.value)
    assert "request_from" not in str(raised.value), "no request_from was given"


@pytest.mark.parametrize("cache_size", [-1, 1.5, "10"])
def test_cache_size_must_be_a_non_negative_int(visibility: Visibility, cache_size: Any) -> None:
    with pytest.raises(AdapterSetupError, match="cache_size"):
        PydanticAIRouter(visibility, cache_size=cache_size)


@pytest.mark.parametrize(
    "deps",
    [RoutingRequest(""), RoutingRequest("  \n\t", principal="p"), "   ", {"query": " "}],
    ids=["empty", "whitespace-request", "whitespace-str", "blank-mapping"],
)
async def test_a_blank_query_is_a_missing_request(
    visibility: Visibility, caplog: pytest.LogCaptureFixture, deps: object
) -> None:
    router = PydanticAIRouter(visibility)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert await offered(agent_with(router.toolset(local_tools())), deps) == []
    assert any(
        r.levelno == logging.WARNING and "missing_request" in r.getMessage() for r in caplog.records
    ), "a blank query must fail closed visibly, not as a silent no-route"
    strict = PydanticAIRouter(visibility, on_failure="raise")
    with pytest.raises(RoutingUnavailableError) as raised:
        await offered(agent_with(strict.toolset(local_tools())), deps)
    assert raised.value.cause == "missing_request"


@pytest.mark.parametrize("form", ["toolset", "capability"])
async def test_a_tool_catalog_name_maps_to_none_is_hidden_and_named_once(
    visibility: Visibility, caplog: pytest.LogCaptureFixture, form: str
) -> None:
    def catalog_name(tool_def: ToolDefinition) -> str | None:
        return None if tool_def.name == "search_customers" else tool_def.name

    router = PydanticAIRouter(visibility)
    assert "search_customers" in visibility.allow_set(SUPPORTED).names, "precondition"
    if form == "toolset":
        agent = agent_with(router.toolset(local_tools(), catalog_name=catalog_name))
    else:
        agent = agent_with(local_tools(), capabilities=[router.capability(catalog_name=catalog_name)])
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        for query in (SUPPORTED, SUPPORTED, DELETE):
            assert "search_customers" not in await offered(agent, RoutingRequest(query))
    unmapped = [r.getMessage() for r in caplog.records if "catalog_name returned None" in r.getMessage()]
    assert len(unmapped) == 1, unmapped
    assert "'search_customers'" in unmapped[0]
    assert "hidden" in unmapped[0]


def test_the_old_raise_on_failure_name_still_works_with_a_warning(visibility: Visibility) -> None:
    with pytest.deprecated_call(match="on_failure"):
        router = PydanticAIRouter(visibility, raise_on_failure=True)
    assert router.settings.on_failure == "raise"
    assert router.raise_on_failure
