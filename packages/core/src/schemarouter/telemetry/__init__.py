"""Telemetry: OpenTelemetry spans and metrics for every decision SchemaRouter makes.

One span per routing decision (`schemarouter.allow_set`, `schemarouter.search`), conversation
step (`schemarouter.session.offer`), find-tools call (`schemarouter.find_tools`), source load
(`schemarouter.catalog.load`) and execution check (`schemarouter.execute`), nested under
whatever span is current (a framework's agent run); metrics for outcomes, latency, bytes
offered, find-tools calls and refusals (`METRICS`). Built on the OpenTelemetry API alone: with
no SDK configured it records nothing and costs next to nothing.

`configure(record_content=..., tracer_provider=..., meter_provider=...)` sets what is recorded
and where to (request text, tool arguments and results only when asked for, or when
`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` says so); `add_span_hook` lets a
framework's own tracing see each span too (the OpenAI Agents adapter uses it). See
docs/observability.md.

Floor 0.5: imports only `schemarouter.errors` and `schemarouter._principal`, so every room
above can open spans.
"""

from __future__ import annotations

from ._metrics import METRICS
from ._settings import CONTENT_ENV, Settings, configure, record_content, settings
from ._span import AttributeValue, SpanHook, add_span_hook, remove_span_hook

__all__ = [
    "CONTENT_ENV",
    "METRICS",
    "SPANS",
    "AttributeValue",
    "Settings",
    "SpanHook",
    "add_span_hook",
    "configure",
    "record_content",
    "remove_span_hook",
    "settings",
]

SPANS = (
    "schemarouter.allow_set",
    "schemarouter.search",
    "schemarouter.session.offer",
    "schemarouter.find_tools",
    "schemarouter.catalog.load",
    "schemarouter.execute",
)
"""The names of every span SchemaRouter opens."""
