"""A name or title stuffed with keywords does not name the tool: its words count as description
words, so the tool does not join the allow-sets of requests that honest tools serve."""

from __future__ import annotations

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec, Visibility
from schemarouter.analysis._fields import MAX_IDENTIFIER_TOKENS, field_tokens
from schemarouter.retrieval import semantic_available

KEYWORDS = (
    "weather currency email translate music stock news flights hotels recipes jokes poems sports movies"
)
HONEST = [
    ToolSpec("get_weather", "Current weather and forecast for a city."),
    ToolSpec("convert_currency", "Convert an amount of money between currencies."),
    ToolSpec("send_email", "Send an email message to a recipient."),
    ToolSpec("translate_text", "Translate text into another language."),
    ToolSpec("play_music", "Play a song or a playlist."),
    ToolSpec("get_stock_quote", "Latest stock price for a ticker symbol."),
    ToolSpec("search_news", "Search recent news articles."),
    ToolSpec("search_flights", "Search flights between two airports."),
]
STUFFED = [
    ToolSpec("helper", "A helpful assistant.", title=KEYWORDS),
    ToolSpec("_".join(KEYWORDS.split()), "A helpful assistant."),
]
REQUESTS = [
    ("what's the weather in Paris tomorrow", "get_weather"),
    ("convert 100 dollars to euros", "convert_currency"),
    ("send an email to Ada about the meeting", "send_email"),
    ("translate this sentence into Spanish", "translate_text"),
    ("play some jazz music", "play_music"),
    ("latest stock price of Apple", "get_stock_quote"),
    ("any news about the election", "search_news"),
    ("find flights from Boston to Rome", "search_flights"),
]


def catalog() -> Catalog:
    return Catalog.from_specs("app", [*HONEST, *STUFFED])


def test_a_name_or_title_past_the_bound_counts_as_description() -> None:
    by_name = {cap.name: cap for cap in catalog()}
    titled = field_tokens(by_name["helper"])
    assert titled["title"] == []
    assert "weather" in titled["description"]
    named = field_tokens(by_name["_".join(KEYWORDS.split())])
    assert named["name"] == []
    assert len(KEYWORDS.split()) > MAX_IDENTIFIER_TOKENS
    honest = field_tokens(by_name["get_stock_quote"])
    assert honest["name"] == ["stock", "quote"]  # ("get" is a stop-word)


@pytest.mark.parametrize(("request_text", "honest"), REQUESTS)
def test_stuffed_identifiers_stay_out_of_honest_allow_sets(request_text: str, honest: str) -> None:
    allow = Visibility(SchemaRouter(catalog()), k=3).allow_set(request_text)
    assert honest in allow.names
    stuffed = {spec.name for spec in STUFFED}
    assert not stuffed & set(allow.names), (request_text, allow.names)


@pytest.mark.skipif(not semantic_available(), reason="the semantic extra is not installed")
@pytest.mark.parametrize(("request_text", "honest"), REQUESTS)
def test_in_hybrid_mode_the_honest_tool_ranks_first(request_text: str, honest: str) -> None:
    """The semantic side reads the keyword list as text (it is similar to many requests): the
    honest tool still comes first; the stuffed ones no longer name themselves."""
    allow = Visibility(SchemaRouter(catalog()).with_semantic(), k=3).allow_set(request_text)
    assert allow.names[0] == honest
    stuffed = {spec.name for spec in STUFFED}
    assert all(d.detail != "hybrid_agree" for d in allow.decisions if d.name in stuffed)


def test_a_name_past_the_character_bound_is_skipped_with_its_reason() -> None:
    from schemarouter import CatalogLimits

    long_name = "_".join(["weather", "news", "stock", "music"] * 6)  # 149 characters
    catalog = Catalog.from_specs("app", [*HONEST, ToolSpec(long_name, "A helpful assistant.")])
    (skipped,) = catalog.skipped
    assert skipped.reason == "name_too_long"
    assert "128" in skipped.detail
    assert len(catalog) == len(HONEST)
    roomy = Catalog.from_specs("app", [ToolSpec(long_name, "x")], CatalogLimits(max_name_chars=150))
    assert len(roomy) == 1
