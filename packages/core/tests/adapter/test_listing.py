"""`schemarouter.adapter.ListedTools`: a framework's listed tools matched against an allow-set,
over a real catalog, with the provider's rules asked at every check."""

from __future__ import annotations

import logging
from collections.abc import Hashable

import pytest

from schemarouter import AllowSet, Catalog, CatalogLimits, SchemaRouter, ToolSpec, Visibility
from schemarouter.adapter import ListedTools, ListingAdvice, ToolMatch
from schemarouter.testing import DelegatingProvider

APP = [
    ToolSpec("get_weather", "Current weather and temperature for a city."),
    ToolSpec("get_forecast", "Weather forecast for a city for the coming days."),
    ToolSpec("convert_currency", "Convert an amount of money from one currency to another."),
    ToolSpec("send_email", "Send an email message to a recipient."),
]
DELETE = ToolSpec("delete_record", "Delete a customer record from the database.")
WEATHER = "what is the weather forecast for Lisbon"
ADVICE = ListingAdvice(
    unlisted="Mirror it into the catalog.",
    ambiguous="Pass its source.",
    unlisted_mcp="Rebuild the catalog from its server.",
)
LOG_NAME = "schemarouter.tests.listing"
LOG = logging.getLogger(LOG_NAME)


class Rules(DelegatingProvider):
    """A provider whose rules change while a run goes on: `denied` routes are never permitted."""

    def __init__(self, inner: Visibility) -> None:
        super().__init__(inner)
        self.denied: set[str] = set()
        self.asked = 0

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        self.asked += 1
        return route not in self.denied and super().permits(route, principal)


@pytest.fixture
def catalog() -> Catalog:
    return Catalog.merge(
        Catalog.from_specs("app", APP),
        Catalog.from_specs("prod", [DELETE]),
        Catalog.from_specs("staging", [DELETE]),
    )


@pytest.fixture
def rules(catalog: Catalog) -> Rules:
    return Rules(Visibility(SchemaRouter(catalog), k=3))


def listing(provider: Rules, **kwargs: object) -> ListedTools:
    return ListedTools(provider, LOG, ADVICE, **kwargs)  # type: ignore[arg-type]


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOG_NAME]


def test_a_listed_tool_is_matched_by_route_source_or_its_only_name(rules: Rules) -> None:
    tools = listing(rules)
    assert tools.match("get_weather") == ToolMatch("get_weather", "app:get_weather", ("app:get_weather",))
    assert tools.match("delete_record", "prod").route == "prod:delete_record"
    assert tools.match("anything", route="prod:delete_record").routes == ("prod:delete_record",)
    shared = tools.match("delete_record")
    assert (shared.route, shared.routes, shared.ambiguous) == (
        None,
        ("prod:delete_record", "staging:delete_record"),
        True,
    )
    unlisted = tools.match("audit_log")
    assert (unlisted.route, unlisted.routes, unlisted.ambiguous) == (None, (), False)


def test_select_keeps_the_routed_tools_in_allow_set_order(rules: Rules) -> None:
    tools = listing(rules)
    allow = rules.allow_set(WEATHER)
    assert len(allow.names) >= 2, "precondition: the request routes several tools"
    listed = list(reversed([spec.name for spec in APP]))  # the framework lists them in its own order
    shown = tools.select(allow, listed, lambda name: name)
    assert shown == [name for name in allow.names if name in listed]
    assert tools.select(allow, listed, lambda name: None) == [], "a tool with no catalog name is hidden"


def test_a_rule_changed_after_routing_holds_at_the_next_check(rules: Rules) -> None:
    tools = listing(rules)
    allow = rules.allow_set(WEATHER)
    step = tools.step(allow)
    first = tools.match(allow.names[0])
    assert step.shows(first)
    rules.denied.add(allow.routes[0])
    assert not step.shows(first), "the rules are asked on every check, never remembered"
    assert allow.names[0] not in tools.select(allow, list(allow.names), lambda name: name)


def test_a_shared_name_is_hidden_and_named_once_unless_matched_by_name(
    rules: Rules, caplog: pytest.LogCaptureFixture
) -> None:
    allow = rules.allow_set("delete the customer record")
    assert "delete_record" in allow.names, "precondition: the request routes the shared name"
    hide = listing(rules)
    with caplog.at_level(logging.WARNING, logger=LOG_NAME):
        for _ in range(2):
            assert hide.select(allow, ["delete_record"], lambda name: name) == []
    assert len(warnings(caplog)) == 1
    assert "several tools of that name" in warnings(caplog)[0]
    assert warnings(caplog)[0].endswith("Pass its source.")
    routed_source = next(route for route in allow.routes if route.endswith(":delete_record")).split(":")[0]
    assert hide.select(allow, ["delete_record"], lambda name: name, routed_source) == ["delete_record"]

    by_name = listing(rules, shared_names="by_name")
    assert by_name.step(allow).shows(by_name.match("delete_record"))
    rules.denied.add("staging:delete_record")
    assert not by_name.step(allow).shows(by_name.match("delete_record")), (
        "every route of the name must be permitted"
    )


@pytest.mark.parametrize(
    ("served_by_mcp", "expected"),
    [
        (
            False,
            "tool 'audit_log' is not in the router's catalog (no route app:audit_log), so it stays hidden. Mirror it into the catalog.",
        ),
        (
            True,
            "MCP tool 'audit_log' is not in the router's catalog (no route app:audit_log), so it stays hidden. Rebuild the catalog from its server.",
        ),
    ],
    ids=["function", "mcp"],
)
def test_a_tool_the_catalog_lacks_is_named_once_with_the_adapters_advice(
    rules: Rules, caplog: pytest.LogCaptureFixture, served_by_mcp: bool, expected: str
) -> None:
    tools = listing(rules)
    allow = rules.allow_set(WEATHER)
    with caplog.at_level(logging.WARNING, logger=LOG_NAME):
        for _ in range(3):
            shown = tools.select(
                allow,
                ["audit_log", "get_weather"],
                lambda name: name,
                "app",
                served_by_mcp=lambda _: served_by_mcp,
            )
            assert "audit_log" not in shown
    assert warnings(caplog) == [expected]


def test_a_tool_the_catalog_skipped_is_named_with_the_reason(caplog: pytest.LogCaptureFixture) -> None:
    catalog = Catalog.from_specs("app", APP, CatalogLimits(max_tools=2))
    skipped = catalog.skipped[0].name
    rules = Rules(Visibility(SchemaRouter(catalog), k=3))
    with caplog.at_level(logging.WARNING, logger=LOG_NAME):
        listing(rules).select(rules.allow_set(WEATHER), [skipped], lambda name: name)
    assert len(warnings(caplog)) == 1
    assert "see catalog.skipped" in warnings(caplog)[0]
    assert "tool_limit" in warnings(caplog)[0]
    assert "Mirror it" not in warnings(caplog)[0]


def test_catalogued_tools_that_are_not_routed_log_nothing(
    rules: Rules, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger=LOG_NAME):
        listing(rules).select(rules.allow_set(WEATHER), [spec.name for spec in APP], lambda name: name)
    assert warnings(caplog) == []


def test_always_visible_names_are_shown_after_the_routed_ones_when_permitted(rules: Rules) -> None:
    tools = listing(rules)
    allow = rules.allow_set(WEATHER)
    rules.denied.add("app:send_email")
    step = tools.step(allow, always=["send_email", "convert_currency", "local_helper"])
    assert "send_email" not in step.order, "a denied always-visible tool is not shown"
    assert step.order[: len(allow.names)] == allow.names
    assert "local_helper" in step.order, "an always name the catalog lacks is the adapter's own choice"
    assert step.shows(tools.match("local_helper")), (
        "a tool the catalog lacks is shown as the adapter's own choice"
    )
    assert step.rank(tools.match("local_helper")) > step.rank(tools.match(allow.names[-1]))
    assert not step.shows(tools.match("send_email"))


def test_select_permitted_keeps_listed_order_relevance_aside(
    rules: Rules, caplog: pytest.LogCaptureFixture
) -> None:
    tools = listing(rules)
    allow = rules.allow_set(WEATHER)
    rules.denied.add("app:send_email")
    listed = ["send_email", "convert_currency", "delete_record", "audit_log", "get_weather"]
    with caplog.at_level(logging.WARNING, logger=LOG_NAME):
        kept = tools.select_permitted(allow, listed, lambda name: name)
    assert kept == [("convert_currency", "app:convert_currency"), ("get_weather", "app:get_weather")]
    assert len(warnings(caplog)) == 1
    assert "'audit_log'" in warnings(caplog)[0]


def test_pinned_routes_are_the_providers_always_visible_tools(catalog: Catalog, rules: Rules) -> None:
    pinned = Visibility(SchemaRouter(catalog), k=3, always_visible=["send_email", "prod:delete_record"])
    tools = ListedTools(pinned, LOG, ADVICE)
    assert tools.pinned_routes() == {"app:send_email", "prod:delete_record"}
    assert listing(rules).pinned_routes() == frozenset(), "a provider with no always_visible pins nothing"


def test_a_live_contract_must_be_the_one_the_catalog_routed(
    rules: Rules, caplog: pytest.LogCaptureFixture
) -> None:
    tools = listing(rules)
    allow = rules.allow_set(WEATHER)
    match = tools.match(allow.names[0])
    assert tools.live_contract_matches(allow, match, lambda cap: cap.fingerprint)
    with caplog.at_level(logging.WARNING, logger=LOG_NAME):
        assert not tools.live_contract_matches(allow, match, lambda cap: "changed")
    assert any("contract" in message for message in warnings(caplog))
    stale = AllowSet(
        query=allow.query,
        catalog_version="another",
        names=allow.names,
        routes=allow.routes,
        reason=allow.reason,
    )
    assert not tools.live_contract_matches(stale, match, lambda cap: cap.fingerprint), (
        "routed over another catalog"
    )


def test_a_provider_without_a_catalog_shows_nothing(rules: Rules) -> None:
    allow = rules.allow_set(WEATHER)

    class NoCatalog(Rules):
        @property
        def catalog(self) -> Catalog:
            return None  # type: ignore[return-value]

    tools = listing(NoCatalog(rules.inner))  # type: ignore[arg-type]
    assert tools.select(allow, list(allow.names), lambda name: name) == []
    assert tools.select_permitted(allow, list(allow.names), lambda name: name) == []
    assert tools.pinned_routes() == frozenset()


def test_passed_over_is_only_a_catalogued_tool_the_step_neither_routes_nor_pins(rules: Rules) -> None:
    tools = listing(rules)
    allow = rules.allow_set(WEATHER)
    step = tools.step(allow, always=["send_email"])
    unrouted = next(spec.name for spec in APP if spec.name not in allow.names and spec.name != "send_email")
    assert step.passed_over(unrouted)
    assert step.passed_over(unrouted, "app")
    assert not step.passed_over(allow.names[0]), "routed: ask shows"
    assert not step.passed_over("send_email"), "an always name: ask shows"
    assert not step.passed_over("audit_log"), "not in the catalog: ask shows, which names it"
    assert not step.passed_over("delete_record"), "a shared name: ask shows"
    for name in (unrouted, "audit_log", "delete_record"):
        assert not step.shows(step.match(name)), "passed over or not, these are hidden"
