"""`OpenAIAgentsRouter` against real SDK objects and a real `Visibility` (no model, no server)."""

from __future__ import annotations

import dataclasses
import gc
import logging
from collections.abc import Hashable
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunContextWrapper, WebSearchTool, function_tool, handoff
from agents.mcp import ToolFilterContext
from agents.tool_guardrails import ToolGuardrailFunctionOutput, tool_input_guardrail, tool_output_guardrail

from schemarouter import AllowSet, Catalog, RoutingError, SchemaRouter, UserError, Visibility
from schemarouter.adapter import AdapterSetupError, ContextMemo
from schemarouter.testing import DelegatingProvider, RaisingVisibility
from schemarouter_conformance import SUPPORTED_CASES, UNSUPPORTED_QUERIES
from schemarouter_openai_agents import (
    LOGGER_NAME,
    MissingRequestError,
    OpenAIAgentsRouter,
    RoutedPredicate,
    RouteRequest,
    mirror_function_tools,
    mirror_handoffs,
)

AGENT: Agent[Any] = Agent(name="under-test")


class CountingProvider(DelegatingProvider):
    """Delegates to a real `Visibility` and counts how often it is asked."""

    def __init__(self, visibility: Visibility) -> None:
        super().__init__(visibility)
        self.router = visibility.router
        self.calls: list[tuple[str, Hashable | None]] = []

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        self.calls.append((query, principal))
        return self.inner.allow_set(query, principal)


class BrokenProvider(RaisingVisibility):
    def __init__(self) -> None:
        super().__init__(SchemaRouter(Catalog()), error=RuntimeError("index exploded"))


def _filter_context(context: object, server_name: str = "fixture") -> ToolFilterContext:
    return ToolFilterContext(
        run_context=RunContextWrapper(context=context), agent=AGENT, server_name=server_name
    )


async def _visible(routing: OpenAIAgentsRouter, ctx: ToolFilterContext, tools: list[Any]) -> list[str]:
    return [tool.name for tool in tools if await routing.tool_filter(ctx, tool)]


@pytest.fixture
def visibility(fixture_catalog: Catalog) -> Visibility:
    return Visibility(SchemaRouter(fixture_catalog), k=3)


@pytest.mark.parametrize("query", [c.query for c in SUPPORTED_CASES] + list(UNSUPPORTED_QUERIES))
async def test_tool_filter_lets_through_exactly_the_allow_set(
    visibility: Visibility, fixture_tools: list[Any], query: str
) -> None:
    routing = OpenAIAgentsRouter(visibility)
    visible = await _visible(routing, _filter_context({"query": query}), fixture_tools)
    assert sorted(visible) == sorted(visibility.allow_set(query).names)
    assert len(visible) <= visibility.k


async def test_allow_set_is_computed_once_per_context(
    visibility: Visibility, fixture_tools: list[Any]
) -> None:
    provider = CountingProvider(visibility)
    routing = OpenAIAgentsRouter(provider)
    ctx = _filter_context({"query": SUPPORTED_CASES[0].query})
    await _visible(routing, ctx, fixture_tools)
    await _visible(routing, ctx, fixture_tools)  # a second turn of the same run
    assert len(provider.calls) == 1
    await _visible(routing, _filter_context({"query": SUPPORTED_CASES[0].query}), fixture_tools)
    assert len(provider.calls) == 2, "another run context must be routed on its own"


async def test_changed_request_in_same_context_is_routed_again(
    visibility: Visibility, fixture_tools: list[Any]
) -> None:
    provider = CountingProvider(visibility)
    routing = OpenAIAgentsRouter(provider)
    app_context = {"query": SUPPORTED_CASES[0].query}
    ctx = _filter_context(app_context)
    first = await _visible(routing, ctx, fixture_tools)
    app_context["query"] = SUPPORTED_CASES[1].query
    second = await _visible(routing, ctx, fixture_tools)
    assert sorted(second) == sorted(visibility.allow_set(SUPPORTED_CASES[1].query).names)
    assert first != second
    app_context["principal"] = "alice"
    await _visible(routing, ctx, fixture_tools)
    assert provider.calls[-1] == (SUPPORTED_CASES[1].query, "alice")
    assert len(provider.calls) == 3


async def test_interleaved_contexts_see_only_their_own_allow_set(
    visibility: Visibility, fixture_tools: list[Any]
) -> None:
    routing = OpenAIAgentsRouter(visibility)
    queries = [c.query for c in SUPPORTED_CASES] + [UNSUPPORTED_QUERIES[0]]
    contexts = [_filter_context(RouteRequest(q, principal=f"user-{i}")) for i, q in enumerate(queries)]
    for _ in range(2):
        for query, ctx in zip(queries, contexts, strict=True):
            assert sorted(await _visible(routing, ctx, fixture_tools)) == sorted(
                visibility.allow_set(query).names
            )


async def test_missing_request_hides_everything_and_warns(
    visibility: Visibility, fixture_tools: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    routing = OpenAIAgentsRouter(visibility)
    ctx = _filter_context(None)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert await _visible(routing, ctx, fixture_tools) == []
    outcome = routing.outcome(ctx.run_context)
    assert outcome.allow_set is None
    assert isinstance(outcome.error, MissingRequestError)
    warnings = [r for r in caplog.records if r.name == LOGGER_NAME and r.levelno >= logging.WARNING]
    assert len(warnings) == 1, "one warning per run context, not one per tool"


async def test_raising_provider_hides_everything_and_warns(
    fixture_tools: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    routing = OpenAIAgentsRouter(BrokenProvider())
    ctx = _filter_context({"query": SUPPORTED_CASES[0].query})
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert await _visible(routing, ctx, fixture_tools) == []
    outcome = routing.outcome(ctx.run_context)
    assert outcome.failure is not None
    assert "index exploded" in outcome.failure
    assert any("index exploded" in r.getMessage() for r in caplog.records if r.name == LOGGER_NAME)


async def test_raising_request_from_hides_everything(
    visibility: Visibility, fixture_tools: list[Any]
) -> None:
    def broken(context: Any) -> str:
        raise KeyError("query")

    routing = OpenAIAgentsRouter(visibility, request_from=broken)
    ctx = _filter_context({"query": SUPPORTED_CASES[0].query})
    assert await _visible(routing, ctx, fixture_tools) == []
    outcome = routing.outcome(ctx.run_context)
    assert "request_from raised KeyError" in (outcome.failure or "")
    assert isinstance(outcome.error, RoutingError)
    assert isinstance(outcome.error.__cause__, KeyError)


@pytest.mark.parametrize(
    ("context", "request_from", "expected"),
    [
        pytest.param({"query": 123}, None, "query must be a string, got int", id="non-string-query"),
        pytest.param(
            {"query": "q", "principal": ["a"]},
            None,
            "principal must be hashable, got list",
            id="list-principal",
        ),
        pytest.param(
            "q",
            lambda ctx: RouteRequest(ctx, ["a"]),  # type: ignore[arg-type]
            "principal must be hashable, got list",
            id="custom-principal",
        ),
        pytest.param(
            "q", lambda ctx: 42, "request_from returned an unusable request", id="custom-returns-int"
        ),
    ],
)
async def test_an_unusable_request_is_a_routing_error_with_an_accurate_message(
    visibility: Visibility, fixture_tools: list[Any], context: Any, request_from: Any, expected: str
) -> None:
    options = {} if request_from is None else {"request_from": request_from}
    routing = OpenAIAgentsRouter(visibility, **options)
    ctx = _filter_context(context)
    assert await _visible(routing, ctx, fixture_tools) == []
    outcome = routing.outcome(ctx.run_context)
    assert isinstance(outcome.error, RoutingError)
    assert expected in (outcome.failure or "")
    if request_from is None:
        assert "request_from" not in (outcome.failure or ""), "no request_from was given"


@pytest.mark.parametrize("cache_size", [-1, 1.5, True])
def test_cache_size_must_be_a_count(visibility: Visibility, cache_size: Any) -> None:
    with pytest.raises(AdapterSetupError, match="cache_size"):
        OpenAIAgentsRouter(visibility, cache_size=cache_size)


async def test_cache_size_zero_remembers_nothing_and_routes_the_same(
    visibility: Visibility, fixture_tools: list[Any]
) -> None:
    provider = CountingProvider(visibility)
    routing = OpenAIAgentsRouter(provider, cache_size=0)  # as in every adapter: 0 remembers nothing
    query = SUPPORTED_CASES[0].query
    visible = await _visible(routing, _filter_context({"query": query}), fixture_tools)
    assert sorted(visible) == sorted(visibility.allow_set(query).names)
    assert len(provider.calls) >= len(fixture_tools), "every hook asks the provider"


def test_the_old_max_contexts_name_still_works_with_a_warning(visibility: Visibility) -> None:
    with pytest.deprecated_call(match="cache_size"):
        routing = OpenAIAgentsRouter(visibility, max_contexts=7)
    assert routing.settings.cache_size == 7


def test_on_failure_raise_raises_the_routing_error(visibility: Visibility) -> None:
    routing = OpenAIAgentsRouter(visibility, on_failure="raise")
    with pytest.raises(MissingRequestError):
        routing.outcome(RunContextWrapper(context={}))
    with pytest.raises(AdapterSetupError, match="on_failure"):
        OpenAIAgentsRouter(visibility, on_failure="log")  # type: ignore[arg-type]


async def test_custom_request_from(visibility: Visibility, fixture_tools: list[Any]) -> None:
    routing = OpenAIAgentsRouter(visibility, request_from=lambda ctx: (ctx["text"], ctx["user"]))
    query = SUPPORTED_CASES[1].query
    visible = await _visible(routing, _filter_context({"text": query, "user": "erin"}), fixture_tools)
    assert sorted(visible) == sorted(visibility.allow_set(query).names)


async def test_unknown_server_name_hides_its_tools_and_warns_once(
    visibility: Visibility, fixture_tools: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    query = SUPPORTED_CASES[0].query
    routing = OpenAIAgentsRouter(visibility)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert await _visible(routing, _filter_context({"query": query}, "crm"), fixture_tools) == []
    assert sum("not in the router's catalog" in r.getMessage() for r in caplog.records) == 1
    mapped = OpenAIAgentsRouter(visibility, mcp_sources={"crm": "fixture"})
    visible = await _visible(mapped, _filter_context({"query": query}, "crm"), fixture_tools)
    assert sorted(visible) == sorted(visibility.allow_set(query).names)


# -- function tools and handoffs ---------------------------------------------------------------


@tool_input_guardrail
def _no_secrets(data: Any) -> ToolGuardrailFunctionOutput:
    return ToolGuardrailFunctionOutput.allow()


@tool_output_guardrail
def _audit(data: Any) -> ToolGuardrailFunctionOutput:
    return ToolGuardrailFunctionOutput.allow()


def _refund_policy_tool() -> FunctionTool:
    @function_tool(needs_approval=True, tool_input_guardrails=[_no_secrets], tool_output_guardrails=[_audit])
    def refund_policy(country: str) -> str:
        """Look up the refund policy that applies to invoices in a country."""
        return f"30 days in {country}"

    return refund_policy


def _billing_agent() -> Agent[Any]:
    return Agent(
        name="billing_agent", handoff_description="Billing specialist for invoice disputes and chargebacks"
    )


def _routing_for(fixture_catalog: Catalog, tool: FunctionTool, billing: Agent[Any]) -> OpenAIAgentsRouter:
    catalog = Catalog.merge(fixture_catalog, mirror_function_tools([tool]), mirror_handoffs([billing]))
    return OpenAIAgentsRouter(Visibility(SchemaRouter(catalog), k=3))


async def test_gate_changes_only_is_enabled(fixture_catalog: Catalog) -> None:
    tool = _refund_policy_tool()
    approval, inputs, outputs, schema = (
        tool.needs_approval,
        tool.tool_input_guardrails,
        tool.tool_output_guardrails,
        tool.params_json_schema,
    )
    routing = _routing_for(fixture_catalog, tool, _billing_agent())
    assert routing.gate(tool) is tool
    assert isinstance(tool.is_enabled, RoutedPredicate)
    assert tool.needs_approval is approval
    assert tool.tool_input_guardrails is inputs
    assert tool.tool_output_guardrails is outputs
    assert tool.params_json_schema is schema


async def test_gated_function_tool_follows_the_allow_set(fixture_catalog: Catalog) -> None:
    tool = _refund_policy_tool()
    routing = _routing_for(fixture_catalog, tool, _billing_agent())
    routing.gate(tool)
    predicate = tool.is_enabled
    assert isinstance(predicate, RoutedPredicate)
    routed = RunContextWrapper(context="what is the refund policy for invoices in France")
    assert "functions:refund_policy" in routing.outcome(routed).allow_set.routes  # type: ignore[union-attr]
    assert await predicate(routed, AGENT) is True
    assert await predicate(RunContextWrapper(context="weather forecast for Paris"), AGENT) is False
    assert await predicate(RunContextWrapper(context=None), AGENT) is False


async def test_gate_keeps_the_tools_own_is_enabled(fixture_catalog: Catalog) -> None:
    query = "what is the refund policy for invoices in France"
    disabled = _refund_policy_tool()
    disabled.is_enabled = False
    routing = _routing_for(fixture_catalog, disabled, _billing_agent())
    routing.gate(disabled)
    assert await disabled.is_enabled(RunContextWrapper(context=query), AGENT) is False  # type: ignore[operator]

    seen: list[object] = []

    async def only_admins(ctx: RunContextWrapper[Any], agent: Any) -> bool:
        seen.append(ctx.context)
        return False

    custom = _refund_policy_tool()
    custom.is_enabled = only_admins
    routing.gate(custom)
    assert await custom.is_enabled(RunContextWrapper(context=query), AGENT) is False  # type: ignore[operator]
    assert seen == [query]


async def test_regating_with_the_same_router_replaces_instead_of_stacking(fixture_catalog: Catalog) -> None:
    tool = _refund_policy_tool()
    routing = _routing_for(fixture_catalog, tool, _billing_agent())
    routing.gate(tool)
    routing.gate(tool, source="functions")
    predicate = tool.is_enabled
    assert isinstance(predicate, RoutedPredicate)
    assert predicate.router is routing
    assert predicate.inner is True


@function_tool
def send_sms(phone_number: str, text: str) -> str:
    """Send an SMS text message to a phone number."""
    return "sent"


SMS_QUERY = "send an sms text message to my phone number"


async def test_a_tool_gated_by_another_router_is_refused(fixture_catalog: Catalog) -> None:
    """Tenant A blocks `send_sms`; tenant B gating the same module-level object must not unblock it."""
    catalog = Catalog.merge(fixture_catalog, mirror_function_tools([send_sms]))
    tenant_a = OpenAIAgentsRouter(Visibility(SchemaRouter(catalog), k=3, blocked=["send_sms"]))
    tenant_b = OpenAIAgentsRouter(Visibility(SchemaRouter(catalog), k=3))
    shared = dataclasses.replace(send_sms)  # stands for the module-level object both tenants import
    tenant_a.gate(shared)
    with pytest.raises(UserError, match="already gated by another OpenAIAgentsRouter"):
        tenant_b.gate(shared)
    with pytest.raises(UserError, match=r"dataclasses\.replace"):
        tenant_b.is_enabled("send_sms", inner=shared.is_enabled)
    assert await shared.is_enabled(RunContextWrapper(context=SMS_QUERY), AGENT) is False  # type: ignore[operator]

    # one copy per router, made before gating: each tenant keeps its own routing
    for_a, for_b = tenant_a.gate(dataclasses.replace(send_sms)), tenant_b.gate(dataclasses.replace(send_sms))
    assert await for_b.is_enabled(RunContextWrapper(context=SMS_QUERY), AGENT) is True  # type: ignore[operator]
    assert await for_a.is_enabled(RunContextWrapper(context=SMS_QUERY), AGENT) is False  # type: ignore[operator]


async def test_a_handoff_gated_by_another_router_is_refused(fixture_catalog: Catalog) -> None:
    billing = _billing_agent()
    catalog = Catalog.merge(fixture_catalog, mirror_handoffs([billing]))
    query = "transfer me to the billing specialist for an invoice dispute"
    tenant_a = OpenAIAgentsRouter(
        Visibility(SchemaRouter(catalog), k=3, blocked=["transfer_to_billing_agent"])
    )
    tenant_b = OpenAIAgentsRouter(Visibility(SchemaRouter(catalog), k=3))
    shared = tenant_a.gate_handoff(billing)
    with pytest.raises(UserError, match="already gated by another OpenAIAgentsRouter"):
        tenant_b.gate_handoff(shared)
    assert await shared.is_enabled(RunContextWrapper(context=query), AGENT) is False  # type: ignore[operator]
    tenant_a.gate_handoff(shared)  # the same router may gate it again
    assert await tenant_b.gate_handoff(billing).is_enabled(RunContextWrapper(context=query), AGENT) is True  # type: ignore[operator]


async def test_a_gated_tool_missing_from_the_catalog_is_named_once(
    fixture_catalog: Catalog, caplog: pytest.LogCaptureFixture
) -> None:
    routing = OpenAIAgentsRouter(Visibility(SchemaRouter(fixture_catalog), k=3))  # nothing mirrored
    tool = routing.gate(_refund_policy_tool())
    billing = routing.gate_handoff(_billing_agent())
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        for query in ("what is the refund policy for invoices in France", SUPPORTED_CASES[0].query):
            assert await tool.is_enabled(RunContextWrapper(context=query), AGENT) is False  # type: ignore[operator]
            assert await billing.is_enabled(RunContextWrapper(context=query), AGENT) is False  # type: ignore[operator]
    unlisted = [r.getMessage() for r in caplog.records if "not in the router's catalog" in r.getMessage()]
    assert len(unlisted) == 2, unlisted
    assert "'refund_policy'" in unlisted[0]
    assert "functions:refund_policy" in unlisted[0]
    assert "handoff 'transfer_to_billing_agent'" in unlisted[1]


async def test_a_mirrored_gated_tool_logs_no_catalog_warning(
    fixture_catalog: Catalog, caplog: pytest.LogCaptureFixture
) -> None:
    tool = _refund_policy_tool()
    routing = _routing_for(fixture_catalog, tool, _billing_agent())
    routing.gate(tool)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert await tool.is_enabled(RunContextWrapper(context="weather forecast for Paris"), AGENT) is False  # type: ignore[operator]
    assert not [r for r in caplog.records if r.name == LOGGER_NAME]


def test_gate_refuses_tools_without_is_enabled(visibility: Visibility) -> None:
    with pytest.raises(UserError, match="only FunctionTool"):
        OpenAIAgentsRouter(visibility).gate(WebSearchTool())  # type: ignore[arg-type]


async def test_gated_handoff_follows_the_allow_set(fixture_catalog: Catalog) -> None:
    billing = _billing_agent()
    routing = _routing_for(fixture_catalog, _refund_policy_tool(), billing)
    from_agent = routing.gate_handoff(billing)
    from_handoff = routing.gate_handoff(handoff(_billing_agent()))
    assert from_agent.tool_name == from_handoff.tool_name == "transfer_to_billing_agent"
    routed = RunContextWrapper(context="transfer me to the billing specialist for an invoice dispute")
    assert "handoffs:transfer_to_billing_agent" in routing.outcome(routed).allow_set.routes  # type: ignore[union-attr]
    for item in (from_agent, from_handoff):
        assert await item.is_enabled(routed, AGENT) is True  # type: ignore[operator]
        assert await item.is_enabled(RunContextWrapper(context="convert 100 USD to EUR"), AGENT) is False  # type: ignore[operator]


def test_router_refuses_a_non_provider() -> None:
    with pytest.raises(UserError):
        OpenAIAgentsRouter(object())  # type: ignore[arg-type]


# -- the per-context memo ----------------------------------------------------------------------


class _Ctx:
    pass


def test_memo_never_matches_a_dead_context() -> None:
    memo: ContextMemo[str] = ContextMemo(8)
    first = _Ctx()
    memo.put(first, "k", "first run")
    ident = id(first)
    del first
    gc.collect()
    reused = [_Ctx() for _ in range(200)]  # CPython usually hands the freed id to one of these
    for ctx in reused:
        assert memo.get(ctx, "k") is None, (
            f"a new context (id reused: {id(ctx) == ident}) saw a dead run's entry"
        )


def test_memo_is_keyed_on_the_full_input_and_bounded() -> None:
    memo: ContextMemo[str] = ContextMemo(2)
    a, b, c = _Ctx(), _Ctx(), _Ctx()
    memo.put(a, ("q", None, "v1"), "A")
    assert memo.get(a, ("q", None, "v1")) == "A"
    assert memo.get(a, ("q", None, "v2")) is None
    assert memo.get(a, ("q", "p", "v1")) is None
    assert memo.get(b, ("q", None, "v1")) is None
    memo.put(b, "k", "B")
    memo.put(c, "k", "C")
    assert len(memo) == 2
    assert memo.get(a, ("q", None, "v1")) is None
    assert memo.get(c, "k") == "C"


class PrincipalTypeProvider(DelegatingProvider):
    """Shows a tool only to the principal `True` (a flag), never to the account id `1`."""

    def __init__(self, visibility: Visibility) -> None:
        super().__init__(visibility)
        self.router = visibility.router

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        allowed = self.inner.allow_set(query, principal)
        return allowed if principal is True else self.inner.allow_set("", principal)


async def test_principals_equal_in_python_are_routed_apart(
    visibility: Visibility, fixture_tools: list[Any]
) -> None:
    """`1 == True` in Python: one run context whose principal changes from `True` to `1` must not
    be served the allow-set the other principal got."""
    routing = OpenAIAgentsRouter(PrincipalTypeProvider(visibility))
    app_context: dict[str, Any] = {"query": SUPPORTED_CASES[0].query, "principal": True}
    ctx = _filter_context(app_context)
    assert await _visible(routing, ctx, fixture_tools)
    app_context["principal"] = 1
    assert await _visible(routing, ctx, fixture_tools) == []
