"""A fleet's worker starts from a snapshot and calls the live MCP server: the execution boundary
still compares each tool's contract with the live listing, so a tool that changed on its
server since the snapshot was built is refused before it runs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from schemarouter import (
    ExecutionPolicy,
    McpSource,
    PlanRequest,
    PolicyViolationError,
    RefusalReason,
    SchemaRouter,
    execute_selective_plan,
)
from schemarouter.execution import EffectClass
from schemarouter.snapshot import load_snapshot, save_snapshot
from schemarouter_conformance import read_call_log

pytestmark = pytest.mark.slow

EXECUTION_SERVER = Path(__file__).parent / "servers" / "execution_server.py"
RULES: dict[str, EffectClass] = {"transfer_funds": "mutating"}
REQUEST = PlanRequest("transfer funds", {"account": "acc-1", "amount": 25})


@pytest.fixture
def variant(tmp_path: Path) -> Callable[[str], None]:
    path = tmp_path / "variant.txt"
    path.write_text("v1", encoding="utf-8")

    def switch(value: str) -> None:
        path.write_text(value, encoding="utf-8")

    return switch


@pytest.fixture
def bank(tmp_path: Path, call_log: Path, variant: Callable[[str], None]) -> McpSource:
    args = [
        str(EXECUTION_SERVER),
        "--call-log",
        str(call_log),
        "--variant-file",
        str(tmp_path / "variant.txt"),
    ]
    return McpSource.stdio(sys.executable, args, name="bank", timeout=20)


async def test_a_tool_changed_on_its_server_since_the_snapshot_is_refused_at_call_time(
    tmp_path: Path, bank: McpSource, call_log: Path, variant: Callable[[str], None]
) -> None:
    built = await SchemaRouter.from_sources(bank)
    save_snapshot(built, tmp_path / "bank.snapshot")

    worker = load_snapshot(
        tmp_path / "bank.snapshot", sources=[bank], execution=ExecutionPolicy(classification=RULES)
    )
    retrieval = worker.retrieve_executable(REQUEST, k=3)
    plan = worker.plan_executable(REQUEST)
    assert plan.route == "bank:transfer_funds"
    variant("v2")  # the server now lists another contract for the tool
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(worker, retrieval, plan)
    assert info.value.reason == RefusalReason.FINGERPRINT_MISMATCH
    assert read_call_log(call_log) == []
    variant("v1")  # the contract the snapshot holds: the same plan runs
    result = await execute_selective_plan(worker, retrieval, plan)
    assert result.text == "moved 25.0 from acc-1"
    assert [c["tool"] for c in read_call_log(call_log)] == ["transfer_funds"]


async def test_a_snapshot_older_than_contract_max_age_is_checked_against_the_live_listing(
    tmp_path: Path, bank: McpSource, call_log: Path, variant: Callable[[str], None]
) -> None:
    now = [1_000_000.0]

    def policy() -> ExecutionPolicy:
        return ExecutionPolicy(classification=RULES, contract_max_age=3600, clock=lambda: now[0])

    built = await SchemaRouter.from_sources(bank, execution=policy())
    save_snapshot(built, tmp_path / "bank.snapshot")
    variant("v1-reworded")  # only the description changes on the server
    now[0] += 2 * 3600  # the workers start two hours after the snapshot was built
    worker = load_snapshot(tmp_path / "bank.snapshot", sources=[bank], execution=policy())
    assert worker.catalog_age == pytest.approx(7200.0)
    with pytest.raises(PolicyViolationError) as info:
        await worker.ainvoke(REQUEST)
    assert info.value.reason == RefusalReason.FINGERPRINT_MISMATCH
    assert read_call_log(call_log) == []
