"""SchemaRouter's metrics: outcomes, routing latency, bytes offered, find-tools calls, refusals.

Instruments come from the configured meter provider (`configure(meter_provider=...)`) or the
global one, made once per provider.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from opentelemetry import metrics
from opentelemetry.metrics import Counter, Histogram, MeterProvider

from ._settings import settings

__all__ = ["METRICS", "Instruments", "instruments"]

METRICS = {
    "schemarouter.routing.decisions": "routing decisions, by operation, outcome and reason",
    "schemarouter.routing.duration": "seconds one routing decision took, by operation and outcome",
    "schemarouter.routing.offered_bytes": "bytes of tool definitions one decision offered",
    "schemarouter.find_tools.calls": "find-tools calls, by result (found, nothing, refused)",
    "schemarouter.find_tools.added": "tools find-tools calls added to conversations",
    "schemarouter.catalog.tools": "tools loaded per source load, by source",
    "schemarouter.catalog.skipped": "tools a source listed that were skipped, by source and reason",
    "schemarouter.execution.checks": "execution checks, by mode and outcome (ran, refused, failed)",
    "schemarouter.execution.refusals": "plans the execution boundary refused, by reason",
}
"""Every metric SchemaRouter records, with what it counts (docs/observability.md)."""


@dataclass(frozen=True, slots=True)
class Instruments:
    decisions: Counter
    duration: Histogram
    offered_bytes: Histogram
    find_calls: Counter
    find_added: Counter
    catalog_tools: Counter
    catalog_skipped: Counter
    execution_checks: Counter
    refusals: Counter


def _made(provider: MeterProvider) -> Instruments:
    meter = provider.get_meter("schemarouter")

    def counter(name: str, unit: str) -> Counter:
        return meter.create_counter(name, unit=unit, description=METRICS[name])

    return Instruments(
        decisions=counter("schemarouter.routing.decisions", "{decision}"),
        duration=meter.create_histogram(
            "schemarouter.routing.duration", unit="s", description=METRICS["schemarouter.routing.duration"]
        ),
        offered_bytes=meter.create_histogram(
            "schemarouter.routing.offered_bytes",
            unit="By",
            description=METRICS["schemarouter.routing.offered_bytes"],
        ),
        find_calls=counter("schemarouter.find_tools.calls", "{call}"),
        find_added=counter("schemarouter.find_tools.added", "{tool}"),
        catalog_tools=counter("schemarouter.catalog.tools", "{tool}"),
        catalog_skipped=counter("schemarouter.catalog.skipped", "{tool}"),
        execution_checks=counter("schemarouter.execution.checks", "{check}"),
        refusals=counter("schemarouter.execution.refusals", "{refusal}"),
    )


_made_for: dict[int, tuple[MeterProvider, Instruments]] = {}
_lock = threading.Lock()


def instruments() -> Instruments:
    """The instruments of the meter provider in force."""
    provider = settings().meter_provider or metrics.get_meter_provider()
    known = _made_for.get(id(provider))
    if known is not None and known[0] is provider:
        return known[1]
    with _lock:
        known = _made_for.get(id(provider))
        if known is not None and known[0] is provider:
            return known[1]
        made = _made(provider)
        _made_for[id(provider)] = (provider, made)
        return made
