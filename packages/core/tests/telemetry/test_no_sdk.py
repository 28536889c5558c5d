"""With no OpenTelemetry SDK configured, telemetry does nothing and reads nothing it need not."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Mapping

import pytest
from opentelemetry.sdk.trace import TracerProvider

from schemarouter import Visibility, telemetry
from schemarouter.telemetry import AttributeValue, _span
from schemarouter.telemetry._span import traced

from .conftest import Tools

WEATHER = "what is the weather forecast for Paris this week"


def _explained(allow: object) -> bool:
    """Were the allow-set's decisions worked out (they are, lazily, when first read)?"""
    return getattr(allow, "_explain") is None  # noqa: B009


@pytest.fixture
def no_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    """No span hook registered (an adapter imported in the same process may have added one)."""
    monkeypatch.setattr(_span, "_hooks", ())


@pytest.mark.usefixtures("no_hooks")
def test_without_a_provider_spans_are_one_shared_no_op(tools: Tools) -> None:
    telemetry.configure()
    assert traced("a") is traced("b")
    assert not traced("a").recording
    allow = Visibility(tools.router).allow_set(WEATHER)
    assert not _explained(allow), "an unrecorded decision must not work out its decisions"


def test_with_a_provider_decisions_are_read_for_the_span(tools: Tools) -> None:
    provider = TracerProvider()
    telemetry.configure(tracer_provider=provider)
    try:
        assert traced("a") is not traced("a")
        allow = Visibility(tools.router).allow_set(WEATHER)
        assert _explained(allow)
    finally:
        telemetry.configure()
        provider.shutdown()


class Hook:
    """A span hook that keeps what it was told."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, AttributeValue], str | None]] = []

    def start(self, name: str) -> object | None:
        return name

    def end(
        self, handle: object, attributes: Mapping[str, AttributeValue], error: BaseException | None
    ) -> None:
        self.seen.append((str(handle), dict(attributes), type(error).__name__ if error else None))


@pytest.mark.usefixtures("no_hooks")
def test_a_span_hook_sees_every_span_without_an_sdk(tools: Tools) -> None:
    telemetry.configure()
    hook = Hook()
    telemetry.add_span_hook(hook)
    telemetry.add_span_hook(hook)
    try:
        allow = Visibility(tools.router).allow_set(WEATHER, principal="dana")
    finally:
        telemetry.remove_span_hook(hook)
    assert [(name, error) for name, _, error in hook.seen] == [("schemarouter.allow_set", None)]
    attributes = hook.seen[0][1]
    assert attributes["schemarouter.tools.offered"] == list(allow.names)
    assert "gen_ai.retrieval.query.text" not in attributes
    Visibility(tools.router).allow_set(WEATHER)
    assert len(hook.seen) == 1, "a removed hook is not called"


class Uninterested(Hook):
    def start(self, name: str) -> object | None:
        return None


@pytest.mark.usefixtures("no_hooks")
def test_a_hook_that_takes_no_span_costs_no_decisions(tools: Tools) -> None:
    telemetry.configure()
    hook = Uninterested()
    telemetry.add_span_hook(hook)
    try:
        allow = Visibility(tools.router).allow_set(WEATHER)
    finally:
        telemetry.remove_span_hook(hook)
    assert not _explained(allow)
    assert hook.seen == []


GLOBAL_LATER = """
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from schemarouter import SchemaRouter, Visibility

def get_weather_forecast(city: str) -> str:
    '''Get the weather forecast for a city.'''
    return city

visibility = Visibility(SchemaRouter.from_callables([get_weather_forecast]))
visibility.allow_set("weather forecast")
exporter, reader = InMemorySpanExporter(), InMemoryMetricReader()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
visibility.allow_set("weather forecast")
names = [s.name for s in exporter.get_finished_spans()]
counted = [
    m.name
    for r in reader.get_metrics_data().resource_metrics
    for s in r.scope_metrics
    for m in s.metrics
]
print(names, "schemarouter.routing.decisions" in counted)
"""


def test_global_providers_set_after_routing_started_are_used() -> None:
    done = subprocess.run([sys.executable, "-c", GLOBAL_LATER], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['schemarouter.allow_set'] True"


class Broken(Hook):
    def end(
        self, handle: object, attributes: Mapping[str, AttributeValue], error: BaseException | None
    ) -> None:
        raise RuntimeError("viewer unreachable")


@pytest.mark.usefixtures("no_hooks")
def test_a_failing_hook_never_breaks_routing(tools: Tools, caplog: pytest.LogCaptureFixture) -> None:
    telemetry.configure()
    hook = Broken()
    telemetry.add_span_hook(hook)
    try:
        with caplog.at_level(logging.WARNING, logger="schemarouter.telemetry"):
            allow = Visibility(tools.router).allow_set(WEATHER)
    finally:
        telemetry.remove_span_hook(hook)
    assert allow.names == ("get_weather_forecast",)
    assert "viewer unreachable" in caplog.text
