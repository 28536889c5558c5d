"""Routing spans in the SDK's own traces: collected with a tracing processor of the SDK's
tracing API (nothing is exported), from real `Runner.run` turns on the offline `ScriptedModel`."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunConfig, Runner, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message
from agents.tracing import Span, Trace, TracingProcessor, set_trace_processors
from agents.tracing.processors import default_processor

from schemarouter import SchemaRouter, SessionLimits, Visibility, telemetry
from schemarouter_conformance.drivers.openai_agents import run_config
from schemarouter_openai_agents import OpenAIAgentsRouter, mirror_function_tools

WEATHER = "what is the weather forecast for Paris this week"


@function_tool
def get_weather_forecast(city: str) -> str:
    """Get the weather forecast for a city."""
    return "sunny"


@function_tool
def send_email(to: str, body: str) -> str:
    """Send an email message to a recipient."""
    return "sent"


class Collector(TracingProcessor):
    """Keeps every finished span and trace of the SDK, as the SDK exports them."""

    def __init__(self) -> None:
        self.spans: list[dict[str, Any]] = []
        self.traces: list[dict[str, Any]] = []

    def on_trace_start(self, trace: Trace) -> None:
        pass

    def on_trace_end(self, trace: Trace) -> None:
        self.traces.append(trace.export() or {})

    def on_span_start(self, span: Span[Any]) -> None:
        pass

    def on_span_end(self, span: Span[Any]) -> None:
        self.spans.append(span.export() or {})

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass

    def ancestors(self, span: dict[str, Any]) -> list[tuple[str, str]]:
        """(type, name) of each span above `span`, nearest first."""
        by_id = {s["id"]: s for s in self.spans}
        found: list[tuple[str, str]] = []
        parent = by_id.get(span["parent_id"])
        while parent is not None:
            found.append((parent["span_data"]["type"], parent["span_data"].get("name", "")))
            parent = by_id.get(parent["parent_id"])
        return found

    def custom(self, name: str) -> list[dict[str, Any]]:
        return [
            s for s in self.spans if s["span_data"]["type"] == "custom" and s["span_data"]["name"] == name
        ]


@pytest.fixture
def collector() -> Iterator[Collector]:
    """The SDK's tracing on, into a collector. On explicitly: tracing is a process-wide setting
    that other tests (the README's offline block, the prompt-cache runs) turn off in this
    worker, whatever ran before."""
    collector = Collector()
    set_tracing_disabled(False)
    set_trace_processors([collector])
    try:
        yield collector
    finally:
        set_trace_processors([default_processor()])


def _agent(routing: OpenAIAgentsRouter, tools: list[FunctionTool]) -> Agent[Any]:
    # a copy per router: a gated tool object belongs to one router
    gated = [routing.gate(dataclasses.replace(tool)) for tool in tools]
    return Agent(name="ops", model=ScriptedModel([[assistant_message("sunny")]]), tools=list(gated))


def _routing(**options: Any) -> OpenAIAgentsRouter:
    catalog = mirror_function_tools([get_weather_forecast, send_email])
    return OpenAIAgentsRouter(Visibility(SchemaRouter(catalog), k=1), **options)


async def test_the_routing_decision_is_a_span_of_the_run(collector: Collector) -> None:
    telemetry.configure()
    agent = _agent(_routing(), [get_weather_forecast, send_email])
    traced = RunConfig(tracing_disabled=False, workflow_name="weather")
    await Runner.run(agent, WEATHER, context={"query": WEATHER}, run_config=traced)
    (decision,) = collector.custom("schemarouter.allow_set")
    (trace,) = collector.traces
    assert decision["trace_id"] == trace["id"]
    # under the agent's span (the SDK may put spans of its own, such as a turn, in between)
    assert ("agent", "ops") in collector.ancestors(decision)
    data = decision["span_data"]["data"]
    assert data["schemarouter.tools.offered"] == ["get_weather_forecast"]
    assert data["schemarouter.outcome"] == "route"
    assert "gen_ai.retrieval.query.text" not in data
    assert decision["error"] is None


async def test_a_conversation_step_holds_its_decision_in_the_sdk_trace(collector: Collector) -> None:
    telemetry.configure()
    routing = _routing(sessions=SessionLimits())
    agent = _agent(routing, [get_weather_forecast, send_email])
    traced = RunConfig(tracing_disabled=False)
    context = {"query": WEATHER, "conversation": "c-9"}
    await Runner.run(agent, WEATHER, context=context, run_config=traced)
    steps = collector.custom("schemarouter.session.offer")
    decisions = collector.custom("schemarouter.allow_set")
    assert steps
    assert decisions
    assert {d["parent_id"] for d in decisions} <= {s["id"] for s in steps}


async def test_no_sdk_span_when_the_run_is_not_traced(collector: Collector) -> None:
    telemetry.configure()
    agent = _agent(_routing(), [get_weather_forecast, send_email])
    await Runner.run(agent, WEATHER, context={"query": WEATHER}, run_config=run_config())
    assert collector.spans == []


def test_outside_an_sdk_trace_the_hook_costs_no_decisions(collector: Collector) -> None:
    telemetry.configure()
    routing = _routing()
    allow = routing.visibility.allow_set(WEATHER)
    assert getattr(allow, "_explain") is not None, "decisions were worked out for nothing"  # noqa: B009
    assert collector.spans == []
