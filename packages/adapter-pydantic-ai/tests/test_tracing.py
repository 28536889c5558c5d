"""Routing spans nest under PydanticAI's own run spans through the active OpenTelemetry context
(PydanticAI's instrumentation, with the SDK's in-memory exporter)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic_ai import Agent
from pydantic_ai.capabilities.instrumentation import Instrumentation
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

from schemarouter import Visibility, telemetry
from schemarouter_pydantic_ai import PydanticAIRouter, RoutingRequest

from .conftest import local_tools

SUPPORTED = "search the CRM for customers named Ada"


@pytest.fixture
def traced() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    telemetry.configure(tracer_provider=provider)
    try:
        yield provider, exporter
    finally:
        telemetry.configure()
        provider.shutdown()


def _ancestors(span: ReadableSpan, spans: list[ReadableSpan]) -> list[str]:
    by_id = {s.context.span_id: s for s in spans if s.context is not None}
    names: list[str] = []
    parent = by_id.get(span.parent.span_id) if span.parent is not None else None
    while parent is not None:
        names.append(parent.name)
        parent = by_id.get(parent.parent.span_id) if parent.parent is not None else None
    return names


async def test_the_routing_decision_nests_under_the_agent_run(
    visibility: Visibility, traced: tuple[TracerProvider, InMemorySpanExporter]
) -> None:
    provider, exporter = traced

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("done")])

    router = PydanticAIRouter(visibility)
    agent = Agent(
        FunctionModel(respond),
        name="crm",
        toolsets=[router.toolset(local_tools())],
        capabilities=[Instrumentation(settings=InstrumentationSettings(tracer_provider=provider))],
    )
    await agent.run("hello", deps=RoutingRequest(SUPPORTED))
    spans = list(exporter.get_finished_spans())
    (decision,) = [s for s in spans if s.name == "schemarouter.allow_set"]
    ancestors = _ancestors(decision, spans)
    run = [s for s in spans if s.parent is None]
    assert len(run) == 1, [s.name for s in spans]
    assert ancestors, "the decision has no parent span"
    assert ancestors[-1] == run[0].name
    assert "crm" in run[0].name
    assert dict(decision.attributes or {})["schemarouter.outcome"] == "route"
