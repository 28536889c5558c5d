"""Spans and metrics of routing decisions, conversation steps and find-tools calls, read back
from the OpenTelemetry SDK's in-memory exporters."""

from __future__ import annotations

from collections.abc import Hashable

import pytest
from opentelemetry.trace import StatusCode

from schemarouter import RoutingError, RoutingSession, Visibility, telemetry
from schemarouter.visibility._session_state import principal_key

from .conftest import Recorded, Tools

WEATHER = "what is the weather forecast for Paris this week"
JOKE = "tell me a joke about cats"


def test_a_routed_request_records_its_decision(recorded: Recorded, tools: Tools) -> None:
    visibility = Visibility(tools.router, k=2)
    allow = visibility.allow_set(WEATHER, principal="alice")
    span = recorded.one("schemarouter.allow_set")
    attributes = dict(span.attributes or {})
    assert attributes["schemarouter.outcome"] == "route" == allow.outcome
    assert attributes["schemarouter.reason"] == allow.reason
    assert list(attributes["schemarouter.tools.offered"]) == list(allow.names)  # pyright: ignore[reportArgumentType]
    assert allow.names[0] == "get_weather_forecast"
    assert list(attributes["schemarouter.routes.offered"]) == list(allow.routes)  # pyright: ignore[reportArgumentType]
    assert attributes["schemarouter.k"] == 2
    assert attributes["schemarouter.mode"] == "lexical"
    assert attributes["schemarouter.catalog.version"] == tools.router.catalog.version
    assert attributes["schemarouter.catalog.tools"] == 3
    expected_bytes = sum(tools.router.catalog[r].schema_bytes for r in allow.routes)
    assert attributes["schemarouter.offered.bytes"] == expected_bytes > 0
    assert attributes["schemarouter.candidates.count"] == len(allow.decisions)
    assert attributes["schemarouter.dropped.count"] == sum(not d.visible for d in allow.decisions)
    scores = list(attributes["schemarouter.scores.top"])  # pyright: ignore[reportArgumentType]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] > 0
    assert attributes["schemarouter.principal"] == principal_key("alice")
    assert "alice" not in {str(v) for v in attributes.values()}
    assert span.status.status_code is StatusCode.UNSET


def test_a_no_route_request_says_so(recorded: Recorded, tools: Tools) -> None:
    allow = Visibility(tools.router).allow_set(JOKE)
    attributes = dict(recorded.one("schemarouter.allow_set").attributes or {})
    assert allow.no_route
    assert attributes["schemarouter.outcome"] == "no_route"
    assert attributes["schemarouter.reason"] == allow.reason
    assert list(attributes["schemarouter.tools.offered"]) == []  # pyright: ignore[reportArgumentType]
    assert attributes["schemarouter.offered.bytes"] == 0


def test_routing_metrics_count_outcomes_latency_and_bytes(recorded: Recorded, tools: Tools) -> None:
    visibility = Visibility(tools.router)
    visibility.allow_set(WEATHER)
    visibility.allow_set(WEATHER)
    visibility.allow_set(JOKE)
    counts = {
        p.attributes["schemarouter.outcome"]: p.value
        for p in recorded.points("schemarouter.routing.decisions")
    }
    assert counts == {"route": 2, "no_route": 1}
    durations = recorded.points("schemarouter.routing.duration")
    assert sum(p.count for p in durations) == 3
    assert all(p.sum > 0 for p in durations)
    assert sum(p.count for p in recorded.points("schemarouter.routing.offered_bytes")) == 3


def test_spans_nest_under_the_current_span(recorded: Recorded, tools: Tools) -> None:
    tracer = recorded.provider.get_tracer("an application")
    with tracer.start_as_current_span("agent run") as run:
        Visibility(tools.router).allow_set(WEATHER)
    span = recorded.one("schemarouter.allow_set")
    assert span.parent is not None
    assert span.parent.span_id == run.get_span_context().span_id
    assert span.context is not None
    assert span.context.trace_id == run.get_span_context().trace_id


def test_a_conversation_step_holds_its_decision(recorded: Recorded, tools: Tools) -> None:
    session = RoutingSession(Visibility(tools.router), conversation_id="conv-1", principal="bob")
    offer = session.offer(WEATHER)
    step = recorded.one("schemarouter.session.offer")
    decision = recorded.one("schemarouter.allow_set")
    assert decision.parent is not None
    assert step.context is not None
    assert decision.parent.span_id == step.context.span_id
    attributes = dict(step.attributes or {})
    assert attributes["gen_ai.conversation.id"] == "conv-1"
    assert attributes["schemarouter.principal"] == principal_key("bob")
    assert attributes["schemarouter.session.turn"] == 1
    assert attributes["schemarouter.session.tools"] == len(offer.routes)
    assert list(attributes["schemarouter.tools.offered"]) == list(offer.tool_names)  # pyright: ignore[reportArgumentType]
    assert list(attributes["schemarouter.session.added"]) == list(offer.added)  # pyright: ignore[reportArgumentType]
    assert attributes["schemarouter.offered.bytes"] == offer.schema_bytes


def test_a_find_tools_call_records_what_it_found(recorded: Recorded, tools: Tools) -> None:
    session = RoutingSession(Visibility(tools.router, k=1), conversation_id="conv-2")
    session.offer(WEATHER)
    result = session.find_tools("send an email to my team")
    call = recorded.one("schemarouter.find_tools")
    search = recorded.one("schemarouter.search")
    assert search.parent is not None
    assert call.context is not None
    assert search.parent.span_id == call.context.span_id
    attributes = dict(call.attributes or {})
    assert [t.name for t in result.added] == ["send_email"]
    assert attributes["gen_ai.tool.name"] == "find_tools"
    assert attributes["schemarouter.find_tools.result"] == "found"
    assert list(attributes["schemarouter.find_tools.added"]) == ["send_email"]  # pyright: ignore[reportArgumentType]
    assert attributes["gen_ai.conversation.id"] == "conv-2"
    assert "gen_ai.tool.call.arguments" not in attributes
    calls = {
        p.attributes["schemarouter.find_tools.result"]: p.value
        for p in recorded.points("schemarouter.find_tools.calls")
    }
    assert calls == {"found": 1}


def test_a_refused_find_tools_call_records_why(recorded: Recorded, tools: Tools) -> None:
    session = RoutingSession(Visibility(tools.router))
    session.find_tools("   ")
    attributes = dict(recorded.one("schemarouter.find_tools").attributes or {})
    assert attributes["schemarouter.find_tools.result"] == "refused"
    assert attributes["schemarouter.find_tools.refused"] == "empty_query"


def test_content_is_absent_by_default(
    recorded: Recorded, tools: Tools, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(telemetry.CONTENT_ENV, raising=False)
    session = RoutingSession(Visibility(tools.router))
    session.offer(WEATHER)
    session.find_tools("convert euros to dollars")
    for span in recorded.spans():
        text = " ".join(str(v) for v in (span.attributes or {}).values())
        assert "Paris" not in text, span.name
        assert "euros" not in text, span.name


@pytest.mark.parametrize(
    ("setting", "env", "recorded_text"),
    [
        pytest.param(True, None, True, id="configured-on"),
        pytest.param(None, "true", True, id="environment-on"),
        pytest.param(None, "SPAN_ONLY", True, id="environment-span-only"),
        pytest.param(None, "false", False, id="environment-off"),
        pytest.param(False, "true", False, id="configured-off-beats-environment"),
    ],
)
def test_content_is_recorded_only_when_asked_for(
    recorded: Recorded,
    tools: Tools,
    monkeypatch: pytest.MonkeyPatch,
    setting: bool | None,
    env: str | None,
    recorded_text: bool,
) -> None:
    if env is None:
        monkeypatch.delenv(telemetry.CONTENT_ENV, raising=False)
    else:
        monkeypatch.setenv(telemetry.CONTENT_ENV, env)
    chosen = telemetry.settings()
    telemetry.configure(
        record_content=setting, tracer_provider=chosen.tracer_provider, meter_provider=chosen.meter_provider
    )
    session = RoutingSession(Visibility(tools.router))
    session.offer(WEATHER)
    session.find_tools("convert euros to dollars")
    decision = dict(recorded.spans("schemarouter.allow_set")[0].attributes or {})
    call = dict(recorded.one("schemarouter.find_tools").attributes or {})
    if recorded_text:
        assert decision["gen_ai.retrieval.query.text"] == WEATHER
        assert call["gen_ai.tool.call.arguments"] == '{"query": "convert euros to dollars"}'
    else:
        assert "gen_ai.retrieval.query.text" not in decision
        assert "gen_ai.tool.call.arguments" not in call


class FailingRule(Visibility):
    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        raise RuntimeError("rule store unreachable")


def test_a_failed_decision_is_an_error_span_and_counted(recorded: Recorded, tools: Tools) -> None:
    with pytest.raises(RoutingError):
        FailingRule(tools.router).allow_set(WEATHER)
    span = recorded.one("schemarouter.allow_set")
    assert span.status.status_code is StatusCode.ERROR
    assert dict(span.attributes or {})["error.type"] == "RoutingError"
    counts = {
        p.attributes["schemarouter.outcome"]: p.value
        for p in recorded.points("schemarouter.routing.decisions")
    }
    assert counts == {"error": 1}


@pytest.mark.parametrize("principal", [None, "alice", 1, True, 1.0, ("tenant", 7), frozenset({"a", "b"})])
def test_principals_are_recorded_as_the_session_key(
    recorded: Recorded, tools: Tools, principal: Hashable | None
) -> None:
    Visibility(tools.router).allow_set(WEATHER, principal)
    attributes = dict(recorded.one("schemarouter.allow_set").attributes or {})
    assert attributes["schemarouter.principal"] == principal_key(principal)
