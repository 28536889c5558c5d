"""The tracing section of latency.py: what telemetry adds to `Visibility.allow_set`.

Four ways of routing the same requests over the same router, interleaved pass by pass (each
pass in a rotated order) so that drift on a shared machine spreads over all of them:

- before: the allow-set worked out as it was before spans existed (the same code, without the
  span around it);
- no SDK: `allow_set` as shipped, with no OpenTelemetry provider configured (the API's no-op);
- SDK traces: an SDK `TracerProvider` whose exporter drops every span (the cost of recording:
  attributes, decisions, the span's own bookkeeping);
- SDK traces + metrics: the same plus an SDK `MeterProvider` with an in-memory reader.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from schemarouter import Visibility, telemetry

VARIANTS = ("before", "no SDK", "SDK traces", "SDK traces + metrics")


class _Dropped(SpanExporter):
    """An exporter that drops what it is given."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


def _setups(visibility: Visibility) -> dict[str, tuple[Callable[[], None], Callable[[str], object]]]:
    traces = TracerProvider()
    traces.add_span_processor(SimpleSpanProcessor(_Dropped()))
    meters = MeterProvider(metric_readers=[InMemoryMetricReader()])
    k, policy = visibility.k, visibility.abstention

    def before(query: str) -> object:
        return visibility._ruled(query, None, k, policy)  # pyright: ignore[reportPrivateUsage]

    return {
        "before": (telemetry.configure, before),
        "no SDK": (telemetry.configure, visibility.allow_set),
        "SDK traces": (lambda: telemetry.configure(tracer_provider=traces), visibility.allow_set),
        "SDK traces + metrics": (
            lambda: telemetry.configure(tracer_provider=traces, meter_provider=meters),
            visibility.allow_set,
        ),
    }


def tracing_cost(visibility: Visibility, queries: Sequence[str], passes: int) -> dict[str, Any]:
    """Each variant's p50 over the requests of each request's median wall and CPU time (µs)."""
    setups = _setups(visibility)
    wall: dict[str, list[list[float]]] = {name: [[] for _ in queries] for name in VARIANTS}
    cpu: dict[str, list[list[float]]] = {name: [[] for _ in queries] for name in VARIANTS}
    for name in VARIANTS:  # warm every path once
        setup, call = setups[name]
        setup()
        for query in queries:
            call(query)
    clock, cpu_clock = time.perf_counter, time.process_time
    for turn in range(passes):
        order = VARIANTS[turn % len(VARIANTS) :] + VARIANTS[: turn % len(VARIANTS)]
        for name in order:
            setup, call = setups[name]
            setup()
            for query, samples, cpu_samples in zip(queries, wall[name], cpu[name], strict=True):
                start, start_cpu = clock(), cpu_clock()
                call(query)
                samples.append(clock() - start)
                cpu_samples.append(cpu_clock() - start_cpu)
    telemetry.configure()

    def p50(runs: list[list[float]]) -> float:
        return statistics.median(statistics.median(samples) for samples in runs) * 1e6

    def mean(runs: list[list[float]]) -> float:
        return statistics.fmean(statistics.median(samples) for samples in runs) * 1e6

    return {
        name: {"p50_us": p50(wall[name]), "mean_us": mean(wall[name]), "cpu_p50_us": p50(cpu[name])}
        for name in VARIANTS
    }


def print_tracing(tools: int, result: dict[str, Any], passes: int) -> None:
    print(f"tracing cost of allow_set (k=5, lexical, {tools} tools; {passes} interleaved passes)")
    base = result["before"]
    header = f"{'':<22} {'p50 µs':>8} {'mean µs':>8} {'CPU p50 µs':>10} {'added p50 µs':>12} {'added':>7}"
    print(header)
    print("-" * len(header))
    for name in VARIANTS:
        row = result[name]
        added = row["p50_us"] - base["p50_us"]
        print(
            f"{name:<22} {row['p50_us']:>8.1f} {row['mean_us']:>8.1f} {row['cpu_p50_us']:>10.1f} "
            f"{added:>12.1f} {added / base['p50_us']:>6.1%}"
        )
