"""`--trace`: print every span SchemaRouter opens, with the OpenTelemetry SDK's console exporter.

The SDK is not a dependency of SchemaRouter (`pip install opentelemetry-sdk`); without it,
`--trace` is refused with that hint. Spans go to stderr, so `--json` output stays parseable.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from ..errors import UserError
from ..telemetry import configure

__all__ = ["console_trace"]


def console_trace(out: TextIO | None = None, service: str = "schemarouter") -> Callable[[], None]:
    """Print SchemaRouter's spans to `out` (default stderr) as each one ends; returns the
    function that stops it (flushing what is left)."""
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
    except ImportError as exc:
        raise UserError("--trace needs the OpenTelemetry SDK: pip install opentelemetry-sdk") from exc
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=out or sys.stderr)))
    configure(tracer_provider=provider)

    def stop() -> None:
        configure()
        provider.shutdown()

    return stop
