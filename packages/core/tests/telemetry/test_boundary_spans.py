"""Spans of source loads and of the execution boundary's checks, read back from the
OpenTelemetry SDK's in-memory exporters."""

from __future__ import annotations

import sys

import pytest
from opentelemetry.trace import StatusCode

from schemarouter import (
    CatalogLimits,
    ExecutionPolicy,
    McpSource,
    PlanRequest,
    PolicyViolationError,
    RunConfig,
    SchemaRouter,
    ServerConnectionError,
    ainvoke_selective,
    execute_selective_plan,
    telemetry,
)

from .conftest import Recorded, Tools

WEATHER = PlanRequest("what is the weather forecast for Paris", {"city": "Paris", "days": 2})


def test_a_callables_load_records_its_tools(recorded: Recorded, tools: Tools) -> None:
    assert len(tools.router.catalog) == 3
    # the router in `tools` loaded its source once, after `recorded` set up the SDK
    attributes = dict(recorded.one("schemarouter.catalog.load").attributes or {})
    assert attributes["schemarouter.source"] == "python"
    assert attributes["schemarouter.source.kind"] == "callables"
    assert attributes["schemarouter.catalog.tools"] == 3
    assert attributes["schemarouter.catalog.skipped"] == 0
    assert "mcp.method.name" not in attributes


@pytest.mark.slow
async def test_an_mcp_load_records_skipped_tools_and_why(recorded: Recorded, odd_server: list[str]) -> None:
    source = McpSource.stdio(sys.executable, odd_server, name="odd", timeout=10)
    catalog = await source.load(CatalogLimits(max_schema_bytes=16_000))
    span = recorded.one("schemarouter.catalog.load")
    attributes = dict(span.attributes or {})
    assert attributes["mcp.method.name"] == "tools/list"
    assert attributes["schemarouter.source"] == "odd"
    assert attributes["schemarouter.catalog.tools"] == len(catalog) == 3
    assert attributes["schemarouter.catalog.version"] == catalog.version
    assert sorted(attributes["schemarouter.catalog.skipped.tools"]) == sorted(  # pyright: ignore[reportArgumentType]
        f"{s.name}: {s.reason}" for s in catalog.skipped
    )
    skipped = {
        p.attributes["schemarouter.reason"]: p.value for p in recorded.points("schemarouter.catalog.skipped")
    }
    assert skipped == {"invalid_schema": 1, "duplicate_name": 1, "empty_name": 1, "schema_too_large": 1}


async def test_a_failed_load_keeps_its_source_and_error(recorded: Recorded, unused_port: int) -> None:
    source = McpSource.http(f"http://127.0.0.1:{unused_port}/mcp", name="gone", timeout=5)
    with pytest.raises(ServerConnectionError):
        await source.load()
    span = recorded.one("schemarouter.catalog.load")
    attributes = dict(span.attributes or {})
    assert attributes["schemarouter.source"] == "gone"
    assert attributes["error.type"] == "ServerConnectionError"
    assert span.status.status_code is StatusCode.ERROR


async def test_a_refused_selective_execution_records_the_reason(recorded: Recorded, tools: Tools) -> None:
    router = tools.router
    retrieval = router.retrieve_executable(WEATHER, 1)
    plan = router.plan_executable(WEATHER, route="python:send_email")
    with pytest.raises(PolicyViolationError) as info:
        await execute_selective_plan(router, retrieval, plan)
    assert tools.calls == []
    span = recorded.one("schemarouter.execute")
    attributes = dict(span.attributes or {})
    assert attributes["schemarouter.outcome"] == "refused"
    assert attributes["schemarouter.refusal.reason"] == info.value.reason == "off_shortlist"
    assert attributes["schemarouter.execution.mode"] == "selective"
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["gen_ai.tool.name"] == "send_email"
    assert attributes["schemarouter.fingerprint"] == plan.fingerprint[:12]
    assert "schemarouter.fingerprint.matched" not in attributes
    assert "gen_ai.tool.call.arguments" not in attributes
    assert span.status.status_code is StatusCode.ERROR
    refusals = {
        p.attributes["schemarouter.refusal.reason"]: p.value
        for p in recorded.points("schemarouter.execution.refusals")
    }
    assert refusals == {"off_shortlist": 1}


async def test_a_planned_refusal_is_recorded_as_planned(recorded: Recorded) -> None:
    sent: list[str] = []

    def delete_account(account_id: str) -> str:
        """Delete a customer account for good."""
        sent.append(account_id)
        return "deleted"

    policy = ExecutionPolicy(classification={"python:delete_account": "destructive"})
    router = SchemaRouter.from_callables([delete_account], execution=policy)
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(PlanRequest("delete the customer account", {"account_id": "a-1"}))
    assert sent == []
    attributes = dict(recorded.one("schemarouter.execute").attributes or {})
    assert attributes["schemarouter.execution.mode"] == "planned"
    assert attributes["schemarouter.refusal.reason"] == info.value.reason == "policy_denied"
    assert attributes["schemarouter.refusal.route"] == "python:delete_account"


async def test_a_plan_that_runs_records_the_checked_fingerprint(recorded: Recorded, tools: Tools) -> None:
    result = await ainvoke_selective(tools.router, WEATHER, k=2, config=RunConfig(principal="carol"))
    assert tools.calls == ["get_weather_forecast"]
    attributes = dict(recorded.one("schemarouter.execute").attributes or {})
    assert attributes["schemarouter.outcome"] == "ran"
    assert attributes["schemarouter.fingerprint.matched"] is True
    assert attributes["schemarouter.route.ran"] == result.route == "python:get_weather_forecast"
    assert "gen_ai.tool.call.arguments" not in attributes
    assert "gen_ai.tool.call.result" not in attributes
    checks = {
        p.attributes["schemarouter.outcome"]: p.value
        for p in recorded.points("schemarouter.execution.checks")
    }
    assert checks == {"ran": 1}


async def test_arguments_and_results_are_recorded_when_asked_for(recorded: Recorded, tools: Tools) -> None:
    chosen = telemetry.settings()
    telemetry.configure(
        record_content=True, tracer_provider=chosen.tracer_provider, meter_provider=chosen.meter_provider
    )
    await ainvoke_selective(tools.router, WEATHER, k=2)
    attributes = dict(recorded.one("schemarouter.execute").attributes or {})
    assert attributes["gen_ai.tool.call.arguments"] == '{"city": "Paris", "days": 2}'
    assert attributes["gen_ai.tool.call.result"] == '"sunny in Paris"'
