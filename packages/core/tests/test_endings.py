"""Word endings in ranking: a prefix match is the same word only when the longer word goes on
with an ending, and a request's modifiers ("currently", "detailed") weigh less than its nouns."""

from __future__ import annotations

import pytest

from schemarouter import Catalog, ToolSpec
from schemarouter.analysis._endings import prefix_credit, reads_as_modifier
from schemarouter.analysis._stemming import Stemmer
from schemarouter.retrieval import Candidate
from schemarouter.retrieval._gate import GateSettings
from schemarouter.retrieval._index import IndexSettings, LexicalIndex
from schemarouter.retrieval._offer import gate

OLD = IndexSettings(loose_prefix_quality=0.7, modifier_weight=1.0)
"""Every prefix match at full credit and every word at full weight: the ranking before endings."""
RANKING = GateSettings(identifier_floor=0.0, evidence_floor=0.0)
"""The gate opened fully: every matched tool, in ranking order."""


def ranked(catalog: Catalog, query: str, settings: IndexSettings | None = None) -> list[str]:
    """The names of every tool `query` matches, best ranked first."""
    return list(gate(LexicalIndex(catalog, settings), query, len(catalog), settings=RANKING).names)


def first(catalog: Catalog, query: str, settings: IndexSettings | None = None) -> Candidate:
    return gate(LexicalIndex(catalog, settings), query, 1, settings=RANKING).candidates[0]


@pytest.mark.parametrize(
    ("short", "long", "same"),
    [
        ("dealer", "dealership", True),
        ("rent", "rental", True),
        ("play", "player", True),
        ("high", "highest", True),
        ("high", "highlight", False),
        ("news", "newslett", False),
        ("plan", "plant", False),
        ("repo", "report", False),
    ],
)
def test_a_longer_word_is_the_same_word_only_with_an_ending(short: str, long: str, same: bool) -> None:
    assert prefix_credit(short, long, 0.7, 0.35) == (0.7 if same else 0.35)


@pytest.mark.parametrize(
    ("word", "modifier"),
    [
        ("specifically", True),
        ("currently", True),
        ("detailed", True),
        ("related", True),
        ("performing", True),
        ("family", False),
        ("supply", False),
        ("speed", False),
        ("thing", False),
        ("string", False),
        ("weather", False),
    ],
)
def test_a_request_word_reads_as_a_modifier_when_the_stemmer_cuts_its_ending(
    word: str, modifier: bool
) -> None:
    assert reads_as_modifier(word, Stemmer().stem(word)) is modifier


OTHERS = [
    ToolSpec("convert_units", "Convert a length between units."),
    ToolSpec("send_email", "Send an email to a contact."),
    ToolSpec("list_events", "List the events in a calendar."),
    ToolSpec("get_stock_quote", "Get the price of a stock."),
    ToolSpec("translate_text", "Translate text into another language."),
    ToolSpec("resize_image", "Resize an image to a width."),
]
"""Tools of other jobs, so that the words below are as rare as in a real catalog."""

NEWS = Catalog.from_specs(
    "news",
    [
        ToolSpec("search_newsletters", "Search the archive of newsletters."),
        ToolSpec("news_feed", "Read the stories of the day."),
        ToolSpec("get_articles", "Get news articles about a topic."),
        *OTHERS,
    ],
)


def test_a_word_that_only_starts_a_rarer_word_ranks_below_the_word_itself() -> None:
    query = "news about volcanoes"
    assert ranked(NEWS, query, OLD) == ["search_newsletters", "news_feed", "get_articles"]
    assert ranked(NEWS, query) == ["news_feed", "get_articles", "search_newsletters"]


def test_a_longer_word_with_an_ending_keeps_the_prefix_credit() -> None:
    catalog = Catalog.from_specs(
        "cars",
        [
            ToolSpec("find_dealership", "Find a car dealership near a town."),
            ToolSpec("book_service", "Book a service slot at a garage."),
        ],
    )
    old, new = (
        first(catalog, "which dealer sells used cars", OLD),
        first(catalog, "which dealer sells used cars"),
    )
    assert old.name == new.name == "find_dealership"
    assert new.rank_score == old.rank_score


WEATHER = Catalog.from_specs(
    "weather",
    [
        ToolSpec("current_conditions", "Conditions at an airport."),
        ToolSpec("weather_report", "Weather report for a city."),
        ToolSpec("get_forecast", "Weather forecast for the next days."),
        *OTHERS,
    ],
)


def test_a_modifier_in_a_request_weighs_less_than_what_it_asks_about() -> None:
    query = "what is the weather in Oslo currently"
    assert ranked(WEATHER, query, OLD)[0] == "current_conditions"
    assert ranked(WEATHER, query)[0] == "weather_report"


def test_endings_change_ranking_not_the_gates_evidence() -> None:
    query = "what is the weather in Oslo currently"
    old = {c.name: c for c in gate(LexicalIndex(WEATHER, OLD), query, 3).reported}
    new = {c.name: c for c in gate(LexicalIndex(WEATHER), query, 3).reported}
    assert new["current_conditions"].kept
    assert new["weather_report"].kept
    assert old.keys() == new.keys()
    for name, candidate in new.items():
        assert candidate.identifier_score == old[name].identifier_score
        assert candidate.kept == old[name].kept
    query = "news about volcanoes"
    old = {c.name: c for c in gate(LexicalIndex(NEWS, OLD), query, 3).reported}
    new = {c.name: c for c in gate(LexicalIndex(NEWS), query, 3).reported}
    assert {n: c.identifier_score for n, c in new.items()} == {n: c.identifier_score for n, c in old.items()}
