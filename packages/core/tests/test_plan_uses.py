"""A plan runs once unless it was issued for more uses: a second run is refused as
`plan_already_used`, also when several tasks or threads run it at the same time. A run refused
by a check, or whose call was never sent, leaves the plan's use in place."""

from __future__ import annotations

import copy
import dataclasses
import threading
from typing import Any

import anyio
import pytest

from schemarouter import (
    ExecutionPolicy,
    PlanRequest,
    PolicyViolationError,
    RefusalReason,
    RunConfig,
    SchemaRouter,
    UserError,
    execute_selective_plan,
)

BODIES: list[str] = []


def refund_order(order_id: str) -> str:
    """Refund an order to the customer's card."""
    BODIES.append(order_id)
    return f"refunded {order_id}"


def make_router() -> SchemaRouter:
    return SchemaRouter.from_callables([refund_order], name="shop", execution=ExecutionPolicy())


REFUND = PlanRequest("refund_order", {"order_id": "o-1"})


@pytest.fixture(autouse=True)
def no_bodies() -> None:
    BODIES.clear()


async def run(router: SchemaRouter, plan: Any, config: RunConfig | None = None) -> Any:
    return await execute_selective_plan(
        router, router.retrieve_executable(REFUND, 3, config=config), plan, config=config
    )


async def test_a_plan_runs_once() -> None:
    router = make_router()
    plan = router.plan_executable(REFUND)
    assert plan.uses == 1
    assert (await run(router, plan)).structured == "refunded o-1"
    for _ in range(2):
        with pytest.raises(PolicyViolationError) as info:
            await run(router, plan)
        assert (info.value.reason, info.value.route) == (RefusalReason.PLAN_ALREADY_USED, "shop:refund_order")
    assert BODIES == ["o-1"]
    # A copy is the same plan: it has no use of its own.
    with pytest.raises(PolicyViolationError) as info:
        await run(router, copy.deepcopy(plan))
    assert info.value.reason == RefusalReason.PLAN_ALREADY_USED


async def test_a_plan_run_by_concurrent_tasks_runs_once() -> None:
    router = make_router()
    plan = router.plan_executable(REFUND)
    outcomes: list[str] = []

    async def attempt() -> None:
        try:
            outcomes.append((await run(router, plan)).structured)
        except PolicyViolationError as exc:
            outcomes.append(exc.reason)

    async with anyio.create_task_group() as group:
        for _ in range(5):
            group.start_soon(attempt)
    assert sorted(outcomes) == sorted(["refunded o-1"] + [RefusalReason.PLAN_ALREADY_USED] * 4)
    assert BODIES == ["o-1"]


def test_a_plan_run_from_several_threads_runs_once() -> None:
    router = make_router()
    plan = router.plan_executable(REFUND)
    outcomes: list[str] = []
    start = threading.Barrier(6)

    def attempt() -> None:
        start.wait()
        try:
            outcomes.append(anyio.run(run, router, plan).structured)
        except PolicyViolationError as exc:
            outcomes.append(exc.reason)

    threads = [threading.Thread(target=attempt) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == sorted(["refunded o-1"] + [RefusalReason.PLAN_ALREADY_USED] * 5)
    assert BODIES == ["o-1"]


async def test_uses_lets_a_plan_run_that_many_times() -> None:
    router = make_router()
    plan = router.plan_executable(REFUND, uses=3)
    for _ in range(3):
        await run(router, plan)
    with pytest.raises(PolicyViolationError) as info:
        await run(router, plan)
    assert info.value.reason == RefusalReason.PLAN_ALREADY_USED
    assert "3 times" in info.value.detail
    assert BODIES == ["o-1"] * 3


async def test_uses_is_sealed() -> None:
    router = make_router()
    plan = router.plan_executable(REFUND)
    await run(router, plan)
    for forged in (dataclasses.replace(plan, uses=5), dataclasses.replace(plan, plan_id="0" * 32)):
        with pytest.raises(PolicyViolationError) as info:
            await run(router, forged)
        assert info.value.reason == RefusalReason.PLAN_SEAL_INVALID
    assert BODIES == ["o-1"]


async def test_a_refused_run_leaves_the_plan_unused() -> None:
    """A check that refuses comes before any call: the plan may be run again, by the right
    principal, or be refused again for the same reason (never for having been used)."""
    router = make_router()
    alice = RunConfig(principal="alice")
    plan = router.plan_executable(REFUND, config=alice)
    with pytest.raises(PolicyViolationError) as info:
        await run(router, plan)  # for no principal
    assert info.value.reason == RefusalReason.PRINCIPAL_MISMATCH
    assert (await run(router, plan, alice)).structured == "refunded o-1"
    invalid = PlanRequest("refund_order", {"order_id": 7})
    bad = router.plan_executable(invalid)
    for _ in range(2):
        with pytest.raises(PolicyViolationError) as info:
            await execute_selective_plan(router, router.retrieve_executable(invalid, 3), bad)
        assert info.value.reason == RefusalReason.INVALID_ARGUMENTS
    assert BODIES == ["o-1"]


@pytest.mark.parametrize("uses", [0, -1, 1.0, True, "2", None])
def test_uses_must_be_a_whole_number_of_at_least_one(uses: object) -> None:
    with pytest.raises(UserError, match="uses"):
        make_router().plan_executable(REFUND, uses=uses)  # pyright: ignore[reportArgumentType]


async def test_ainvoke_makes_a_new_plan_each_time() -> None:
    router = make_router()
    for _ in range(2):
        assert (
            await router.ainvoke(PlanRequest("refund_order", {"order_id": "o-2"}))
        ).structured == "refunded o-2"
    assert BODIES == ["o-2", "o-2"]
