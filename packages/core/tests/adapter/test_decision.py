"""`schemarouter.adapter.Decider`: one run step's decision, remembered per run context, failing
closed with a named cause that is logged once per context (or raised, when configured)."""

from __future__ import annotations

import logging
from collections.abc import Hashable
from typing import Any

import pytest

from schemarouter import (
    AllowSet,
    Catalog,
    MissingConversationError,
    MissingRequestError,
    RouteRequest,
    RoutingError,
    SchemaRouter,
    SessionLimits,
    ToolSpec,
    Visibility,
)
from schemarouter.adapter import SESSION_FIELD, AdapterSettings, Decider, Decision
from schemarouter.testing import DelegatingProvider, RaisingVisibility

TOOLS = [
    ToolSpec("get_weather", "Current weather and temperature for a city."),
    ToolSpec("convert_currency", "Convert an amount of money from one currency to another."),
    ToolSpec("send_email", "Send an email message to a recipient."),
]
WEATHER = "what's the weather in Lisbon?"
LOG = logging.getLogger("schemarouter.tests.decider")


class Run:
    """A run context as frameworks have them: one object per run, weakly referenceable."""

    def __init__(self, context: Any) -> None:
        self.context = context


class Counting(DelegatingProvider):
    def __init__(self, inner: Visibility) -> None:
        super().__init__(inner)
        self.asked = 0

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        self.asked += 1
        return super().allow_set(query, principal)


@pytest.fixture
def visibility() -> Visibility:
    return Visibility(SchemaRouter(Catalog.from_specs("app", TOOLS)), k=3)


def decide(decider: Decider, run: Run) -> Decision:
    context = run.context
    return decider.decide(
        run,
        lambda: RouteRequest(context["query"]) if context.get("query") else None,
        conversation=lambda: context.get("conversation"),
        holder=context,
    )


def test_a_step_is_routed_once_per_run_context(visibility: Visibility) -> None:
    provider = Counting(visibility)
    decider = Decider(provider, AdapterSettings(), LOG)
    run = Run({"query": WEATHER})
    first = decide(decider, run)
    assert first.allows("get_weather", "app")
    assert first.visible == first.allow_set
    assert decide(decider, run) is first
    assert provider.asked == 1
    decide(decider, Run({"query": WEATHER}))
    assert provider.asked == 2, "another run context is routed on its own"
    run.context["query"] = "convert 100 dollars to euros"
    assert decide(decider, run).allows("convert_currency", "app")  # a changed request: routed afresh


def test_cache_size_zero_asks_every_time(visibility: Visibility) -> None:
    provider = Counting(visibility)
    decider = Decider(provider, AdapterSettings(cache_size=0), LOG)
    run = Run({"query": WEATHER})
    decide(decider, run)
    decide(decider, run)
    assert provider.asked == 2


def test_no_request_fails_closed_and_is_logged_once_per_context(
    visibility: Visibility, caplog: pytest.LogCaptureFixture
) -> None:
    decider = Decider(visibility, AdapterSettings(), LOG)
    run = Run({})
    with caplog.at_level(logging.WARNING, LOG.name):
        failed = decide(decider, run)
        for _ in range(4):
            assert decide(decider, run) is failed
    assert (failed.cause, failed.allow_set, failed.visible) == ("missing_request", None, None)
    assert isinstance(failed.error, MissingRequestError)
    assert not failed.allows("get_weather", "app")
    assert len(caplog.records) == 1


def test_a_raising_or_wrong_provider_is_a_router_error(visibility: Visibility) -> None:
    decider = Decider(RaisingVisibility(visibility.router), AdapterSettings(), LOG)
    failed = decide(decider, Run({"query": WEATHER}))
    assert failed.cause == "router_error"
    assert isinstance(failed.error, RoutingError)

    class Wrong(DelegatingProvider):
        def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
            return ["get_weather"]  # type: ignore[return-value]

    wrong = Decider(Wrong(visibility), AdapterSettings(), LOG).route(RouteRequest(WEATHER))
    assert wrong.cause == "router_error"
    assert "not an AllowSet" in (wrong.failure or "")


def test_a_principal_without_identity_fails_closed(visibility: Visibility) -> None:
    decider = Decider(visibility, AdapterSettings(), LOG)
    failed = decider.decide(Run(None), lambda: RouteRequest(WEATHER, principal=["not", "hashable"]))  # type: ignore[arg-type]
    assert failed.cause == "request_error"
    assert "hashable" in (failed.failure or "")


def test_on_failure_raise_raises_the_error_or_the_adapters_own(visibility: Visibility) -> None:
    decider = Decider(visibility, AdapterSettings(on_failure="raise"), LOG)
    with pytest.raises(MissingRequestError):
        decide(decider, Run({}))

    class Unavailable(RoutingError):
        pass

    own = Decider(
        visibility, AdapterSettings(on_failure="raise"), LOG, raise_as=lambda d: Unavailable(d.cause)
    )
    with pytest.raises(Unavailable, match="missing_request"):
        decide(own, Run({}))


def test_conversation_mode_offers_the_sessions_list_and_stores_its_state(visibility: Visibility) -> None:
    decider = Decider(visibility, AdapterSettings(sessions=SessionLimits()), LOG)
    context: dict[str, Any] = {"query": WEATHER, "conversation": "c-1"}
    run = Run(context)
    step = decide(decider, run)
    assert step.offer is not None
    assert step.visible == step.listed
    assert step.listed is not None
    assert step.listed.routes == ("app:get_weather",)
    assert step.tool_names[0] == "find_tools"
    assert context[SESSION_FIELD]["routes"] == ["app:get_weather"]
    found, after = decider.find(step, "send an email", context)
    assert [t.name for t in found.added] == ["send_email"]
    assert after is not None
    assert context[SESSION_FIELD] == after.state
    again = decide(decider, run)  # the same run's next step sees what find-tools added
    assert again.allows("send_email", "app")


def test_conversation_mode_without_a_conversation_or_a_holder_fails_closed(visibility: Visibility) -> None:
    decider = Decider(visibility, AdapterSettings(sessions=SessionLimits()), LOG)
    missing = decide(decider, Run({"query": WEATHER}))
    assert missing.cause == "missing_conversation"
    assert isinstance(missing.error, MissingConversationError)
    nowhere = decider.decide(
        Run(None), lambda: RouteRequest(WEATHER), conversation=lambda: "c-1", holder=None
    )
    assert nowhere.cause == "session_error"
    assert "cannot hold" in (nowhere.failure or "")
    edited = {"query": WEATHER, "conversation": "c-1", SESSION_FIELD: {"format": 2, "routes": []}}
    assert decide(decider, Run(edited)).cause == "session_error"


def test_find_tools_after_a_failure_or_when_turned_off(visibility: Visibility) -> None:
    decider = Decider(visibility, AdapterSettings(sessions=SessionLimits()), LOG)
    failed = decide(decider, Run({"query": WEATHER}))
    assert decider.find(failed, "send an email", {})[0].refused == "failed"
    off = Decider(visibility, AdapterSettings(sessions=SessionLimits(find_tools=False)), LOG)
    step = decide(off, Run({"query": WEATHER, "conversation": "c-1"}))
    assert off.find(step, "send an email", {})[0].refused == "turned_off"


def test_the_request_alone_routes_nothing(visibility: Visibility) -> None:
    provider = Counting(visibility)
    decider = Decider(provider, AdapterSettings(), LOG)
    request = decider.request(lambda: RouteRequest(WEATHER, principal="ann"), "no request")
    assert request == RouteRequest(WEATHER, principal="ann")
    assert provider.asked == 0
    missing = decider.request(lambda: None, "pass the request in deps")
    assert isinstance(missing, Decision)
    assert missing.cause == "missing_request"
    assert "pass the request in deps" in (missing.failure or "")
