"""Executing over real MCP servers (stdio and streamable HTTP on 127.0.0.1): results, typed
failures, contracts that change under a plan, and annotations that lie.

Transport-specific behaviour (calling, re-listing, a server dying) runs over both
transports; checks made before any I/O run over HTTP only, which starts faster. Every
refusal over both transports is in test_execution_refusals.py."""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from schemarouter import (
    ExecutionPolicy,
    McpSource,
    PlanRequest,
    PolicyViolationError,
    RefusalReason,
    RunConfig,
    SchemaRouter,
    ToolExecutionError,
    ToolTransportError,
    ainvoke_selective,
    execute_selective_plan,
)
from schemarouter_conformance import http_mcp_server, read_call_log, stdio_command

pytestmark = pytest.mark.slow

EXECUTION_SERVER = Path(__file__).parent / "servers" / "execution_server.py"
TRANSPORTS = ["stdio", "http"]


@asynccontextmanager
async def serve(
    transport: str, argv: list[str], name: str, policy: ExecutionPolicy
) -> AsyncIterator[SchemaRouter]:
    """A router over the server started by `argv` (stdio), or over it on HTTP."""
    if transport == "stdio":
        yield await SchemaRouter.from_stdio(argv[0], argv[1:], name=name, timeout=20, execution=policy)
        return
    with http_mcp_server(lambda port: [*argv, "--transport", "http", "--port", str(port)]) as url:
        yield await SchemaRouter.from_url(url, kind="mcp", name=name, timeout=20, execution=policy)


def fixture_argv(call_log: Path) -> list[str]:
    command, args = stdio_command(call_log)
    return [command, *args]


def execution_argv(call_log: Path, variant_file: Path) -> list[str]:
    return [
        sys.executable,
        str(EXECUTION_SERVER),
        "--call-log",
        str(call_log),
        "--variant-file",
        str(variant_file),
    ]


@pytest.fixture
def variant(tmp_path: Path) -> Callable[[str], None]:
    path = tmp_path / "variant.txt"
    path.write_text("v1", encoding="utf-8")

    def switch(value: str) -> None:
        path.write_text(value, encoding="utf-8")

    return switch


@pytest.fixture
def bank_argv(tmp_path: Path, call_log: Path, variant: Callable[[str], None]) -> list[str]:
    return execution_argv(call_log, tmp_path / "variant.txt")


# -- the happy paths of the issue ---------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ainvoke_calls_the_tool_once_through_the_mcp_session(transport: str, call_log: Path) -> None:
    policy = ExecutionPolicy(allow_unclassified_remote=True)
    async with serve(transport, fixture_argv(call_log), "fixture", policy) as router:
        assert read_call_log(call_log) == []
        result = await router.ainvoke(PlanRequest(query="add result", arguments={"a": 2, "b": 3}))
    assert result.route == "fixture:add"
    assert result.structured == {"result": 5.0}
    assert result.text == "5.0"
    assert result.fallback_from == ()
    assert read_call_log(call_log) == [{"tool": "add", "arguments": {"a": 2.0, "b": 3.0}}]


async def test_selective_execution_runs_a_shortlisted_plan(call_log: Path) -> None:
    policy = ExecutionPolicy(
        classification={"fixture:get_weather_forecast": "read_only", "fixture:add": "read_only"}
    )
    alice = RunConfig(principal="alice")
    async with serve("http", fixture_argv(call_log), "fixture", policy) as router:
        request = PlanRequest(
            "what is the weather forecast for Paris this week", {"city": "Paris", "days": 2}
        )
        retrieval = router.retrieve_executable(request, k=3, config=alice)
        plan = router.plan_executable(request, config=alice)
        assert plan.route in retrieval.routes
        forecast = await execute_selective_plan(router, retrieval, plan, config=alice)
        total = await ainvoke_selective(
            router, PlanRequest("add 2 and 3", {"a": 2, "b": 3}), k=3, config=alice
        )
    assert forecast.structured == {"city": "Paris", "days": 2, "forecast": ["sunny", "sunny"]}
    assert total.structured == {"result": 5.0}
    assert [c["tool"] for c in read_call_log(call_log)] == ["get_weather_forecast", "add"]


# -- contracts that change under a plan -----------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_schema_change_between_planning_and_execution_is_refused(
    transport: str, bank_argv: list[str], call_log: Path, variant: Callable[[str], None]
) -> None:
    policy = ExecutionPolicy(classification={"transfer_funds": "mutating"})
    request = PlanRequest("transfer funds", {"account": "acc-1", "amount": 25})
    async with serve(transport, bank_argv, "bank", policy) as router:
        retrieval = router.retrieve_executable(request, k=3)
        plan = router.plan_executable(request)
        assert plan.route == "bank:transfer_funds"
        variant("v2")  # the server now requires a `currency` argument
        with pytest.raises(PolicyViolationError) as info:
            await execute_selective_plan(router, retrieval, plan)
        assert info.value.reason == RefusalReason.FINGERPRINT_MISMATCH
        assert info.value.route == "bank:transfer_funds"
        assert read_call_log(call_log) == []
        variant("v1")  # the contract the plan was made for is back: the same plan runs
        result = await execute_selective_plan(router, retrieval, plan)
    assert result.text == "moved 25.0 from acc-1"
    assert [c["tool"] for c in read_call_log(call_log)] == ["transfer_funds"]


async def test_contract_max_age_decides_when_the_live_contract_is_rechecked(
    bank_argv: list[str], call_log: Path, variant: Callable[[str], None]
) -> None:
    rules: dict[str, Any] = {"classification": {"transfer_funds": "mutating"}}
    request = PlanRequest("transfer funds", {"account": "acc-1", "amount": 5})
    async with serve("http", bank_argv, "bank", ExecutionPolicy(**rules)) as strict:
        trusting = SchemaRouter(
            strict.catalog,
            sources=strict.sources.values(),
            execution=ExecutionPolicy(contract_max_age=3600, **rules),
        )
        strict_plan = strict.plan_executable(request)
        trusting_plan = trusting.plan_executable(request)
        variant("v1-reworded")  # only the description changes; the call itself stays valid
        with pytest.raises(PolicyViolationError) as info:
            await strict.ainvoke(request)
        assert info.value.reason == RefusalReason.FINGERPRINT_MISMATCH
        assert read_call_log(call_log) == []
        # A catalog younger than contract_max_age is trusted without listing again: the
        # changed description goes unnoticed (documented), and the call runs.
        result = await execute_selective_plan(
            trusting, trusting.retrieve_executable(request, 3), trusting_plan
        )
        assert result.route == "bank:transfer_funds"
        assert strict_plan.fingerprint == trusting_plan.fingerprint
    assert [c["tool"] for c in read_call_log(call_log)] == ["transfer_funds"]


# -- annotations never grant execution ------------------------------------------------------------


async def test_a_read_only_claim_does_not_unlock_a_locally_destructive_tool(
    bank_argv: list[str], call_log: Path
) -> None:
    request = PlanRequest("purge records", {"table": "orders"})
    rules: dict[str, Any] = {"classification": {"purge_*": "destructive"}}
    async with serve("http", bank_argv, "bank", ExecutionPolicy(**rules)) as router:
        capability = router.catalog["bank:purge_records"]
        assert capability.hint("readOnlyHint") is True  # what the server claims
        with pytest.raises(PolicyViolationError) as info:
            await ainvoke_selective(router, request, k=3)
        assert info.value.reason == RefusalReason.POLICY_DENIED
        assert "destructive" in str(info.value)
        assert read_call_log(call_log) == []
        allowed = SchemaRouter(
            router.catalog,
            sources=router.sources.values(),
            execution=ExecutionPolicy(allow_destructive=["bank:purge_records"], **rules),
        )
        result = await ainvoke_selective(allowed, request, k=3)
    assert result.text == "purged orders"
    assert read_call_log(call_log) == [{"tool": "purge_records", "arguments": {"table": "orders"}}]


async def test_a_destructive_claim_requires_explicit_allowance(bank_argv: list[str], call_log: Path) -> None:
    request = PlanRequest("lookup order", {"order_id": "o-1"})
    rules: dict[str, Any] = {"classification": {"lookup_order": "read_only"}}
    async with serve("http", bank_argv, "bank", ExecutionPolicy(**rules)) as router:
        with pytest.raises(PolicyViolationError) as info:
            await router.ainvoke(request)
        assert info.value.reason == RefusalReason.POLICY_DENIED
        assert read_call_log(call_log) == []
        allowed = SchemaRouter(
            router.catalog,
            sources=router.sources.values(),
            execution=ExecutionPolicy(allow_destructive=["lookup_order"], **rules),
        )
        result = await allowed.ainvoke(request)
    assert result.structured == {"order_id": "o-1", "status": "shipped"}
    assert [c["tool"] for c in read_call_log(call_log)] == ["lookup_order"]


# -- typed failures -------------------------------------------------------------------------------


async def test_a_tool_error_is_a_tool_execution_error(bank_argv: list[str], call_log: Path) -> None:
    policy = ExecutionPolicy(classification={"always_fails": "read_only"})
    async with serve("http", bank_argv, "bank", policy) as router:
        with pytest.raises(ToolExecutionError) as info:
            await router.ainvoke(PlanRequest("always fails", {"reason": "test"}))
    assert info.value.route == "bank:always_fails"
    assert "reported an error" in str(info.value)
    assert [c["tool"] for c in read_call_log(call_log)] == ["always_fails"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_server_dying_mid_call_is_a_transport_error(
    transport: str, bank_argv: list[str], call_log: Path
) -> None:
    policy = ExecutionPolicy(classification={"crash_server": "read_only"})
    async with serve(transport, bank_argv, "bank", policy) as router:
        with pytest.raises(ToolTransportError) as info:
            await router.ainvoke(PlanRequest("crash server", {}))
    assert info.value.route == "bank:crash_server"
    assert [c["tool"] for c in read_call_log(call_log)] == ["crash_server"]


async def test_a_server_gone_before_the_call_is_a_transport_error(call_log: Path) -> None:
    policy = ExecutionPolicy(allow_unclassified_remote=True)
    async with serve("http", fixture_argv(call_log), "fixture", policy) as router:
        pass  # the server stops here; the router keeps its catalog
    source = router.sources["fixture"]
    assert isinstance(source, McpSource)
    started = time.monotonic()
    with pytest.raises(ToolTransportError) as info:
        await router.ainvoke(PlanRequest("add 2 and 3", {"a": 2, "b": 3}))
    assert time.monotonic() - started < source.timeout + 5
    assert info.value.route == "fixture:add"
    assert read_call_log(call_log) == []
