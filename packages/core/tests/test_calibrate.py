"""`calibrate`: a threshold chosen on one half of labelled data, reported on the other."""

from __future__ import annotations

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec, UserError, Visibility, calibrate

CATALOG = Catalog.from_specs(
    "demo",
    [
        ToolSpec("get_weather_forecast", "Get the weather forecast (temperature, rain) for a city."),
        ToolSpec("convert_currency", "Convert an amount of money between currencies."),
        ToolSpec("send_email", "Send an email message to a recipient."),
        ToolSpec("list_invoices", "List a customer's invoices, filtered by payment status."),
        ToolSpec("search_flights", "Search flights between two airports on a date."),
        ToolSpec("story_writer", "Write a short story on any topic for people of any age."),
    ],
)

SUPPORTED = [
    ("weather forecast for Paris", ["get_weather_forecast"]),
    ("will it rain in Berlin tomorrow, weather please", ["get_weather_forecast"]),
    ("convert 20 GBP into yen", ["convert_currency"]),
    ("what currency conversion rate applies to USD", ["demo:convert_currency"]),
    ("email the report to Bob", ["send_email"]),
    ("send a message by email to my team", ["send_email"]),
    ("show the unpaid invoices of ACME", ["list_invoices"]),
    ("list invoices for customer 42", ["list_invoices"]),
    ("find flights from Oslo to Rome", ["search_flights"]),
    ("search flights to Lisbon in May", ["search_flights"]),
]
UNSUPPORTED = [
    "what is the meaning of life",
    "tell me a joke about people",
    "who painted the Mona Lisa",
    "write a haiku about time",
    "how old is the universe",
    "what is a good name for a new dog",
    "explain photosynthesis simply",
    "give me a story idea about the world",
]


def test_calibration_reports_held_out_trade_off() -> None:
    report = calibrate(SchemaRouter(CATALOG), SUPPORTED, UNSUPPORTED, k=3, seed=1)
    assert report.tuning_supported + report.heldout_supported == len(SUPPORTED)
    assert report.tuning_unsupported + report.heldout_unsupported == len(UNSUPPORTED)
    assert report.tuning_over_rejection <= 0.05
    assert 0.0 <= report.over_rejection <= 1.0
    assert 0.0 <= report.false_acceptance <= 1.0
    # the gate alone routes most held-out requests to their tool; a threshold can only hide tools
    assert report.gate_only.recall_at_k > 0.5
    assert report.recall_at_k <= report.gate_only.recall_at_k
    (at_threshold,) = [p for p in report.curve if p.threshold == report.threshold]
    assert at_threshold.recall_at_k == report.recall_at_k
    thresholds = [p.threshold for p in report.curve]
    assert thresholds == sorted(thresholds)
    assert report.threshold in thresholds
    rejections = [p.over_rejection for p in report.curve]
    assert rejections == sorted(rejections)
    acceptances = [p.false_acceptance for p in report.curve]
    assert acceptances == sorted(acceptances, reverse=True)


def test_the_report_is_a_ready_policy() -> None:
    router = SchemaRouter(CATALOG)
    report = calibrate(router, SUPPORTED, UNSUPPORTED, k=3, seed=1)
    assert report.policy.min_score == report.threshold
    allow = Visibility(router, k=3, abstention=report.policy).allow_set("weather forecast for Paris")
    assert allow.allows("get_weather_forecast")


def test_calibration_is_deterministic_per_seed() -> None:
    router = SchemaRouter(CATALOG)
    first = calibrate(router, SUPPORTED, UNSUPPORTED, k=3, seed=7)
    assert calibrate(router, SUPPORTED, UNSUPPORTED, k=3, seed=7) == first
    assert first.to_dict()["threshold"] == first.threshold


def test_a_zero_target_keeps_every_tuning_query_routed() -> None:
    report = calibrate(SchemaRouter(CATALOG), SUPPORTED, UNSUPPORTED, k=3, target_over_rejection=0.0)
    assert report.tuning_over_rejection == 0.0


@pytest.mark.parametrize(
    ("supported", "unsupported"),
    [
        ([], UNSUPPORTED),
        (SUPPORTED, ["only one"]),
        ([("a query", [])], UNSUPPORTED),
    ],
)
def test_too_little_or_unlabelled_data_is_misuse(supported: list, unsupported: list) -> None:  # type: ignore[type-arg]
    with pytest.raises(UserError):
        calibrate(SchemaRouter(CATALOG), supported, unsupported)


def test_a_label_naming_no_catalog_tool_is_misuse() -> None:
    """A misspelt label would otherwise count as a routing miss and skew every number."""
    labelled = [
        *SUPPORTED,
        ("weather in Oslo", ["get_wether_forecast"]),
        ("a flight", ["other:search_flights"]),
    ]
    with pytest.raises(UserError, match=r"no tool or route of the catalog: 'get_wether_forecast', 'other:"):
        calibrate(SchemaRouter(CATALOG), labelled, UNSUPPORTED, k=3)


def test_a_target_the_gate_alone_misses_is_reported_as_not_met() -> None:
    # requests that share no word with their tool: the gate refuses them whatever the threshold
    unreachable = [
        ("is it going to be chilly in Oslo", ["get_weather_forecast"]),
        ("how many yen is a pound", ["convert_currency"]),
        ("ping Ada about lunch", ["send_email"]),
        ("what do we still owe ACME", ["list_invoices"]),
    ] * 2
    report = calibrate(SchemaRouter(CATALOG), [*SUPPORTED, *unreachable], UNSUPPORTED, k=3, seed=1)
    assert report.tuning_over_rejection > report.target_over_rejection
    assert not report.target_met
    assert report.threshold == 0.0
    assert report.to_dict()["target_met"] is False
    assert calibrate(SchemaRouter(CATALOG), SUPPORTED, UNSUPPORTED, k=3, seed=1).target_met
