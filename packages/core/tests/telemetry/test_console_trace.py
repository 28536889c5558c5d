"""`--trace` of the demo: SchemaRouter's spans printed by the SDK's console exporter."""

from __future__ import annotations

import io
import json

import pytest

from schemarouter import RoutingSession, Visibility, telemetry
from schemarouter.cli import main
from schemarouter.cli._trace import console_trace
from schemarouter.telemetry import _span

from .conftest import Tools


def _printed(text: str) -> list[dict[str, object]]:
    decoder, spans, at = json.JSONDecoder(), [], 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        span, at = decoder.raw_decode(text, at)
        spans.append(span)
    return spans


def test_console_trace_prints_each_span_as_it_ends(tools: Tools, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_span, "_hooks", ())
    out = io.StringIO()
    stop = console_trace(out, service="a-test")
    try:
        RoutingSession(Visibility(tools.router), conversation_id="c-1").offer("weather forecast for Oslo")
    finally:
        stop()
    spans = _printed(out.getvalue())
    assert [s["name"] for s in spans] == ["schemarouter.allow_set", "schemarouter.session.offer"]
    offer = spans[1]
    assert offer["attributes"]["gen_ai.conversation.id"] == "c-1"  # type: ignore[index]
    assert offer["resource"]["attributes"]["service.name"] == "a-test"  # type: ignore[index]
    assert "Oslo" not in out.getvalue()
    assert telemetry.settings().tracer_provider is None, "stopping goes back to the defaults"
    assert not _span.traced("x").recording


def test_the_demo_offers_trace(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    assert "--trace" in capsys.readouterr().out
