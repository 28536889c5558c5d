"""An OpenTelemetry SDK with in-memory exporters, configured for SchemaRouter for one test."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from schemarouter import ExecutionPolicy, SchemaRouter, telemetry


@dataclass
class Recorded:
    """What the SDK recorded: finished spans, and the metrics read so far."""

    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader
    provider: TracerProvider

    def spans(self, name: str | None = None) -> list[ReadableSpan]:
        spans = list(self.exporter.get_finished_spans())
        return [s for s in spans if name is None or s.name == name]

    def one(self, name: str) -> ReadableSpan:
        found = self.spans(name)
        assert len(found) == 1, [s.name for s in self.spans()]
        return found[0]

    def points(self, metric: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        found: list[Any] = []
        if data is None:
            return found
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for m in scope.metrics:
                    if m.name == metric:
                        found.extend(m.data.data_points)
        return found


@pytest.fixture
def recorded() -> Iterator[Recorded]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    telemetry.configure(tracer_provider=provider, meter_provider=meters)
    try:
        yield Recorded(exporter, reader, provider)
    finally:
        telemetry.configure()
        provider.shutdown()
        meters.shutdown()


@dataclass
class Tools:
    """A router over three Python tools whose bodies record every call."""

    router: SchemaRouter
    calls: list[str]


@pytest.fixture
def tools() -> Tools:
    calls: list[str] = []

    def get_weather_forecast(city: str, days: int = 3) -> str:
        """Get the weather forecast for a city for the next days."""
        calls.append("get_weather_forecast")
        return f"sunny in {city}"

    def send_email(to: str, subject: str, body: str) -> dict[str, Any]:
        """Send an email message to a recipient."""
        calls.append("send_email")
        return {"sent": True}

    def convert_currency(amount: float, from_currency: str, to_currency: str) -> float:
        """Convert an amount of money between currencies at today's exchange rate."""
        calls.append("convert_currency")
        return amount * 2

    policy = ExecutionPolicy(classification={"python:*": "read_only"})
    functions = [get_weather_forecast, send_email, convert_currency]
    return Tools(SchemaRouter.from_callables(functions, execution=policy), calls)
