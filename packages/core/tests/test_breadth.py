"""A tool whose description lists thousands of everyday words (squatting) earns no more per word
than its breadth allows: it stays out of unrelated allow-sets and find-tools results, and never
pushes the right tool out, in lexical and in hybrid mode."""

from __future__ import annotations

import gzip
import importlib.resources
import json
import random
from functools import cache

import pytest

from schemarouter import Catalog, RoutingSession, SchemaRouter, ToolSpec, Visibility
from schemarouter.analysis._breadth import content_factor
from schemarouter.retrieval import semantic_available
from schemarouter.retrieval._index import IndexSettings, LexicalIndex

STUFFED_BYTES = 16 * 1024 - 64
"""Just under the catalog's default bound on a description (16 KiB)."""


@cache
def common_words(count: int = 3000) -> tuple[str, ...]:
    """The `count` most frequent words (three letters or more) of the everyday-English frequency
    list that pyspellchecker ships."""
    resource = importlib.resources.files("spellchecker").joinpath("resources", "en.json.gz")
    with resource.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as text:
        frequencies: dict[str, int] = json.load(text)
    ranked = sorted((w for w in frequencies if w.isalpha() and len(w) > 2), key=lambda w: -frequencies[w])
    return tuple(ranked[:count])


def stuffing(seed: int) -> str:
    """16 KiB of common words in an order of their own."""
    pool = list(common_words())
    random.Random(seed).shuffle(pool)
    words: list[str] = []
    size = 0
    for word in pool * 2:
        if size + len(word) + 1 > STUFFED_BYTES:
            break
        words.append(word)
        size += len(word) + 1
    return " ".join(words)


def _params(**described: str) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {k: {"type": "string", "description": v} for k, v in described.items()},
    }


ORDINARY = [
    ToolSpec("get_weather", "Current weather and forecast for a city.", _params(city="City name")),
    ToolSpec("convert_currency", "Convert an amount of money between currencies.", _params(amount="Amount")),
    ToolSpec("send_email", "Send an email message to a recipient.", _params(to="Recipient address")),
    ToolSpec("translate_text", "Translate text into another language.", _params(target="Target language")),
    ToolSpec("play_music", "Play a song or a playlist.", _params(song="Song title")),
    ToolSpec("get_stock_quote", "Latest stock price for a ticker symbol.", _params(symbol="Ticker")),
    ToolSpec("search_news", "Search recent news articles.", _params(query="Search words")),
    ToolSpec("search_flights", "Search flights between two airports.", _params(origin="From")),
    ToolSpec(
        "create_calendar_event", "Create an event in the user's calendar.", _params(title="Event title")
    ),
    ToolSpec("book_restaurant", "Reserve a table at a restaurant.", _params(restaurant="Name")),
    ToolSpec("get_directions", "Driving or walking directions between two places.", _params(origin="Start")),
    ToolSpec("set_reminder", "Set a reminder for a task at a given time.", _params(text="What to remember")),
    ToolSpec("search_recipes", "Find cooking recipes by ingredient or dish.", _params(query="Dish")),
    ToolSpec("create_invoice", "Create an invoice for a customer.", _params(customer="Customer")),
    ToolSpec("read_file", "Read the contents of a file from disk.", _params(path="File path")),
    ToolSpec("run_sql_query", "Run a SQL query against the database.", _params(sql="SQL statement")),
]
REQUESTS = [
    "what's the weather in Paris tomorrow",
    "convert 100 dollars to euros",
    "send an email to Ada about the meeting",
    "translate this sentence into Spanish",
    "play some jazz music",
    "latest stock price of Apple",
    "any news about the election",
    "find flights from Boston to Rome",
    "put a meeting with Bob on my calendar next Monday",
    "book a table for two at an Italian place tonight",
    "how do I get to the airport from downtown",
    "remind me to call my mother at 6pm",
    "how do I make a good lasagna",
    "bill the customer Acme for 500 dollars",
    "show me what is in the config file",
    "how many users signed up last week in the database",
]
MODES = [
    "lexical",
    pytest.param("hybrid", marks=pytest.mark.skipif(not semantic_available(), reason="no semantic extra")),
]


def stuffed_tools(count: int) -> list[ToolSpec]:
    return [ToolSpec(f"helper_{i}", stuffing(i)) for i in range(count)]


def visibility(specs: list[ToolSpec], mode: str) -> Visibility:
    catalog = Catalog.from_specs("app", specs)
    assert not catalog.skipped
    router = SchemaRouter(catalog)
    return Visibility(router.with_semantic() if mode == "hybrid" else router)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("stuffed", [1, 20])
def test_stuffed_tools_stay_out_of_unrelated_allow_sets(mode: str, stuffed: int) -> None:
    helpers = stuffed_tools(stuffed)
    names = {spec.name for spec in helpers}
    honest = visibility(ORDINARY, mode)
    squatted = visibility([*ORDINARY, *helpers], mode)
    entered = found = 0
    for request, right in zip(REQUESTS, ORDINARY, strict=True):
        allow = squatted.allow_set(request)
        entered += bool(names & set(allow.names))
        # never pushes the right tool out: it is offered whenever it is without the stuffed tools
        if right.name in honest.allow_set(request).names:
            assert right.name in allow.names, (request, allow.names)
        session = RoutingSession(squatted)
        session.offer(request)
        found += bool(names & {tool.name for tool in session.find_tools(request).added})
    assert entered == 0, "a stuffed tool filled an offer (its 16 KiB would be in that prompt)"
    assert found == 0, "find-tools added a stuffed tool"


@pytest.mark.parametrize("mode", MODES)
def test_a_broad_tool_a_request_names_is_still_offered(mode: str) -> None:
    """Breadth keeps a broad tool out of the offers it would only fill; a request that names it
    still gets it, and find-tools still finds it by name (held back here: 16 KiB is more than a
    conversation's budget lets one tool take, `SessionLimits.max_tool_share`)."""
    squatted = visibility([*ORDINARY, *stuffed_tools(3)], mode)
    assert "helper_1" in squatted.allow_set("use the helper_1 tool").names
    session = RoutingSession(squatted)
    session.offer("what's the weather in Paris tomorrow")
    found = session.find_tools("helper_2")
    assert [tool.name for tool in found.held_back][:1] == ["helper_2"]
    assert not {tool.name for tool in found.added} & {"helper_0", "helper_1", "helper_2"}


def test_a_broad_tool_counts_each_descriptive_word_less() -> None:
    index = LexicalIndex(Catalog.from_specs("app", [*ORDINARY, *stuffed_tools(1)]))
    factors = {cap.name: index.content_factor(doc) for doc, cap in enumerate(index.capabilities)}
    assert factors.pop("helper_0") < 0.2
    assert set(factors.values()) == {1.0}


def test_broad_tools_do_not_make_an_honest_word_common() -> None:
    """Twenty stuffed tools that list "weather" each count as a small share of a tool towards the
    word's rarity: it stays far rarer than if each counted as one (0.71 against 0.25)."""
    honest = LexicalIndex(Catalog.from_specs("app", ORDINARY))
    squatted = LexicalIndex(Catalog.from_specs("app", [*ORDINARY, *stuffed_tools(20)]))
    assert "weather" in stuffing(0).split()
    off = LexicalIndex(squatted.catalog, IndexSettings(breadth_power=0.0))
    assert squatted.rarity("weather") > 0.6 * honest.rarity("weather")
    assert off.rarity("weather") < 0.3 * honest.rarity("weather")


def test_a_restored_index_counts_breadth_as_the_index_it_was_saved_from() -> None:
    index = LexicalIndex(Catalog.from_specs("app", [*ORDINARY, *stuffed_tools(2)]))
    restored = LexicalIndex.from_arrays(index.catalog, index.arrays())
    for doc in range(len(index)):
        assert restored.content_factor(doc) == index.content_factor(doc)


@pytest.mark.parametrize(("breadth", "factor"), [(0, 1.0), (40, 1.0), (256, 1.0), (512, 0.5), (2048, 0.125)])
def test_content_factor(breadth: int, factor: float) -> None:
    assert content_factor(breadth, 256.0, 1.0) == factor
