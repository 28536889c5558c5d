"""What the application chose: record content or not, and which OpenTelemetry providers to use."""

from __future__ import annotations

import os
from dataclasses import dataclass

from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import TracerProvider

from ..errors import UserError

__all__ = ["CONTENT_ENV", "Settings", "configure", "record_content", "settings"]

CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The OpenTelemetry GenAI instrumentations' switch for recording message content; SchemaRouter
reads it too (`true`, `span_only` or `span_and_event` turn recording on)."""

_CONTENT_ON = frozenset({"true", "1", "span_only", "span_and_event"})


@dataclass(frozen=True, slots=True)
class Settings:
    """The telemetry settings in force (see `configure`)."""

    record_content: bool | None = None
    tracer_provider: TracerProvider | None = None
    meter_provider: MeterProvider | None = None


_settings = Settings()


def settings() -> Settings:
    """The settings in force."""
    return _settings


def configure(
    *,
    record_content: bool | None = None,
    tracer_provider: TracerProvider | None = None,
    meter_provider: MeterProvider | None = None,
) -> None:
    """Set how SchemaRouter reports to OpenTelemetry; each call replaces every setting.

    `record_content=True` adds request text, find-tools queries, tool arguments and results to
    spans; False keeps them out whatever the environment says; None (the default) follows
    `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, off unless set. `tracer_provider` and
    `meter_provider` default to OpenTelemetry's global ones (`trace.set_tracer_provider`,
    `metrics.set_meter_provider`); with neither configured, SchemaRouter records nothing.
    `configure()` with no arguments goes back to the defaults."""
    global _settings
    if record_content is not None and not isinstance(record_content, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise UserError(f"record_content must be a bool or None, got {record_content!r}")
    if tracer_provider is not None and not isinstance(tracer_provider, TracerProvider):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise UserError(f"tracer_provider must be an OpenTelemetry TracerProvider, got {tracer_provider!r}")
    if meter_provider is not None and not isinstance(meter_provider, MeterProvider):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise UserError(f"meter_provider must be an OpenTelemetry MeterProvider, got {meter_provider!r}")
    _settings = Settings(record_content, tracer_provider, meter_provider)


def record_content() -> bool:
    """Whether request text, tool arguments and results go into spans now."""
    chosen = _settings.record_content
    if chosen is not None:
        return chosen
    return os.environ.get(CONTENT_ENV, "").strip().lower() in _CONTENT_ON
