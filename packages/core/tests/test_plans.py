"""PlanRequest digests and ExecutionPlan binding: what a plan is bound to, and how it is sealed."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest

from schemarouter import (
    ExecutionPlan,
    ExecutionPolicy,
    PlanRequest,
    PolicyViolationError,
    RefusalReason,
    RunConfig,
    SchemaRouter,
    UserError,
    execute_selective_plan,
)


class Clock:
    """A wall clock the test moves by hand."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def convert_currency(amount: float, from_currency: str, to_currency: str) -> float:
    """Convert an amount of money between currencies at today's exchange rate."""
    return amount


def get_weather_forecast(city: str, days: int = 3) -> str:
    """Get the weather forecast for a city for the next days."""
    return city


def delete_customer(customer_id: str) -> str:
    """Permanently delete a customer record from the CRM."""
    return customer_id


def make_router(clock: Clock | None = None, **policy: Any) -> SchemaRouter:
    return SchemaRouter.from_callables(
        [convert_currency, get_weather_forecast, delete_customer],
        name="py",
        execution=ExecutionPolicy(clock=clock or Clock(), **policy),
    )


# -- PlanRequest --------------------------------------------------------------------------------


def test_request_digest_ignores_key_order_and_tracks_every_field() -> None:
    base = PlanRequest("convert money", {"amount": 5, "from_currency": "USD", "to_currency": "EUR"})
    reordered = PlanRequest("convert money", {"to_currency": "EUR", "amount": 5, "from_currency": "USD"})
    assert base.digest == reordered.digest
    others = [
        PlanRequest("convert cash", dict(base.arguments or {})),
        PlanRequest("convert money", {"amount": 6, "from_currency": "USD", "to_currency": "EUR"}),
        PlanRequest("convert money", dict(base.arguments or {}), preferred_route="py:convert_currency"),
    ]
    assert len({base.digest, *(o.digest for o in others)}) == 4


def test_request_copies_its_arguments() -> None:
    arguments: dict[str, Any] = {"city": "Paris", "nested": {"days": 3}}
    request = PlanRequest("weather", arguments)
    arguments["city"] = "Rome"
    arguments["nested"]["days"] = 9
    assert request.arguments == {"city": "Paris", "nested": {"days": 3}}
    handed_out = request.call_arguments
    handed_out["city"] = "Oslo"
    assert request.arguments == {"city": "Paris", "nested": {"days": 3}}


def test_request_without_arguments_has_an_empty_object() -> None:
    assert PlanRequest("weather").arguments == {}


NESTED: dict[str, Any] = {"city": "Paris", "nested": {"days": 3}, "tags": ["a", {"b": 1}]}


def _nested() -> dict[str, Any]:
    return json.loads(json.dumps(NESTED))


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda a: a.__setitem__("city", "Rome"), id="set-top-level"),
        pytest.param(lambda a: a.__delitem__("city"), id="delete-top-level"),
        pytest.param(lambda a: a.update(city="Rome"), id="update"),
        pytest.param(lambda a: a.clear(), id="clear"),
        pytest.param(lambda a: a["nested"].__setitem__("days", 9), id="set-nested"),
        pytest.param(lambda a: a["tags"].append("c"), id="append-nested"),
        pytest.param(lambda a: a["tags"][1].__setitem__("b", 2), id="set-deep"),
        pytest.param(lambda a: a.get("nested").clear(), id="clear-nested-via-get"),
        pytest.param(lambda a: list(a.values())[1].clear(), id="via-values"),
        pytest.param(lambda a: dict(a.items())["nested"].clear(), id="via-items"),
    ],
)
def test_request_arguments_cannot_be_edited_in_place(edit: Callable[[Any], object]) -> None:
    """Bug: PlanRequest was frozen but its arguments dict was not; an edit left the digest stale."""
    request = PlanRequest("weather", _nested())
    digest = request.digest
    with contextlib.suppress(TypeError, AttributeError):
        edit(request.arguments)
    assert request.arguments == NESTED
    assert request.call_arguments == NESTED
    assert request.digest == digest == PlanRequest("weather", NESTED).digest


def test_request_arguments_read_as_plain_json() -> None:
    request = PlanRequest("weather", {"city": "Paris", "days": (1, 2), "nested": {"tags": ("a",)}})
    arguments = request.arguments
    assert arguments is not None
    assert arguments == {"city": "Paris", "days": [1, 2], "nested": {"tags": ["a"]}}
    assert dict(arguments) == arguments
    assert json.loads(json.dumps(dict(arguments))) == arguments
    assert (len(arguments), list(arguments), "city" in arguments) == (3, ["city", "days", "nested"], True)
    assert arguments.get("missing") is None
    assert PlanRequest("weather", arguments) == request
    assert PlanRequest("weather", arguments).digest == request.digest
    assert request.call_arguments == arguments
    assert type(request.call_arguments) is dict


def test_an_edited_request_cannot_run_with_a_plan_and_retrieval_made_before() -> None:
    """Bug: a retrieval made for a=2 paired with the same request edited to a=1000, and
    add(1000, 3) ran, because the digest did not follow the edit."""
    seen: list[tuple[float, float]] = []

    def add(a: float, b: float) -> float:
        """Add two numbers."""
        seen.append((a, b))
        return a + b

    router = SchemaRouter.from_callables([add], name="py", execution=ExecutionPolicy(clock=Clock()))
    request = PlanRequest("add 2 and 3", {"a": 2, "b": 3})
    retrieval = router.retrieve_executable(request, 3)
    with pytest.raises(TypeError):
        request.arguments["a"] = 1000  # pyright: ignore[reportIndexIssue, reportOptionalSubscript]
    plan = router.plan_executable(request)
    assert plan.arguments == {"a": 2, "b": 3}
    result = asyncio.run(execute_selective_plan(router, retrieval, plan))
    assert (result.structured, seen) == (5, [(2, 3)])


def _cyclic() -> dict[str, Any]:
    arguments: dict[str, Any] = {"items": []}
    arguments["items"].append(arguments)
    return arguments


def _deep(depth: int) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    for _ in range(depth):
        arguments = {"x": arguments}
    return arguments


@pytest.mark.parametrize(
    ("query", "arguments"),
    [
        pytest.param(42, None, id="query-not-string"),
        pytest.param("q", ["a", "b"], id="arguments-not-object"),
        pytest.param("q", {1: "a"}, id="non-string-key"),
        pytest.param("q", {"x": object()}, id="not-json"),
        pytest.param("q", {"x": math.nan}, id="nan"),
        pytest.param("q", {"x": [1, {"y": -math.inf}]}, id="nested-infinity"),
        pytest.param("q", {"x": {1: "a"}}, id="nested-non-string-key"),
        pytest.param("q", {"x": [{None: "a"}]}, id="nested-none-key"),
        pytest.param("q", {"x": {1, 2}}, id="set"),
        pytest.param("q", {"x": b"bytes"}, id="bytes"),
        pytest.param("q", {"x": "\ud800"}, id="lone-surrogate"),
        pytest.param("q", _cyclic(), id="cycle"),
        pytest.param("q", _deep(5_000), id="too-deep"),
        pytest.param("q", {"x": 10**5_000}, id="integer-too-long"),
    ],
)
def test_bad_requests_are_user_errors(query: Any, arguments: Any) -> None:
    with pytest.raises(UserError):
        PlanRequest(query, arguments)


# -- plans --------------------------------------------------------------------------------------


def test_plan_is_bound_to_request_catalog_fingerprint_principal_and_time() -> None:
    clock = Clock(5_000.0)
    router = make_router(clock, plan_ttl=60)
    request = PlanRequest(
        "convert 100 USD to EUR", {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}
    )
    plan = router.plan_executable(request, config=RunConfig(principal="alice"))
    assert plan.route == "py:convert_currency"
    assert plan.selection == "routed"
    assert plan.request_digest == request.digest
    assert plan.catalog_version == router.catalog.version
    assert plan.fingerprint == router.catalog["py:convert_currency"].fingerprint
    assert plan.principal == "alice"
    assert (plan.issued_at, plan.expires_at) == (5_000.0, 5_060.0)
    assert plan.arguments == request.arguments
    assert plan.routes == ("py:convert_currency",)


def test_planning_is_deterministic() -> None:
    """Two plans made alike differ only in their plan_id (and so their seal): each has its own use."""
    router = make_router()
    request = PlanRequest("weather forecast for Paris", {"city": "Paris"})
    first, second = router.plan_executable(request), router.plan_executable(request)
    assert first.plan_id != second.plan_id
    assert dataclasses.replace(first, plan_id="", seal="") == dataclasses.replace(second, plan_id="", seal="")


def test_preferred_and_explicit_routes_are_planned_as_given() -> None:
    router = make_router()
    preferred = router.plan_executable(
        PlanRequest("anything at all", {"city": "Oslo"}, preferred_route="py:get_weather_forecast")
    )
    assert (preferred.route, preferred.selection) == ("py:get_weather_forecast", "preferred_route")
    explicit = router.plan_executable("weather in Oslo", route="py:delete_customer")
    assert (explicit.route, explicit.selection) == ("py:delete_customer", "explicit_route")


def test_fallback_routes_are_bound_with_their_fingerprints() -> None:
    router = make_router()
    plan = router.plan_executable(
        "forecast", route="py:get_weather_forecast", fallback_routes=["py:convert_currency"]
    )
    assert plan.routes == ("py:get_weather_forecast", "py:convert_currency")
    assert plan.fingerprints == tuple(router.catalog[r].fingerprint for r in plan.routes)


@pytest.mark.parametrize(
    "plan_kwargs",
    [
        pytest.param({"route": "py:no_such_tool"}, id="explicit"),
        pytest.param({"fallback_routes": ["py:no_such_tool"]}, id="fallback"),
    ],
)
def test_planning_an_unknown_route_is_refused(plan_kwargs: dict[str, Any]) -> None:
    router = make_router()
    with pytest.raises(PolicyViolationError) as info:
        router.plan_executable("weather forecast for Paris", **plan_kwargs)
    assert info.value.reason == RefusalReason.UNKNOWN_ROUTE
    assert info.value.route == "py:no_such_tool"


def test_unknown_preferred_route_is_refused() -> None:
    router = make_router()
    with pytest.raises(PolicyViolationError) as info:
        router.plan_executable(PlanRequest("weather", preferred_route="py:nope"))
    assert info.value.reason == "unknown_route"


def test_a_request_nothing_matches_cannot_be_planned() -> None:
    router = make_router()
    with pytest.raises(PolicyViolationError) as info:
        router.plan_executable("zzzz qqqq xxxx")
    assert info.value.reason == RefusalReason.NO_ROUTE


def test_repeated_routes_in_a_plan_are_a_user_error() -> None:
    router = make_router()
    with pytest.raises(UserError):
        router.plan_executable("x", route="py:delete_customer", fallback_routes=["py:delete_customer"])
    with pytest.raises(UserError):
        router.plan_executable("x", route="py:delete_customer", fallback_routes="py:convert_currency")


# -- the seal -----------------------------------------------------------------------------------


def _forgeries(plan: ExecutionPlan, router: SchemaRouter) -> dict[str, ExecutionPlan]:
    other = PlanRequest(plan.query, {"city": "Rome"})
    return {
        "route": dataclasses.replace(plan, route="py:delete_customer"),
        "request": dataclasses.replace(plan, request=other),
        "principal": dataclasses.replace(plan, principal="mallory"),
        "issued_at": dataclasses.replace(plan, issued_at=plan.issued_at + 1),
        "expires_at": dataclasses.replace(plan, expires_at=plan.expires_at + 3600),
        "fallbacks": dataclasses.replace(
            plan,
            fallback_routes=("py:delete_customer",),
            fallback_fingerprints=(router.catalog["py:delete_customer"].fingerprint,),
        ),
    }


async def test_plans_from_another_router_or_edited_after_issue_fail_the_seal() -> None:
    router = make_router()
    twin = make_router()
    plan = router.plan_executable(PlanRequest("weather forecast", {"city": "Paris"}))
    assert plan.catalog_version == twin.catalog.version
    candidates = [*_forgeries(plan, router).values()]
    # Swapping the arguments behind the frozen dataclass's back: other arguments, or a plain
    # dict with the same content in place of the request's own frozen copy.
    for swapped in [PlanRequest("weather forecast", {"city": "Rome"}).arguments, {"city": "Paris"}]:
        edited = router.plan_executable(PlanRequest("weather forecast", {"city": "Paris"}))
        object.__setattr__(edited.request, "arguments", swapped)
        candidates.append(edited)
    for forged in candidates:
        retrieval = router.retrieve_executable(forged.request, 3)
        with pytest.raises(PolicyViolationError) as info:
            await execute_selective_plan(router, retrieval, forged)
        assert info.value.reason == RefusalReason.PLAN_SEAL_INVALID
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(twin, twin.retrieve_executable(plan.request, 3), plan)
    assert info.value.reason == RefusalReason.PLAN_SEAL_INVALID
    result = await execute_selective_plan(router, router.retrieve_executable(plan.request, 3), plan)
    assert result.structured == "Paris"


# -- issue time and principal -------------------------------------------------------------------


def _logging_router(clock: Clock, calls: list[str]) -> SchemaRouter:
    def get_weather_forecast(city: str) -> str:
        """Get the weather forecast for a city."""
        calls.append(city)
        return city

    return SchemaRouter.from_callables(
        [get_weather_forecast], name="py", execution=ExecutionPolicy(clock=clock)
    )


WEATHER = PlanRequest("weather forecast for Paris", {"city": "Paris"})


@pytest.mark.parametrize("set_back", [1.5, 60.0, 86_400.0])
async def test_a_plan_ahead_of_the_clock_runs_only_within_the_one_second_tolerance(set_back: float) -> None:
    """Bug: a plan whose issue time was ahead of the clock (the clock set back) ran."""
    clock = Clock()
    calls: list[str] = []
    router = _logging_router(clock, calls)
    plan = router.plan_executable(WEATHER)
    clock.now -= set_back
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, router.retrieve_executable(WEATHER, 3), plan)
    assert (info.value.reason, calls) == (RefusalReason.PLAN_ISSUED_IN_FUTURE, [])
    clock.now = plan.issued_at - 1.0  # a step back of at most the documented tolerance still runs
    result = await execute_selective_plan(router, router.retrieve_executable(WEATHER, 3), plan)
    assert (result.structured, calls) == ("Paris", ["Paris"])


class Member(NamedTuple):
    tenant: str
    user: int


@pytest.mark.parametrize(
    ("planned", "same", "look_alike"),
    [
        pytest.param(1, 1, True, id="int-bool"),
        pytest.param(2**70, 2**70 + 0, 2.0**70, id="big-int-float"),
        pytest.param(("t", 1), ("t", 1), ("t", 1.0), id="tuple"),
        pytest.param(Member("t", 1), Member("t", 1), ("t", 1), id="named-tuple-plain-tuple"),
        pytest.param(frozenset({"a", 1}), frozenset([1, "a"]), frozenset({"a", True}), id="frozenset"),
    ],
)
async def test_a_plan_runs_for_its_own_principal_only(planned: Any, same: Any, look_alike: Any) -> None:
    """Bug: a plan made for principal 1 ran for True, because principals were compared by `==`."""
    assert look_alike == planned  # what the old comparison said
    calls: list[str] = []
    router = _logging_router(Clock(), calls)
    plan = router.plan_executable(WEATHER, config=RunConfig(principal=planned))
    retrieval = router.retrieve_executable(WEATHER, 3, config=RunConfig(principal=planned))
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, plan, config=RunConfig(principal=look_alike))
    assert (info.value.reason, calls) == (RefusalReason.PRINCIPAL_MISMATCH, [])
    assert type(look_alike).__name__ in str(info.value)
    result = await execute_selective_plan(router, retrieval, plan, config=RunConfig(principal=same))
    assert (result.structured, calls) == ("Paris", ["Paris"])
