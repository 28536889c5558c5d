"""The execution boundary over Python callables: every check runs before the function does."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from schemarouter import (
    ExecutionPolicy,
    PlanRequest,
    PolicyViolationError,
    RefusalReason,
    RetrievalAbstentionPolicy,
    RunConfig,
    SchemaRouter,
    ToolExecutionError,
    ainvoke_selective,
    execute_selective_plan,
)


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Tools:
    """Python tools that record every call, so a test can prove which bodies ran."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def functions(self) -> list[Any]:
        calls = self.calls

        def convert_currency(amount: float, from_currency: str, to_currency: str) -> dict[str, Any]:
            """Convert an amount of money between currencies at today's exchange rate."""
            calls.append(("convert_currency", {"amount": amount}))
            return {"amount": amount * 2, "currency": to_currency}

        async def get_weather_forecast(city: str, days: int = 3) -> str:
            """Get the weather forecast for a city for the next days."""
            await asyncio.sleep(0)
            calls.append(("get_weather_forecast", {"city": city, "days": days}))
            return f"{city}: sunny for {days} days"

        def lookup_rates_backup(amount: float, from_currency: str, to_currency: str) -> dict[str, Any]:
            """Backup exchange rate lookup for currency conversion."""
            calls.append(("lookup_rates_backup", {"amount": amount}))
            return {"amount": amount * 3, "currency": to_currency, "backup": True}

        def broken_currency_feed(amount: float, from_currency: str, to_currency: str) -> float:
            """Currency conversion from a feed that is down."""
            calls.append(("broken_currency_feed", {"amount": amount}))
            raise ConnectionError("feed unavailable")

        def delete_customer(customer_id: str) -> str:
            """Permanently delete a customer record from the CRM."""
            calls.append(("delete_customer", {"customer_id": customer_id}))
            return f"deleted {customer_id}"

        return [
            convert_currency,
            get_weather_forecast,
            lookup_rates_backup,
            broken_currency_feed,
            delete_customer,
        ]


CONVERT = {"amount": 10, "from_currency": "USD", "to_currency": "EUR"}


@pytest.fixture
def tools() -> Tools:
    return Tools()


def make_router(tools: Tools, **policy: Any) -> SchemaRouter:
    return SchemaRouter.from_callables(tools.functions(), name="py", policy=ExecutionPolicy(**policy))


async def test_ainvoke_runs_sync_and_async_functions(tools: Tools) -> None:
    router = make_router(tools)
    result = await router.ainvoke(PlanRequest("convert 10 USD to EUR", CONVERT))
    assert (result.route, result.structured, result.content) == (
        "py:convert_currency",
        {"amount": 20, "currency": "EUR"},
        (),
    )
    forecast = await router.ainvoke(PlanRequest("weather forecast for Oslo", {"city": "Oslo", "days": 2}))
    assert forecast.structured == "Oslo: sunny for 2 days"
    assert [name for name, _ in tools.calls] == ["convert_currency", "get_weather_forecast"]


async def test_a_raising_function_is_a_typed_tool_error(tools: Tools) -> None:
    router = make_router(tools)
    with pytest.raises(ToolExecutionError, match="ConnectionError: feed unavailable") as info:
        await router.ainvoke(PlanRequest("x", CONVERT, preferred_route="py:broken_currency_feed"))
    assert info.value.route == "py:broken_currency_feed"
    assert isinstance(info.value.__cause__, ConnectionError)


async def test_invalid_arguments_are_refused_before_the_function_runs(tools: Tools) -> None:
    router = make_router(tools)
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(PlanRequest("convert 10 USD to EUR", {"amount": "ten", "from_currency": "USD"}))
    assert info.value.reason == RefusalReason.INVALID_ARGUMENTS
    assert "to_currency" in str(info.value)
    assert "amount" in str(info.value)
    assert tools.calls == []


async def test_an_expired_plan_is_refused(tools: Tools) -> None:
    clock = Clock()
    router = make_router(tools, clock=clock, plan_ttl=30)
    request = PlanRequest("convert 10 USD to EUR", CONVERT)
    retrieval = router.retrieve_executable(request, 3)
    plan = router.plan_executable(request)
    clock.now += 30.5
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, plan)
    assert info.value.reason == RefusalReason.PLAN_EXPIRED
    assert tools.calls == []
    fresh = router.plan_executable(request)
    assert (await execute_selective_plan(router, retrieval, fresh)).route == "py:convert_currency"


async def test_the_policy_can_deny_local_functions(tools: Tools) -> None:
    router = make_router(tools, classification={"delete_*": "destructive"})
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(PlanRequest("delete customer c-1", {"customer_id": "c-1"}))
    assert info.value.reason == RefusalReason.POLICY_DENIED
    assert info.value.route == "py:delete_customer"
    assert tools.calls == []


async def test_fallbacks_run_in_order_only_after_a_failure(tools: Tools) -> None:
    router = make_router(tools)
    request = PlanRequest("convert currency with the currency feed or the backup rates", CONVERT)
    failing_first = router.plan_executable(
        request,
        route="py:broken_currency_feed",
        fallback_routes=["py:lookup_rates_backup", "py:convert_currency"],
    )
    result = await execute_selective_plan(router, router.retrieve_executable(request, 5), failing_first)
    assert result.route == "py:lookup_rates_backup"
    assert result.fallback_from == ("py:broken_currency_feed",)
    assert [name for name, _ in tools.calls] == ["broken_currency_feed", "lookup_rates_backup"]


async def test_when_every_route_fails_the_last_error_is_raised(tools: Tools) -> None:
    router = make_router(tools)
    plan = router.plan_executable(PlanRequest("x", CONVERT), route="py:broken_currency_feed")
    with pytest.raises(ToolExecutionError) as info:
        await router.ainvoke(PlanRequest("x", CONVERT, preferred_route="py:broken_currency_feed"))
    assert info.value.route == plan.route


async def test_fallbacks_pass_every_check_before_the_first_call(tools: Tools) -> None:
    router = make_router(tools, classification={"delete_*": "destructive"})
    request = PlanRequest("convert currency with the currency feed or the backup rates", CONVERT)
    retrieval = router.retrieve_executable(request, 5)
    assert "py:convert_currency" in retrieval.routes
    plan = router.plan_executable(
        request, route="py:convert_currency", fallback_routes=["py:delete_customer"]
    )
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, plan)
    assert info.value.reason == RefusalReason.OFF_SHORTLIST
    assert info.value.route == "py:delete_customer"
    # Outside the shortlist check (router.ainvoke's path), the fallback's arguments and
    # policy are still checked before the primary runs.
    bad_args = router.plan_executable(
        request, route="py:convert_currency", fallback_routes=["py:get_weather_forecast"]
    )
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, bad_args)
    assert info.value.route == "py:get_weather_forecast"
    assert tools.calls == []


async def test_ainvoke_has_no_abstention_gate_but_ainvoke_selective_does(tools: Tools) -> None:
    router = make_router(tools)
    request = PlanRequest("money please", CONVERT)
    plan = router.plan_executable(request)
    assert plan.selection == "closest"
    with pytest.raises(PolicyViolationError) as info:
        await ainvoke_selective(router, request, k=3)
    assert info.value.reason == RefusalReason.NO_ROUTE
    assert tools.calls == []
    # The closest tool runs without the gate: it happens to fit here, but nothing checked that.
    result = await router.ainvoke(request)
    assert result.route == plan.route


async def test_ainvoke_selective_runs_a_routed_request_for_its_principal(tools: Tools) -> None:
    router = make_router(tools)
    config = RunConfig(principal=("tenant-1", "alice"))
    result = await ainvoke_selective(
        router,
        PlanRequest("weather forecast for Paris", {"city": "Paris"}),
        k=2,
        policy=RetrievalAbstentionPolicy(min_score=0.0),
        config=config,
    )
    assert result.structured == "Paris: sunny for 3 days"
