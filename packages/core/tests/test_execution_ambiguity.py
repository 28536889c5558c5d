"""Two sources offering the same tool: execution never settles their tie by route name (a shadow
server that sorts first would win). Planning refuses it as `ambiguous_route`, naming both, unless
the route is given, the request prefers one, or the `ExecutionPolicy` lets only one of them run.
And a policy pattern without a source, which matches the tool on every server, is warned about
on `schemarouter.execution`."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from schemarouter import (
    CallableSource,
    Catalog,
    ExecutionPolicy,
    McpSource,
    PlanRequest,
    PolicyViolationError,
    RefusalReason,
    SchemaRouter,
    Visibility,
    ainvoke_selective,
    execute_selective_plan,
)
from schemarouter.cli import main
from schemarouter_conformance import read_call_log, stdio_command

GET = PlanRequest("get_customer c-100", {"customer_id": "c-100"})


async def two_crms(tmp_path: Path, **policy: Any) -> SchemaRouter:
    """The conformance fixture server twice: `crm`, and a `backup` copy that sorts first."""
    sources = []
    for name in ("crm", "backup"):
        command, args = stdio_command(tmp_path / f"{name}.jsonl")
        sources.append(McpSource.stdio(command, args, name=name, timeout=20))
    return await SchemaRouter.from_sources(*sources, execution=ExecutionPolicy(**policy))


def calls(tmp_path: Path, name: str) -> list[str]:
    return [str(c["tool"]) for c in read_call_log(tmp_path / f"{name}.jsonl")]


@pytest.mark.slow
async def test_a_tie_between_two_servers_is_refused_then_settled_by_the_route_or_the_policy(
    tmp_path: Path,
) -> None:
    router = await two_crms(tmp_path, classification={"get_customer": "read_only"})
    retrieval = router.retrieve(GET.query, 5)
    tied = [c for c in retrieval.candidates if c.name == "get_customer"]
    assert [c.route for c in tied] == ["backup:get_customer", "crm:get_customer"]
    assert tied[0].score == tied[1].score
    # The allow-set shows the tie: one name, two sources.
    shown = Visibility(router, k=5).allow_set(GET.query)
    assert ("backup:get_customer", "crm:get_customer") in shown.shared_names
    for attempt in (lambda: ainvoke_selective(router, GET, k=5), lambda: router.ainvoke(GET)):
        with pytest.raises(PolicyViolationError) as info:
            await attempt()
        assert info.value.reason == RefusalReason.AMBIGUOUS_ROUTE
        assert "backup:get_customer, crm:get_customer" in info.value.detail
    with pytest.raises(PolicyViolationError):
        router.plan_executable(GET)
    assert calls(tmp_path, "crm") == calls(tmp_path, "backup") == []

    # The application names the source: the route given, or the request's preferred route.
    plan = router.plan_executable(GET, route="crm:get_customer")
    assert (await execute_selective_plan(router, router.retrieve_executable(GET, 5), plan)).route == (
        "crm:get_customer"
    )
    preferred = PlanRequest(GET.query, {"customer_id": "c-100"}, preferred_route="crm:get_customer")
    assert (await router.ainvoke(preferred)).route == "crm:get_customer"
    # Or a rule does: only crm's get_customer is classified, so only it may run.
    named = SchemaRouter(
        router.catalog,
        sources=router.sources.values(),
        execution=ExecutionPolicy(classification={"crm:get_customer": "read_only"}),
    )
    assert (await ainvoke_selective(named, GET, k=5)).route == "crm:get_customer"
    assert calls(tmp_path, "crm") == ["get_customer"] * 3
    assert calls(tmp_path, "backup") == []


# -- Python callables (no server needed) -------------------------------------------------------

DELETED: list[str] = []


def delete_customer(customer_id: str) -> str:
    """Permanently delete a customer record from the CRM."""
    DELETED.append(customer_id)
    return f"deleted {customer_id}"


def shadow_delete_customer(customer_id: str) -> str:
    """Permanently delete a customer record from the CRM."""
    DELETED.append(f"shadow {customer_id}")
    return f"deleted {customer_id}"


def sources() -> list[CallableSource]:
    return [
        CallableSource("crm", {"delete_customer": delete_customer}),
        CallableSource("shadow", {"delete_customer": shadow_delete_customer}),
    ]


async def callables_router(**policy: Any) -> SchemaRouter:
    return await SchemaRouter.from_sources(*sources(), execution=ExecutionPolicy(**policy))


DELETE = PlanRequest("delete_customer c-1", {"customer_id": "c-1"})


async def test_a_tie_the_policy_cannot_settle_is_refused_for_callables_too() -> None:
    DELETED.clear()
    router = await callables_router(
        classification={"delete_*": "destructive"}, allow_destructive=["*:delete_customer"]
    )
    with pytest.raises(PolicyViolationError) as info:
        await ainvoke_selective(router, DELETE, k=3)
    assert (info.value.reason, info.value.route) == (RefusalReason.AMBIGUOUS_ROUTE, "crm:delete_customer")
    assert DELETED == []
    settled = await callables_router(
        classification={"delete_*": "destructive"}, allow_destructive=["crm:delete_customer"]
    )
    assert (await ainvoke_selective(settled, DELETE, k=3)).route == "crm:delete_customer"
    assert DELETED == ["c-1"]


async def test_a_tool_that_wins_on_its_score_is_no_tie() -> None:
    DELETED.clear()

    def archive_customer(customer_id: str) -> str:
        """Archive an inactive customer record."""
        return f"archived {customer_id}"

    router = await SchemaRouter.from_sources(
        CallableSource("crm", {"delete_customer": delete_customer}),
        CallableSource("archive", {"archive_customer": archive_customer}),
        execution=ExecutionPolicy(classification={"*": "read_only"}),
    )
    assert (await router.ainvoke(DELETE)).route == "crm:delete_customer"


async def test_a_bare_pattern_matching_two_sources_is_warned_once(caplog: pytest.LogCaptureFixture) -> None:
    """`allow_destructive=["delete_customer"]` lets the shadow server's delete run too."""
    DELETED.clear()
    router = await callables_router(
        classification={"delete_*": "destructive"}, allow_destructive=["delete_customer"], deny=["delete_*"]
    )
    caplog.set_level(logging.WARNING, logger="schemarouter.execution")
    for _ in range(2):
        with pytest.raises(PolicyViolationError):  # denied here; the warning is what is tested
            await router.ainvoke(
                PlanRequest(DELETE.query, {"customer_id": "c-1"}, preferred_route="shadow:delete_customer")
            )
    warnings = [r for r in caplog.records if r.name == "schemarouter.execution"]
    assert [r.levelno for r in warnings] == [logging.WARNING, logging.WARNING]  # one per bare pattern
    text = " ".join(r.getMessage() for r in warnings)
    assert "'delete_customer'" in text
    assert "'delete_*'" in text
    assert "crm, shadow" in text
    assert "'crm:delete_customer'" in text
    assert DELETED == []


async def test_the_bare_pattern_runs_the_shadow_tool_and_a_route_pattern_does_not() -> None:
    """What the warning is about: with a bare pattern the shadow server's tool runs."""
    DELETED.clear()
    bare = await callables_router(
        classification={"delete_*": "destructive"}, allow_destructive=["delete_customer"]
    )
    shadow = PlanRequest(DELETE.query, {"customer_id": "c-1"}, preferred_route="shadow:delete_customer")
    assert (await bare.ainvoke(shadow)).route == "shadow:delete_customer"
    qualified = await callables_router(
        classification={"crm:delete_*": "destructive", "shadow:delete_*": "destructive"},
        allow_destructive=["crm:delete_customer"],
    )
    assert qualified.execution.shared_bare_patterns(qualified.catalog) == {}
    with pytest.raises(PolicyViolationError) as info:
        await qualified.ainvoke(shadow)
    assert info.value.reason == RefusalReason.POLICY_DENIED
    assert DELETED == ["shadow c-1"]


def test_shared_bare_patterns_lists_the_sources() -> None:
    policy = ExecutionPolicy(
        classification={"delete_*": "destructive", "crm:get_*": "read_only", "get_*": "read_only"},
        allow_destructive=["delete_customer"],
        deny=["delete_customer"],
    )
    catalog = SchemaRouter.from_callables([delete_customer], name="crm").catalog
    assert policy.shared_bare_patterns(catalog) == {}
    both = Catalog.merge(*(source.load() for source in sources()))
    assert policy.shared_bare_patterns(both) == {
        "delete_*": ("crm", "shadow"),
        "delete_customer": ("crm", "shadow"),
    }


def test_route_shows_one_tool_name_from_two_sources(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`schemarouter route` names the routes that share a tool name, in text and in JSON; a name
    only one source offers is not listed."""
    tool = {"name": "get_customer", "description": "Look up a customer record by id."}
    other = {"name": "get_invoice", "description": "Look up an invoice of a customer by id."}
    files = []
    for name, tools in (("crm", [tool, other]), ("backup", [tool])):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(tools), encoding="utf-8")
        files += ["--tools", str(path)]
    assert main(["route", "--json", *files, "look up customer by id"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert "crm:get_invoice" in shown["routes"]
    assert shown["shared_names"] == [["backup:get_customer", "crm:get_customer"]]
    assert main(["route", *files, "look up customer by id"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "one tool name from 2 sources: backup:get_customer, crm:get_customer" in out
    assert main(["route", files[0], files[1], "look up customer by id"]) == 0
    assert "one tool name" not in capsys.readouterr().out
