"""One SchemaRouter span: an OpenTelemetry span when an SDK records, plus any span hooks.

`traced(name)` is opened around each decision. When no tracer or meter provider is configured
and no hook is registered, it gives one shared do-nothing span, so the hot path pays for two
provider look-ups and nothing else; attribute values are worked out only while `recording`.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Protocol, runtime_checkable

from opentelemetry import context, metrics, trace
from opentelemetry.trace import Span, Status, StatusCode, Tracer, TracerProvider

from ..errors import UserError
from ._settings import settings

__all__ = ["AttributeValue", "SpanHook", "Traced", "add_span_hook", "guarded", "remove_span_hook", "traced"]

AttributeValue = str | bool | int | float | Sequence[str] | Sequence[bool] | Sequence[int] | Sequence[float]
"""What an OpenTelemetry attribute may hold."""

_INSTRUMENTATION = "schemarouter"

_log = logging.getLogger("schemarouter.telemetry")


@contextmanager
def guarded(what: str) -> Generator[None]:
    """Telemetry never breaks what it observes: an exception recording `what` (a hook's, a
    provider's, an exporter's) is logged at WARNING on `schemarouter.telemetry` and dropped."""
    try:
        yield
    except Exception as exc:
        _log.warning("recording %s failed (%s: %s); it goes on unrecorded", what, type(exc).__name__, exc)


@runtime_checkable
class SpanHook(Protocol):
    """Something else that wants each SchemaRouter span (a framework's own tracing).

    `start(name)` is called as the span opens, in the caller's context, and returns a handle,
    or None to skip this span; `end(handle, attributes, error)` is called as it closes, with the
    span's final attributes (the same ones the OpenTelemetry span gets, content rules included)
    and the exception that ended it, if any."""

    def start(self, name: str) -> object | None: ...

    def end(
        self, handle: object, attributes: Mapping[str, AttributeValue], error: BaseException | None
    ) -> None: ...


_hooks: tuple[SpanHook, ...] = ()
_hooks_lock = threading.Lock()


def add_span_hook(hook: SpanHook) -> None:
    """Call `hook` for every SchemaRouter span from now on (once, however often it is added)."""
    global _hooks
    if not isinstance(hook, SpanHook):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise UserError(f"a span hook needs start(name) and end(handle, attributes, error), got {hook!r}")
    with _hooks_lock:
        if hook not in _hooks:
            _hooks = (*_hooks, hook)


def remove_span_hook(hook: SpanHook) -> None:
    """Stop calling `hook` (nothing happens if it was not added)."""
    global _hooks
    with _hooks_lock:
        _hooks = tuple(h for h in _hooks if h is not hook)


_QUIET_TRACERS = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)

_UNKNOWN = object()

# `trace.get_tracer_provider()` and `metrics.get_meter_provider()` look up an environment
# variable on every call while no provider is set: a few microseconds, which is a tenth of a
# routing decision. The API keeps the provider set in a module global; read it directly while
# it is None (and no variable names a provider to load), and ask the API otherwise.
_TRACER_FROM_ENV = "OTEL_PYTHON_TRACER_PROVIDER" in os.environ
_METER_FROM_ENV = "OTEL_PYTHON_METER_PROVIDER" in os.environ
_PROVIDERS_FROM_ENV = _TRACER_FROM_ENV or _METER_FROM_ENV
_METERS_MODULE = importlib.import_module("opentelemetry.metrics._internal")


def _global_tracer_provider() -> TracerProvider | None:
    """The global tracer provider, or None when none is set."""
    provider = getattr(trace, "_TRACER_PROVIDER", _UNKNOWN)
    if provider is None and not _TRACER_FROM_ENV:
        return None
    found = trace.get_tracer_provider()
    return None if isinstance(found, _QUIET_TRACERS) else found


def _global_meters_quiet() -> bool:
    """Whether no global meter provider records."""
    provider = getattr(_METERS_MODULE, "_METER_PROVIDER", _UNKNOWN)
    if provider is None and not _METER_FROM_ENV:
        return True
    return _quiet_meters(metrics.get_meter_provider())


def _quiet_meters(provider: metrics.MeterProvider) -> bool:
    # the API's stand-in before any provider is set is private: known by its class name
    return isinstance(provider, metrics.NoOpMeterProvider) or type(provider).__name__ == "_ProxyMeterProvider"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("schemarouter-core")
    except PackageNotFoundError:
        return "unknown"


_tracers: dict[int, tuple[TracerProvider, Tracer]] = {}


def _tracer(provider: TracerProvider) -> Tracer:
    known = _tracers.get(id(provider))
    if known is not None and known[0] is provider:
        return known[1]
    tracer = provider.get_tracer(_INSTRUMENTATION, _version())
    _tracers[id(provider)] = (provider, tracer)
    return tracer


Opening = Callable[[], Mapping[str, "AttributeValue"]]
"""Gives a span's first attributes; called only when the span records."""

EndHook = Callable[["Traced", float, BaseException | None], None]
"""Runs as a span closes, with its duration in seconds and the exception that ended it."""


class Traced:
    """A span being recorded. Inside its `with` block, `recording` says whether anything takes
    it in (an SDK's recording span, a span hook, or a meter provider): attributes are worth
    working out only then. `on_end` runs as the span closes (metrics)."""

    __slots__ = (
        "_handles",
        "_metered",
        "_opening",
        "_provider",
        "_span",
        "_start",
        "_token",
        "attributes",
        "name",
        "on_end",
        "recording",
    )

    def __init__(
        self,
        name: str,
        provider: TracerProvider | None,
        opening: Opening | None = None,
        on_end: EndHook | None = None,
        *,
        metered: bool = False,
    ) -> None:
        self.name = name
        self.recording = False
        self.attributes: dict[str, AttributeValue] = {}
        self.on_end = on_end
        self._opening = opening
        self._metered = metered
        self._provider = provider
        self._span: Span | None = None
        self._token: object = None
        self._handles: list[tuple[SpanHook, object]] = []
        self._start = 0.0

    def set(self, key: str, value: AttributeValue) -> None:
        if self.recording:
            self.attributes[key] = value

    def __enter__(self) -> Traced:
        provider = self._provider
        if provider is None:
            return self
        self._start = time.perf_counter()
        span = _tracer(provider).start_span(self.name, kind=trace.SpanKind.INTERNAL)
        self._span = span
        self._token = context.attach(trace.set_span_in_context(span))
        for hook in _hooks:
            with guarded(f"{self.name} (a span hook's start)"):
                handle = hook.start(self.name)
                if handle is not None:
                    self._handles.append((hook, handle))
        self.recording = self._metered or bool(self._handles) or span.is_recording()
        if self.recording and self._opening is not None:
            with guarded(self.name):
                self.attributes.update(self._opening())
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        span = self._span
        if span is None:
            return
        seconds = time.perf_counter() - self._start
        attributes = self.attributes
        if error is not None:
            # the type only: a message may quote a request or arguments
            attributes["error.type"] = type(error).__qualname__
            span.set_status(Status(StatusCode.ERROR, type(error).__qualname__))
        if self.on_end is not None and self.recording:
            with guarded(f"{self.name} (metrics)"):
                self.on_end(self, seconds, error)
        for hook, handle in reversed(self._handles):
            with guarded(f"{self.name} (a span hook's end)"):
                hook.end(handle, attributes, error)
        try:
            with guarded(self.name):
                span.set_attributes(attributes)
                span.end()
        finally:
            context.detach(self._token)  # pyright: ignore[reportArgumentType]


_QUIET = Traced("", None)
"""The span given when nothing records: never entered for real, never changed."""


def traced(name: str, opening: Opening | None = None, on_end: EndHook | None = None) -> Traced:
    """The span to open (`with traced(name) as span:`) around one SchemaRouter decision: a
    shared do-nothing one when no provider is configured and no hook is registered."""
    chosen = settings()
    if (
        not _hooks
        and chosen.tracer_provider is None
        and chosen.meter_provider is None
        and getattr(trace, "_TRACER_PROVIDER", _UNKNOWN) is None
        and getattr(_METERS_MODULE, "_METER_PROVIDER", _UNKNOWN) is None
        and not _PROVIDERS_FROM_ENV
    ):
        return _QUIET  # the common case, first and cheapest: nothing configured at all
    tracer_provider = chosen.tracer_provider or _global_tracer_provider()
    meters = chosen.meter_provider
    metered = not (_global_meters_quiet() if meters is None else _quiet_meters(meters))
    if tracer_provider is None or isinstance(tracer_provider, _QUIET_TRACERS):
        if not metered and not _hooks:
            return _QUIET
        tracer_provider = trace.NoOpTracerProvider()
    return Traced(name, tracer_provider, opening, on_end, metered=metered)
