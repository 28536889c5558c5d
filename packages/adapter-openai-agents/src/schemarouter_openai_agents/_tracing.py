"""SchemaRouter's spans in the OpenAI Agents SDK's own traces.

The SDK keeps a trace per run and shows it in its trace viewer (and hands it to any tracing
processor the application adds). `AgentsTracing` is a `schemarouter.telemetry` span hook: while
an SDK trace is active, each SchemaRouter span (a routing decision, a conversation step, a
find-tools call) also opens an SDK custom span (`agents.tracing.custom_span`) under the SDK's
current span, carrying the same attributes, content rules included. Outside an SDK trace, or
with the SDK's tracing disabled, it does nothing. `OpenAIAgentsRouter` installs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemarouter.telemetry import AttributeValue, add_span_hook

__all__ = ["AgentsTracing", "install_tracing"]


class AgentsTracing:
    """A span hook that mirrors SchemaRouter spans into the SDK trace in progress."""

    def start(self, name: str) -> object | None:
        from agents.tracing import custom_span, get_current_trace
        from agents.tracing.spans import NoOpSpan

        if get_current_trace() is None:
            return None
        span = custom_span(name, {})
        if isinstance(span, NoOpSpan):
            return None
        span.start(mark_as_current=True)
        return span

    def end(
        self, handle: object, attributes: Mapping[str, AttributeValue], error: BaseException | None
    ) -> None:
        from agents.tracing import CustomSpanData, Span, SpanError

        if not isinstance(handle, Span):
            return
        span: Span[Any] = handle  # pyright: ignore[reportUnknownVariableType]
        data = span.span_data
        if isinstance(data, CustomSpanData):
            data.data.update({key: list(v) if isinstance(v, tuple) else v for key, v in attributes.items()})
        if error is not None:
            span.set_error(
                SpanError(message=type(error).__qualname__, data={"error.type": type(error).__qualname__})
            )
        span.finish(reset_current=True)


_HOOK = AgentsTracing()


def install_tracing() -> None:
    """Mirror SchemaRouter spans into SDK traces from now on (once per process)."""
    add_span_hook(_HOOK)
