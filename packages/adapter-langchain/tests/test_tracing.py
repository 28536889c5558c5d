"""Routing spans nest under the span that wraps a LangChain agent run (the current OpenTelemetry
context), on the sync and async paths, with the SDK's in-memory exporter."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import BaseTool
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from schemarouter import Visibility, telemetry
from schemarouter_langchain import LangChainRouter
from schemarouter_langchain.testing import ScriptedChatModel

WEATHER = "what is the weather forecast for Paris this week"


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


def _answer(messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
    return AIMessage("sunny")


@pytest.mark.parametrize("path", ["sync", "async"])
async def test_the_routing_decision_nests_under_the_run_span(
    local_tools: list[BaseTool],
    local_visibility: Visibility,
    traced: tuple[TracerProvider, InMemorySpanExporter],
    path: str,
) -> None:
    provider, exporter = traced
    agent = create_agent(
        ScriptedChatModel(respond=_answer),
        tools=list(local_tools),
        middleware=[LangChainRouter(local_visibility)],
    )
    request: Any = {"messages": [HumanMessage(WEATHER)]}
    with provider.get_tracer("an application").start_as_current_span("agent run") as run:
        if path == "sync":
            agent.invoke(request, context={"query": WEATHER})
        else:
            await agent.ainvoke(request, context={"query": WEATHER})
    decisions = [s for s in exporter.get_finished_spans() if s.name == "schemarouter.allow_set"]
    assert decisions
    for decision in decisions:
        assert decision.parent is not None
        assert decision.parent.span_id == run.get_span_context().span_id
        assert dict(decision.attributes or {})["schemarouter.outcome"] == "route"
