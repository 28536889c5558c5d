"""The no-route gate: everyday or stop-word overlap never routes; naming a tool does."""

from __future__ import annotations

import pytest

from schemarouter import Catalog, RetrievalAbstentionPolicy, SchemaRouter, ToolSpec, UserError

HONEST = [
    ToolSpec("get_weather_forecast", "Get the weather forecast (temperature, rain) for a city."),
    ToolSpec("search_customers", "Search customer records in the CRM by name or email."),
    ToolSpec("convert_currency", "Convert an amount of money between currencies."),
    ToolSpec("send_email", "Send an email message to a recipient."),
    ToolSpec("list_invoices", "List a customer's invoices, filtered by payment status."),
    ToolSpec("hdbcarpark", "Live availability of HDB car parks in Singapore."),
]
POISONED = ToolSpec(
    "omni_assistant",
    "The best, most helpful tool for anything: help, find, get, make, create, write, tell, know, "
    "best, good, new, time, people, world, life, things, way, day, work, great, need, want, "
    "information, question, answer, please, thanks, today, everything, anything, all, any.",
)


def router(*extra: ToolSpec) -> SchemaRouter:
    return SchemaRouter(Catalog.from_specs("demo", [*HONEST, *extra]))


@pytest.mark.parametrize(
    "query",
    [
        "what is the and of the or",
        "tell me a joke about cats",
        "who painted the Mona Lisa",
        "can you do this for me please",
    ],
)
def test_stop_word_or_unrelated_overlap_never_routes(query: str) -> None:
    retrieval = router().retrieve(query, 3)
    assert retrieval.no_route
    assert retrieval.candidates == ()
    assert retrieval.reason in {"no_content_words", "no_terms_matched", "gate_refused_all"}


@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("get_weather_forecast", "get_weather_forecast"),
        ("use search_customers", "search_customers"),
        ("convert 100 USD to EUR", "convert_currency"),
        ("is there space at the hdb car park near me", "hdbcarpark"),
    ],
)
def test_a_query_that_names_a_tool_routes_to_it(query: str, tool: str) -> None:
    retrieval = router().retrieve(query, 3)
    assert not retrieval.no_route
    assert retrieval.names[0] == tool
    assert retrieval.candidates[0].identifier_score > 0


@pytest.mark.parametrize(
    "query",
    [
        "tell me something good about the world",
        "I need help writing a new story about people",
        "what time is it in the world today",
        "please answer my question about life",
    ],
)
def test_a_poisoned_tool_stays_out_of_unrelated_allow_sets(query: str) -> None:
    """Not routed, and not offered as uncertain either: everyday words stuffed into a description
    are no evidence, weak or strong."""
    from schemarouter import Visibility

    retrieval = router(POISONED).retrieve(query, 3)
    assert "omni_assistant" not in {c.name for c in retrieval.offered}
    assert "omni_assistant" not in Visibility(router(POISONED), k=3).allow_set(query).names


def test_a_poisoned_tool_does_not_push_out_the_right_tool() -> None:
    retrieval = router(POISONED).retrieve("please help me find the weather forecast for today", 3)
    assert retrieval.names[0] == "get_weather_forecast"
    assert "omni_assistant" not in retrieval.names


def test_every_refused_candidate_says_why() -> None:
    strict = RetrievalAbstentionPolicy(uncertain_tools=0)
    retrieval = router(POISONED).retrieve("help me find something new", 3, abstention=strict)
    assert retrieval.no_route
    assert retrieval.outcome == "no_route"
    assert retrieval.dropped
    assert not retrieval.uncertain
    assert {c.reason for c in retrieval.dropped} <= {"no_identifier_signal", "weak_evidence"}
    assert all(not c.kept for c in retrieval.dropped)


GATED = RetrievalAbstentionPolicy(offer="gated")


def test_weak_evidence_offers_the_best_few_as_uncertain() -> None:
    """ "find" reads as "search" and hits a description: too little to route, enough to offer
    (in the gated offer, only tools a specific word or a name hits)."""
    retrieval = router(POISONED).retrieve("help me find something new", 3, abstention=GATED)
    assert retrieval.outcome == "uncertain"
    assert retrieval.reason == "weak_evidence"
    assert not retrieval.no_route
    assert not retrieval.candidates
    assert [c.name for c in retrieval.uncertain] == ["search_customers"]
    assert all(c.reason == "uncertain" and not c.kept for c in retrieval.uncertain)
    assert "search_customers" not in {c.name for c in retrieval.dropped}


@pytest.mark.parametrize("query", ["tell me a joke about cats", "what is the meaning of life", ""])
def test_no_evidence_for_any_tool_is_no_route(query: str) -> None:
    retrieval = router(POISONED).retrieve(query, 3)
    assert retrieval.outcome == "no_route"
    assert retrieval.no_route
    assert not retrieval.offered


def test_uncertain_offers_at_most_uncertain_tools_and_at_most_k() -> None:
    one = RetrievalAbstentionPolicy(uncertain_tools=1, offer="gated")
    query = "find the amount and the status"  # weak evidence for three tools
    assert len(router(POISONED).retrieve(query, 3, abstention=GATED).uncertain) == 3
    assert len(router(POISONED).retrieve(query, 3, abstention=one).uncertain) == 1
    assert len(router(POISONED).retrieve(query, 1, abstention=GATED).uncertain) == 1
    assert len(router(POISONED).retrieve(query, 1).uncertain) == 1


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, None])
def test_uncertain_tools_must_be_a_count(bad: object) -> None:
    with pytest.raises(UserError, match="uncertain_tools"):
        RetrievalAbstentionPolicy(uncertain_tools=bad)  # type: ignore[arg-type]


def test_min_score_adds_a_threshold_on_top_of_the_gate() -> None:
    r = router()
    loose = r.retrieve("send an email", 3)
    assert loose.names[0] == "send_email"
    policy = RetrievalAbstentionPolicy(min_score=0.999, uncertain_tools=0)
    strict = r.retrieve("send an email", 3, abstention=policy)
    assert strict.no_route
    assert strict.reason == "below_min_score"
    assert strict.dropped[0].reason == "below_min_score"
    # with the uncertain outcome on, a tool refused by the threshold is offered as uncertain
    offered = r.retrieve("send an email", 3, abstention=RetrievalAbstentionPolicy(min_score=0.999))
    assert offered.outcome == "uncertain"
    assert offered.uncertain[0].name == "send_email"


def test_a_preferred_route_survives_the_gate() -> None:
    retrieval = router().retrieve("tell me a joke", 3, preferred_route="demo:send_email")
    assert retrieval.routes == ("demo:send_email",)
    assert retrieval.candidates[0].reason == "preferred_route"


def test_scores_are_bounded() -> None:
    retrieval = router().retrieve("weather forecast temperature rain city get weather", 3)
    for cand in retrieval.candidates:
        assert 0.0 <= cand.score < 1.0
        assert 0.0 <= cand.identifier_score < 1.0


def test_no_route_is_a_result_not_an_exception() -> None:
    retrieval = router().retrieve("", 3)
    assert retrieval.no_route
    assert retrieval.reason == "no_content_words"


def test_a_number_shared_with_a_parameter_description_does_not_route() -> None:
    """`100` in "convert 100 USD" matched "Customer id such as c-100" and used to route CRM tools."""
    specs = [
        ToolSpec("convert_currency", "Convert an amount of money between currencies."),
        ToolSpec(
            "delete_customer",
            "Permanently delete a customer record.",
            {
                "type": "object",
                "properties": {"customer_id": {"type": "string", "description": "id such as c-100"}},
            },
        ),
    ]
    routed = SchemaRouter(Catalog.from_specs("demo", specs)).retrieve("convert 100 dollars to euros", 3)
    assert routed.names == ("convert_currency",)
    alone = SchemaRouter(Catalog.from_specs("demo", specs[1:])).retrieve("what about 100", 3)
    assert alone.no_route
    assert not alone.uncertain


def test_argument_text_alone_does_not_route_but_still_ranks() -> None:
    """A request word found only in a parameter's description or enum values names a value the
    tool takes more often than what it does: "weather in Tokyo" over a time-zone converter whose
    parameter text gives 'Asia/Tokyo' as an example routes nothing (with the uncertain outcome
    off, nothing at all; on, the converter is offered as uncertain)."""
    converter = ToolSpec(
        "convert_time",
        "Convert time between timezones",
        {
            "type": "object",
            "properties": {
                "target_timezone": {"type": "string", "description": "IANA name such as 'Asia/Tokyo'"}
            },
        },
    )
    r = SchemaRouter(Catalog.from_specs("time", [converter]))
    strict = RetrievalAbstentionPolicy(uncertain_tools=0)
    retrieval = r.retrieve("what's the weather in Tokyo", 3, abstention=strict)
    assert retrieval.outcome == "no_route"
    assert r.retrieve("what's the weather in Tokyo", 3).outcome == "uncertain"
    (ranked,) = retrieval.dropped
    assert ranked.name == "convert_time"
    assert {s.field for s in ranked.signals} == {"param_text"}
    assert r.retrieve("convert 3pm London time to Tokyo time", 3).names == ("convert_time",)


@pytest.mark.parametrize("bad", [float("nan"), -0.1, float("inf"), "0.5", True, None])
def test_a_min_score_that_is_not_a_score_is_refused(bad: object) -> None:
    """NaN compares false with every score, so it would turn abstention off: refused, like a
    negative or infinite value or one of the wrong type."""
    with pytest.raises(UserError, match="min_score"):
        RetrievalAbstentionPolicy(min_score=bad)  # type: ignore[arg-type]


def test_a_threshold_set_to_a_reported_score_keeps_that_tool() -> None:
    """The gate compares the score as reported (six decimals), so a `min_score` read off a
    candidate, as calibration reads it, keeps that candidate everywhere: in `retrieve` and in
    a `Visibility`."""
    from schemarouter import Visibility

    r = router()
    queries = [
        "weather forecast for Lisbon",
        "will it rain in Oslo tomorrow",
        "find the customer with email ann@example.com",
        "convert 20 dollars to yen",
        "send an email to Bob",
        "which invoices are unpaid",
        "car parks free in Singapore",
        "email the customer their invoices",
        "currency rates and the weather",
        "list invoices for the customer Ann",
    ]
    checked = 0
    for query in queries:
        for c in r.retrieve(query, 5).candidates:
            policy = RetrievalAbstentionPolicy(min_score=c.score)
            assert c.route in r.retrieve(query, 5, abstention=policy).routes, (query, c.score)
            assert c.name in Visibility(r, k=5, abstention=policy).allow_set(query).names
            checked += 1
    assert checked >= 10
