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
from schemarouter.execution import ExecutableRetrieval


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
    return SchemaRouter.from_callables(tools.functions(), name="py", execution=ExecutionPolicy(**policy))


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


async def test_only_classified_callables_run_when_allow_unclassified_local_is_off(tools: Tools) -> None:
    router = make_router(
        tools,
        classification={"py:convert_currency": "read_only", "get_weather_*": "read_only"},
        allow_unclassified_local=False,
    )
    unlisted = PlanRequest("x", {"customer_id": "c-1"}, preferred_route="py:delete_customer")
    for run in (router.ainvoke(unlisted), ainvoke_selective(router, unlisted, k=3)):
        with pytest.raises(PolicyViolationError) as info:
            await run
        assert (info.value.reason, info.value.route) == (RefusalReason.POLICY_DENIED, "py:delete_customer")
        assert "allow_unclassified_local" in str(info.value)
    assert tools.calls == []
    result = await ainvoke_selective(router, PlanRequest("convert 10 USD to EUR", CONVERT), k=3)
    forecast = await router.ainvoke(PlanRequest("weather forecast for Oslo", {"city": "Oslo"}))
    assert (result.route, forecast.route) == ("py:convert_currency", "py:get_weather_forecast")
    assert [name for name, _ in tools.calls] == ["convert_currency", "get_weather_forecast"]


async def test_an_unclassified_fallback_is_refused_before_the_classified_primary_runs(tools: Tools) -> None:
    router = make_router(
        tools, classification={"convert_currency": "read_only"}, allow_unclassified_local=False
    )
    request = PlanRequest("convert currency with the currency feed or the backup rates", CONVERT)
    plan = router.plan_executable(
        request, route="py:convert_currency", fallback_routes=["py:lookup_rates_backup"]
    )
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, router.retrieve_executable(request, 5), plan)
    assert (info.value.reason, info.value.route) == (RefusalReason.POLICY_DENIED, "py:lookup_rates_backup")
    assert tools.calls == []


async def test_no_fallback_runs_once_a_tool_body_ran(tools: Tools) -> None:
    """A callable that raised has run (part of) its body: a fallback would be a second side
    effect for one request. Fallbacks are for calls never sent (test_execution_fallbacks.py)."""
    router = make_router(tools)
    request = PlanRequest("convert currency with the currency feed or the backup rates", CONVERT)
    failing_first = router.plan_executable(
        request,
        route="py:broken_currency_feed",
        fallback_routes=["py:lookup_rates_backup", "py:convert_currency"],
    )
    with pytest.raises(ToolExecutionError) as info:
        await execute_selective_plan(router, router.retrieve_executable(request, 5), failing_first)
    assert info.value.route == "py:broken_currency_feed"
    assert info.value.__notes__ == [
        "not tried, as the tool may have run: py:lookup_rates_backup, py:convert_currency"
    ]
    assert [name for name, _ in tools.calls] == ["broken_currency_feed"]
    # The body ran, so the plan is used up.
    with pytest.raises(PolicyViolationError) as refused:
        await execute_selective_plan(router, router.retrieve_executable(request, 5), failing_first)
    assert refused.value.reason == RefusalReason.PLAN_ALREADY_USED
    assert [name for name, _ in tools.calls] == ["broken_currency_feed"]


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
        abstention=RetrievalAbstentionPolicy(min_score=0.0),
        config=config,
    )
    assert result.structured == "Paris: sunny for 3 days"


# -- preferred_route ----------------------------------------------------------------------------

STRICT = RetrievalAbstentionPolicy(min_score=1.0)  # no routing score reaches it
PREFER_DELETE = PlanRequest(
    "what is the weather like", {"customer_id": "c-1"}, preferred_route="py:delete_customer"
)


async def test_a_preferred_route_passes_the_no_route_gate_and_the_threshold(tools: Tools) -> None:
    """By design: the application chose the route, so the request text need not point to it."""
    router = make_router(tools)
    retrieval = router.retrieve_executable(PREFER_DELETE, 3, abstention=STRICT)
    assert [(c.route, c.reason) for c in retrieval.candidates] == [("py:delete_customer", "preferred_route")]
    result = await ainvoke_selective(router, PREFER_DELETE, k=3, abstention=STRICT)
    assert (result.route, result.structured) == ("py:delete_customer", "deleted c-1")
    unpreferred = PlanRequest(PREFER_DELETE.query, dict(PREFER_DELETE.arguments or {}))
    with pytest.raises(PolicyViolationError) as info:
        await ainvoke_selective(router, unpreferred, k=3, abstention=STRICT)
    assert info.value.reason == RefusalReason.NO_ROUTE
    assert tools.calls == [("delete_customer", {"customer_id": "c-1"})]


@pytest.mark.parametrize(
    ("policy", "arguments", "reason"),
    [
        pytest.param(
            {"deny": ["py:delete_customer"]}, {"customer_id": "c-1"}, "policy_denied", id="deny-route"
        ),
        pytest.param({"deny": ["delete_*"]}, {"customer_id": "c-1"}, "policy_denied", id="deny-name"),
        pytest.param(
            {"classification": {"delete_*": "destructive"}},
            {"customer_id": "c-1"},
            "policy_denied",
            id="destructive-not-allowed",
        ),
        pytest.param({"allow_mutating": False}, {"customer_id": "c-1"}, "policy_denied", id="mutating-off"),
        pytest.param(
            {"allow_unclassified_local": False},
            {"customer_id": "c-1"},
            "policy_denied",
            id="unclassified-local-off",
        ),
        pytest.param({}, {"customer_id": 7}, "invalid_arguments", id="wrong-type"),
        pytest.param({}, {}, "invalid_arguments", id="missing-argument"),
    ],
)
@pytest.mark.parametrize("path", ["ainvoke", "selective"])
async def test_a_preferred_route_still_obeys_the_policy_and_the_schema(
    tools: Tools, policy: dict[str, Any], arguments: dict[str, Any], reason: str, path: str
) -> None:
    router = make_router(tools, **policy)
    request = PlanRequest(PREFER_DELETE.query, arguments, preferred_route="py:delete_customer")
    if path == "ainvoke":
        run = router.ainvoke(request)
    else:
        run = ainvoke_selective(router, request, k=3, abstention=STRICT)
    with pytest.raises(PolicyViolationError) as info:
        await run
    assert (info.value.reason, info.value.route) == (reason, "py:delete_customer")
    assert tools.calls == []


# -- the shortlist's k and threshold ------------------------------------------------------------


async def test_the_boundary_enforces_its_own_k_and_abstention_when_given(tools: Tools) -> None:
    """Without `k=` / `abstention=` the shortlist is as wide as the retrieval's own k and policy, so a
    retrieval rebuilt wider lets a route off the shortlist shown run; with them it cannot."""
    router = make_router(tools)
    strict = RetrievalAbstentionPolicy(min_score=0.4)
    request = PlanRequest("currency conversion", CONVERT)
    shown = router.retrieve_executable(request, 1, abstention=strict)
    assert shown.routes == ("py:convert_currency",)
    # Refusals leave a plan unused: this one is refused six times, then runs twice.
    plan = router.plan_executable(request, route="py:lookup_rates_backup", uses=2)
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, shown, plan)
    assert info.value.reason == RefusalReason.NO_ROUTE  # below min_score, and beyond k=1
    rebuilt = [
        ExecutableRetrieval(request, None, router.retrieve(request.query, 5)),
        router.retrieve_executable(request, 5),
    ]
    for wider in rebuilt:
        for bound, reason in [({"k": 1}, "off_shortlist"), ({"abstention": strict}, "no_route")]:
            with pytest.raises(PolicyViolationError) as info:
                await execute_selective_plan(router, wider, plan, **bound)
            assert (info.value.reason, info.value.route) == (reason, "py:lookup_rates_backup")
    assert tools.calls == []
    for wider in rebuilt:
        result = await execute_selective_plan(router, wider, plan)
        assert result.route == "py:lookup_rates_backup"
    assert [name for name, _ in tools.calls] == ["lookup_rates_backup", "lookup_rates_backup"]


async def test_the_shortlist_is_retrieved_again_for_the_plans_own_request(tools: Tools) -> None:
    """A retrieval for another query, passed off as the plan's request (its digest copied),
    cannot put the plan's route on the shortlist: the fresh retrieval uses the sealed plan's
    query, not the retrieval's."""
    router = make_router(tools)
    request = PlanRequest("weather forecast for Oslo", {"customer_id": "c-1"})
    plan = router.plan_executable(request, route="py:delete_customer")
    other = PlanRequest("permanently delete customer c-1", {"customer_id": "c-1"})
    object.__setattr__(other, "digest", request.digest)
    forged = ExecutableRetrieval(other, None, router.retrieve(other.query, 3))
    assert "py:delete_customer" in forged.routes
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, forged, plan)
    assert (info.value.reason, info.value.route) == (RefusalReason.OFF_SHORTLIST, "py:delete_customer")
    assert tools.calls == []
