"""Hybrid fusion lets the lexical side's first tool lead where it has read the request better:
when a request word names it and it leads its runner-up clearly, or when the lexical side clearly
prefers it to the fused first tool while the request barely points towards that one
(`retrieval/_hybrid_lead.py`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from schemarouter import Catalog, RetrievalAbstentionPolicy, SchemaRouter, ToolSpec, UserError
from schemarouter.retrieval import Candidate, HybridPolicy, semantic_available
from schemarouter.retrieval._hybrid_lead import lexical_lead, semantic_pull

needs_encoder = pytest.mark.skipif(not semantic_available(), reason="the semantic extra is not installed")

OPEN = RetrievalAbstentionPolicy(min_score=0.0)
SPECS = [
    ToolSpec("kv_put", "Store a value under a key."),
    ToolSpec("cache_set", "Save data such as session tokens to the cache so it can be read back quickly."),
    ToolSpec("pager_alert", "Page the engineer on call."),
    ToolSpec("send_sms", "Send a short text message to a phone number, for alerts or reminders."),
]
NO_LEAD = HybridPolicy(lead_identifier=2.0, lead_semantic_pull=0.0)
NAMED_ONLY = HybridPolicy(lead_semantic_pull=0.0)


def _params(**fields: str) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": text} for name, text in fields.items()},
    }


TRAVEL = [
    ToolSpec(
        "book_flight",
        "Book a flight between two airports.",
        _params(origin="Airport code.", destination="Airport code."),
    ),
    ToolSpec(
        "book_hotel",
        "Book a hotel room in a city.",
        _params(city="City.", check_in="Arrival day.", nights="Number of nights."),
    ),
    ToolSpec("cancel_booking", "Cancel a reservation.", _params(booking_id="The reservation's id.")),
    ToolSpec("find_restaurant", "Find restaurants nearby.", _params(cuisine="Kind of food.", city="City.")),
    ToolSpec(
        "reserve_table",
        "Reserve a table at a restaurant.",
        _params(restaurant="Restaurant name.", party_size="Number of guests.", time="When."),
    ),
]


def ranking(request: str, policy: HybridPolicy | None = None, specs: list[ToolSpec] = SPECS) -> list[str]:
    router = SchemaRouter(Catalog.from_specs("tools", specs)).with_semantic(hybrid=policy)
    retrieval = router.retrieve(request, len(specs), abstention=OPEN, explain=False)
    return [c.name for c in sorted(retrieval.reported, key=lambda c: (-c.rank_score, c.route))]


@needs_encoder
def test_the_tool_a_request_names_leads() -> None:
    """The semantic side reads "session token" close to `cache_set`; the request names `kv_put`."""
    assert ranking("kv_put the session token", NO_LEAD)[0] == "cache_set"
    assert ranking("kv_put the session token")[0] == "kv_put"


@needs_encoder
def test_a_request_that_names_no_tool_keeps_the_fused_order() -> None:
    request = "keep this session token around for later"
    assert ranking(request) == ranking(request, NO_LEAD)


@needs_encoder
def test_a_clear_lexical_preference_leads_where_the_semantic_side_barely_prefers_another() -> None:
    """The lexical side ranks `reserve_table` first ("table"), `book_hotel` at a third of its
    score, but no request word names it strongly enough for the named lead; the semantic side
    reads the request a little closer to `book_hotel`. Only the first place moves."""
    request = "book a table at Nobu for two tonight"
    fused = ranking(request, NAMED_ONLY, TRAVEL)
    assert fused[0] == "book_hotel"
    assert ranking(request, specs=TRAVEL) == [
        "reserve_table",
        *(name for name in fused if name != "reserve_table"),
    ]


def _candidate(route: str, rank_score: float, identifier_score: float = 0.0) -> Candidate:
    return Candidate(route, route, "tools", 0.5, identifier_score, (), True, "routed", rank_score)


def _pull_of(value: float) -> Callable[[str, str], float]:
    def pull(lexical_route: str, fused_route: str) -> float:
        assert (lexical_route, fused_route) == ("first", "fused")
        return value

    return pull


def _never(lexical_route: str, fused_route: str) -> float:
    raise AssertionError("the semantic side is asked only when the lexical side's preference is clear")


@pytest.mark.parametrize(
    ("fused_rank", "pull", "leads"),
    [
        pytest.param(0.6, _pull_of(0.05), True, id="clear-gap-small-pull"),
        pytest.param(0.6, _pull_of(0.08), False, id="the-request-points-to-the-fused-tool"),
        pytest.param(0.6, _pull_of(-0.2), True, id="the-request-points-to-the-lexical-tool"),
        pytest.param(0.8, _never, False, id="the-lexical-gap-is-small"),
        pytest.param(None, _pull_of(0.05), True, id="the-lexical-side-does-not-rank-the-fused-tool"),
    ],
)
def test_the_lexical_first_tool_leads_by_both_sides_preferences(
    fused_rank: float | None, pull: Callable[[str, str], float], leads: bool
) -> None:
    lex_top = [_candidate("first", 1.0), _candidate("second", 0.9)]
    if fused_rank is not None:
        lex_top.append(_candidate("fused", fused_rank))
    assert lexical_lead(lex_top, "fused", pull, HybridPolicy()) == ("first" if leads else None)
    assert lexical_lead(lex_top, "fused", _never, NAMED_ONLY) is None  # off
    assert lexical_lead(lex_top, "first", _never, HybridPolicy()) is None  # it leads already


def test_semantic_pull_is_the_cosine_difference_over_the_tools_distance() -> None:
    assert semantic_pull(0.30, 0.35, 0.5) == pytest.approx(0.1)
    assert semantic_pull(0.35, 0.30, 0.5) == pytest.approx(-0.1)
    assert semantic_pull(0.30, 0.30001, 0.0) == 0.0  # one vector: the encoder cannot tell them apart


@pytest.mark.parametrize(
    "change",
    [
        {"lead_margin": 1.5},
        {"lead_margin": -0.1},
        {"lead_identifier": -1.0},
        {"lead_lexical_gap": 1.5},
        {"lead_lexical_gap": float("nan")},
        {"lead_semantic_pull": -0.1},
        {"lead_semantic_pull": float("inf")},
    ],
)
def test_lead_settings_are_checked(change: dict[str, float]) -> None:
    with pytest.raises(UserError):
        HybridPolicy(**change)  # pyright: ignore[reportArgumentType]
