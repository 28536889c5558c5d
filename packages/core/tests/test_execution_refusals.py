"""Every refusal of the execution boundary, against the bundled fixture server over stdio and
streamable HTTP on 127.0.0.1: each asserts the reason code and that no tool body ran."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from schemarouter import (
    Catalog,
    ExecutionPolicy,
    McpSource,
    PlanRequest,
    PolicyViolationError,
    RefusalReason,
    RetrievalAbstentionPolicy,
    RunConfig,
    SchemaRouter,
    ainvoke_selective,
    execute_selective_plan,
)
from schemarouter_conformance import http_fixture_server, read_call_log, stdio_command

pytestmark = pytest.mark.slow

ADD = PlanRequest("add 2 and 3", {"a": 2, "b": 3})


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True)
class Served:
    """The fixture server reached over one transport, its catalog loaded once."""

    transport: str
    source: McpSource
    catalog: Catalog
    call_log: Path

    def router(self, catalog: Catalog | None = None, **policy: Any) -> SchemaRouter:
        policy.setdefault("allow_unclassified_remote", True)
        return SchemaRouter(
            catalog or self.catalog, sources=[self.source], execution=ExecutionPolicy(**policy)
        )

    def calls(self) -> list[dict[str, object]]:
        return read_call_log(self.call_log)


@pytest.fixture(scope="module", params=["stdio", "http"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    workdir = tmp_path_factory.mktemp(f"refusals-{request.param}")
    call_log = workdir / "calls.jsonl"
    with ExitStack() as stack:
        if request.param == "http":
            url = stack.enter_context(http_fixture_server(call_log, workdir / "server.log"))
            source = McpSource.http(url, name="fixture", timeout=20)
        else:
            command, args = stdio_command(call_log)
            source = McpSource.stdio(command, args, name="fixture", timeout=20)
        catalog = asyncio.run(source.load())
        yield Served(request.param, source, catalog, call_log)


def assert_refused(
    info: pytest.ExceptionInfo[PolicyViolationError], reason: RefusalReason, served: Served
) -> None:
    assert info.value.reason == reason, str(info.value)
    assert str(info.value.reason) == reason.value
    assert served.calls() == [], "a refused plan must not run any tool body"


# -- no route / shortlist -----------------------------------------------------------------------


async def test_no_route_when_the_abstention_policy_drops_the_planned_route(served: Served) -> None:
    router = served.router()
    with pytest.raises(PolicyViolationError) as info:
        await ainvoke_selective(router, ADD, k=3, abstention=RetrievalAbstentionPolicy(min_score=1.0))
    assert_refused(info, RefusalReason.NO_ROUTE, served)
    assert info.value.route == "fixture:add"


async def test_no_route_when_retrieval_found_nothing_for_the_request(served: Served) -> None:
    router = served.router()
    request = PlanRequest("tell me a joke about cats")
    retrieval = router.retrieve_executable(request, 3)
    assert retrieval.no_route
    plan = router.plan_executable(request, route="fixture:add")
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, plan)
    assert_refused(info, RefusalReason.NO_ROUTE, served)


async def test_a_route_off_the_shortlist_is_refused(served: Served) -> None:
    router = served.router()
    retrieval = router.retrieve_executable(ADD, 3)
    assert "fixture:add" in retrieval.routes
    assert "fixture:send_email" not in retrieval.routes
    plan = router.plan_executable(ADD, route="fixture:send_email")
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, plan)
    assert_refused(info, RefusalReason.OFF_SHORTLIST, served)
    assert info.value.route == "fixture:send_email"


async def test_a_fallback_route_off_the_shortlist_is_refused(served: Served) -> None:
    router = served.router()
    retrieval = router.retrieve_executable(ADD, 3)
    plan = router.plan_executable(ADD, fallback_routes=["fixture:delete_invoice"])
    assert plan.route == "fixture:add"
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, plan)
    assert_refused(info, RefusalReason.OFF_SHORTLIST, served)
    assert info.value.route == "fixture:delete_invoice"


# -- routes and contracts -----------------------------------------------------------------------


async def test_an_unknown_preferred_route_is_refused(served: Served) -> None:
    router = served.router()
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(
            PlanRequest("add 2 and 3", {"a": 2, "b": 3}, preferred_route="fixture:drop_database")
        )
    assert_refused(info, RefusalReason.UNKNOWN_ROUTE, served)


async def test_a_catalog_without_its_source_is_not_executable(served: Served) -> None:
    router = SchemaRouter(served.catalog, execution=ExecutionPolicy(allow_unclassified_remote=True))
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(ADD)
    assert_refused(info, RefusalReason.NOT_EXECUTABLE, served)


async def test_a_stale_local_contract_is_refused_against_the_live_listing(served: Served) -> None:
    # The router's copy of `add` differs from what the server lists now.
    stale = Catalog(
        dataclasses.replace(cap, description="Add two numbers.") if cap.name == "add" else cap
        for cap in served.catalog
    )
    router = served.router(stale)
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(ADD)
    assert_refused(info, RefusalReason.FINGERPRINT_MISMATCH, served)
    assert "server" in str(info.value)


async def test_a_retrieval_over_another_catalog_is_refused(served: Served) -> None:
    router = served.router()
    smaller = served.router(Catalog(cap for cap in served.catalog if cap.name != "send_email"))
    plan = router.plan_executable(ADD)
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, smaller.retrieve_executable(ADD, 3), plan)
    assert_refused(info, RefusalReason.CATALOG_MISMATCH, served)


# -- plan binding -------------------------------------------------------------------------------


async def test_an_expired_plan_is_refused(served: Served) -> None:
    clock = Clock()
    router = served.router(clock=clock, plan_ttl=120)
    retrieval = router.retrieve_executable(ADD, 3)
    plan = router.plan_executable(ADD)
    clock.now += 121
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, plan)
    assert_refused(info, RefusalReason.PLAN_EXPIRED, served)


async def test_a_plan_issued_ahead_of_the_clock_is_refused(served: Served) -> None:
    """Bug: only expiry was checked, so a plan stayed runnable after the clock was set back."""
    clock = Clock()
    router = served.router(clock=clock, plan_ttl=120)
    retrieval = router.retrieve_executable(ADD, 3)
    plan = router.plan_executable(ADD)
    clock.now -= 30
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, plan)
    assert_refused(info, RefusalReason.PLAN_ISSUED_IN_FUTURE, served)
    assert "30 s ahead" in str(info.value)


async def test_an_altered_plan_is_refused(served: Served) -> None:
    router = served.router()
    plan = router.plan_executable(ADD)
    forged = dataclasses.replace(plan, request=PlanRequest("add 2 and 3", {"a": 2, "b": 300}))
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, router.retrieve_executable(forged.request, 3), forged)
    assert_refused(info, RefusalReason.PLAN_SEAL_INVALID, served)


async def test_a_plan_for_another_request_is_refused(served: Served) -> None:
    router = served.router()
    retrieval = router.retrieve_executable(ADD, 3)
    plan = router.plan_executable(PlanRequest("add 2 and 3", {"a": 2, "b": 4}))
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, plan)
    assert_refused(info, RefusalReason.REQUEST_MISMATCH, served)


# Pairs of principals that are different identities; the later ones are equal under `==`.
OTHER_PRINCIPALS = [
    pytest.param("alice", "bob", id="other-name"),
    pytest.param(1, True, id="int-then-bool"),
    pytest.param(True, 1, id="bool-then-int"),
    pytest.param(1, 1.0, id="int-then-float"),
    pytest.param(0, False, id="zero-then-false"),
    pytest.param(("tenant", 1), ("tenant", True), id="tuple-member"),
    pytest.param(frozenset({1}), frozenset({1.0}), id="frozenset-member"),
]


@pytest.mark.parametrize(("planned", "executing"), OTHER_PRINCIPALS)
async def test_a_plan_for_another_principal_is_refused(served: Served, planned: Any, executing: Any) -> None:
    """Bug: principals were compared by `==`, so a plan made for 1 ran for True and 1.0."""
    router = served.router()
    config = RunConfig(principal=planned)
    retrieval = router.retrieve_executable(ADD, 3, config=config)
    plan = router.plan_executable(ADD, config=config)
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, plan, config=RunConfig(principal=executing))
    assert_refused(info, RefusalReason.PRINCIPAL_MISMATCH, served)


async def test_a_plan_for_a_principal_is_refused_without_a_config(served: Served) -> None:
    router = served.router()
    alice = RunConfig(principal="alice")
    plan = router.plan_executable(ADD, config=alice)
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, router.retrieve_executable(ADD, 3, config=alice), plan)
    assert_refused(info, RefusalReason.PRINCIPAL_MISMATCH, served)


@pytest.mark.parametrize(("retrieved_for", "planned"), OTHER_PRINCIPALS)
async def test_a_retrieval_and_plan_for_different_principals_are_refused(
    served: Served, retrieved_for: Any, planned: Any
) -> None:
    router = served.router()
    config = RunConfig(principal=planned)
    retrieval = router.retrieve_executable(ADD, 3, config=RunConfig(principal=retrieved_for))
    plan = router.plan_executable(ADD, config=config)
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, plan, config=config)
    assert_refused(info, RefusalReason.RETRIEVAL_PRINCIPAL_MISMATCH, served)


# -- arguments and policy -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param({"a": "two", "b": 3}, id="wrong-type"),
        pytest.param({"a": 2}, id="missing-required"),
    ],
)
async def test_arguments_that_break_the_input_schema_are_refused(
    served: Served, arguments: dict[str, Any]
) -> None:
    router = served.router()
    with pytest.raises(PolicyViolationError) as info:
        await ainvoke_selective(router, PlanRequest("add 2 and 3", arguments), k=3)
    assert_refused(info, RefusalReason.INVALID_ARGUMENTS, served)


async def test_an_argument_check_over_its_budget_is_refused(served: Served) -> None:
    # The router's copy of `add` takes a string checked by a pattern that backtracks; the
    # check is refused before the live contract is even listed.
    backtracking = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a|aa)+$"}}}
    costly = Catalog(
        dataclasses.replace(cap, input_schema=backtracking) if cap.name == "add" else cap
        for cap in served.catalog
    )
    router = served.router(costly, schema_check_seconds=0.2)
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(PlanRequest("add", {"a": "a" * 41 + "b"}, preferred_route="fixture:add"))
    assert_refused(info, RefusalReason.ARGUMENTS_CHECK_TOO_COSTLY, served)
    assert info.value.route == "fixture:add"


async def test_a_plan_that_ran_is_refused_the_second_time(served: Served) -> None:
    router = served.router()
    plan = router.plan_executable(ADD)
    assert (await router.ainvoke(ADD)).structured == {"result": 5.0}  # a plan of its own
    assert (await execute_selective_plan(router, router.retrieve_executable(ADD, 3), plan)).text == "5.0"
    assert [c["tool"] for c in served.calls()] == ["add", "add"]
    served.call_log.write_text("", encoding="utf-8")
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, router.retrieve_executable(ADD, 3), plan)
    assert_refused(info, RefusalReason.PLAN_ALREADY_USED, served)


async def test_the_same_tool_on_two_sources_is_ambiguous(served: Served) -> None:
    # A second source serving the very same tools (here the same server under another name).
    shadow = dataclasses.replace(served.source, name="backup")
    both = Catalog.merge(
        served.catalog, Catalog(dataclasses.replace(cap, source="backup") for cap in served.catalog)
    )
    router = SchemaRouter(
        both, sources=[served.source, shadow], execution=ExecutionPolicy(allow_unclassified_remote=True)
    )
    with pytest.raises(PolicyViolationError) as info:
        await ainvoke_selective(router, ADD, k=3)
    assert_refused(info, RefusalReason.AMBIGUOUS_ROUTE, served)
    assert "backup:add, fixture:add" in str(info.value)


async def test_unclassified_remote_tools_are_denied_by_default(served: Served) -> None:
    router = SchemaRouter(served.catalog, sources=[served.source])
    with pytest.raises(PolicyViolationError) as info:
        await ainvoke_selective(router, ADD, k=3)
    assert_refused(info, RefusalReason.POLICY_DENIED, served)
    assert "allow_unclassified_remote" in str(info.value)


async def test_a_remote_destructive_hint_is_denied_without_explicit_allowance(served: Served) -> None:
    router = served.router(classification={"delete_customer": "mutating"})
    request = PlanRequest("permanently delete customer c-200 from the CRM", {"customer_id": "c-200"})
    with pytest.raises(PolicyViolationError) as info:
        await ainvoke_selective(router, request, k=3)
    assert_refused(info, RefusalReason.POLICY_DENIED, served)
    assert info.value.route == "fixture:delete_customer"


def test_every_refusal_reason_has_a_test_here() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    untested = [r for r in RefusalReason if f"RefusalReason.{r.name}, served" not in source]
    assert untested == []
