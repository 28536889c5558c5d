"""Ranking: field-aware lexical retrieval, its order, determinism and Unicode safety."""

from __future__ import annotations

from schemarouter import Catalog, SchemaRouter, ToolSpec

TOOLS = [
    ToolSpec(
        "get_weather_forecast",
        "Get the weather forecast (temperature, rain) for a city.",
        {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}},
    ),
    ToolSpec(
        "search_flights",
        "Search flights between two airports on a date.",
        {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "description": "IATA code of the departure airport"},
                "cabin": {"type": "string", "enum": ["economy", "business", "first"]},
            },
        },
    ),
    ToolSpec("convert_currency", "Convert an amount of money between currencies."),
    ToolSpec("send_email", "Send an email message to a recipient."),
    ToolSpec("read_file", "Read the text contents of a file."),
    ToolSpec("read_file_metadata", "Read a file's size and owner, without its contents."),
    ToolSpec(
        "airqualityforecast", "Planning something outdoors? Two-day air quality outlook for a US zip code."
    ),
    ToolSpec("translate_text", "将文本翻译成目标语言（translate text）。"),
    ToolSpec("emoji_weather", "Show today's sky as an icon ☀️ 🌧"),
]


def router() -> SchemaRouter:
    return SchemaRouter(Catalog.from_specs("demo", TOOLS))


def test_the_tool_whose_name_and_description_match_ranks_first() -> None:
    retrieval = router().retrieve("what is the weather forecast for Paris", 3)
    assert retrieval.names[0] == "get_weather_forecast"


def test_parameter_descriptions_and_enum_values_are_indexed() -> None:
    """They rank a tool; alone they are no gate evidence (they name values a tool takes)."""
    retrieval = router().retrieve("business class departing from the airport", 3)
    assert retrieval.reported[0].name == "search_flights"
    fields = {s.field for s in retrieval.reported[0].signals}
    assert {"param_text"} <= fields


def test_a_closer_name_outranks_a_longer_one() -> None:
    retrieval = router().retrieve("read file", 2)
    assert retrieval.names == ("read_file", "read_file_metadata")


def test_results_are_never_padded_with_tools_that_matched_nothing() -> None:
    retrieval = router().retrieve("convert currency", 5)
    ranked = retrieval.reported
    assert all(c.signals for c in ranked)
    assert "send_email" not in {c.name for c in ranked}


def test_same_input_same_order() -> None:
    first = router().retrieve("read the file contents", 5)
    for _ in range(3):
        again = router().retrieve("read the file contents", 5)
        assert again.routes == first.routes
        assert [c.score for c in again.candidates] == [c.score for c in first.candidates]


def test_ties_break_by_route() -> None:
    catalog = Catalog.from_specs("t", [ToolSpec("b_tool", "alpha beta"), ToolSpec("a_tool", "alpha beta")])
    retrieval = SchemaRouter(catalog).retrieve("alpha beta", 2)
    ranked = [c.name for c in retrieval.reported]
    assert ranked == ["a_tool", "b_tool"]


def test_plural_and_inflected_words_match() -> None:
    retrieval = router().retrieve("forecasts of weather", 1)
    assert retrieval.names == ("get_weather_forecast",)


def test_a_run_together_name_is_found_by_its_words() -> None:
    retrieval = router().retrieve("air quality tomorrow", 1)
    assert retrieval.names == ("airqualityforecast",)
    assert any(s.field == "name" for s in retrieval.candidates[0].signals)


def test_chinese_description_is_searchable() -> None:
    retrieval = router().retrieve("把这段文本翻译成法语", 1)
    assert retrieval.names == ("translate_text",)


def test_emoji_are_searchable_and_do_not_crash() -> None:
    retrieval = router().retrieve("🌧", 1)
    assert retrieval.names == ("emoji_weather",)


def test_the_index_is_built_once_per_catalog_version() -> None:
    r = router()
    assert r.index is r.index
    r.retrieve("weather", 1)
    assert r.index.catalog is r.catalog
