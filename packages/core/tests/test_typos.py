"""Misspelt request words route to the catalog word one edit away, and nothing looser does."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec, Visibility
from schemarouter.analysis._segment import segment
from schemarouter.analysis._typo import MAX_LENGTH, Corrector, _one_edit, correctable  # pyright: ignore[reportPrivateUsage]
from schemarouter.cli import main
from schemarouter.retrieval._index import IndexSettings, LexicalIndex
from schemarouter.retrieval._offer import gate
from schemarouter.retrieval._semantic import semantic_available

TOOLS = [
    ToolSpec("get_weather", "Current conditions and forecast for a city."),
    ToolSpec("send_email", "Send an email message to one recipient."),
    ToolSpec("create_calendar_event", "Add an event to the calendar."),
    ToolSpec("track_shipping", "Where a parcel is, by its tracking code."),
    ToolSpec("search_movie", "Find films by title or actor."),
    ToolSpec("finance_quote", "Stock quotes and company figures."),
    ToolSpec("translate_text", "Translate text into another language."),
]


def visibility() -> Visibility:
    return Visibility(SchemaRouter(Catalog.from_specs("demo", TOOLS)), k=3)


@pytest.mark.parametrize(
    ("request_text", "tool"),
    [
        ("will it rain? wheather in Paris", "get_weather"),  # a letter added
        ("put lunch in my calandar", "create_calendar_event"),  # a letter replaced
        ("an emial to Bob about lunch", "send_email"),  # two letters swapped
        ("translte this into German", "translate_text"),  # a letter left out
    ],
)
def test_a_misspelt_tool_word_routes_to_its_tool(request_text: str, tool: str) -> None:
    allow = visibility().allow_set(request_text)
    assert allow.names[:1] == (tool,)
    assert allow.reason == "routed"


def test_the_correction_is_a_typo_match_and_the_setting_turns_it_off() -> None:
    catalog = Catalog.from_specs("demo", TOOLS)
    index = LexicalIndex(catalog)
    (term,) = index.analyzer.query_terms("calandar")
    assert [(m.term, m.kind) for m in term.matches] == [("calendar", "typo")]
    off = LexicalIndex(catalog, IndexSettings(typo_quality=0.0))
    assert not off.analyzer.query_terms("calandar")[0].matches
    assert gate(off, "put lunch in my calandar", 3).no_route


def test_a_corrected_word_weighs_as_the_word_it_stands_for() -> None:
    """An unknown word counts as fully specific; its correction must not make an everyday word
    ("weather") weigh more than the word itself does."""
    index = LexicalIndex(Catalog.from_specs("demo", TOOLS))
    (typo,) = index.analyzer.query_terms("wheather")
    (word,) = index.analyzer.query_terms("weather")
    assert typo.specificity == word.specificity < 1.0


@pytest.mark.parametrize(
    ("request_text", "why"),
    [
        ("the latest binance listings", "differs from `finance` in its first letter: a name of its own"),
        ("a good moive for tonight", "`move` is a likelier reading than the catalog's `movie`"),
        ("shapping for a new coat", "`shopping` is a likelier reading than the catalog's `shipping`"),
        ("wether or not to go", "`wether` is an English word, not a misspelling"),
        ("emil said hello", "words under five letters are not corrected"),
    ],
)
def test_no_correction_where_the_typo_reading_is_unlikely(request_text: str, why: str) -> None:
    allow = visibility().allow_set(request_text)
    assert allow.no_route, why
    index = LexicalIndex(Catalog.from_specs("demo", TOOLS))
    kinds = {m.kind for t in index.analyzer.query_terms(request_text) for m in t.matches}
    assert "typo" not in kinds, why


def test_an_ambiguous_word_is_not_corrected() -> None:
    """More than three catalog words one edit away: no guess."""
    names = ("zorbax", "zorbex", "zorbix", "zorbox")  # no English word is one edit from "zorbqx"
    specs = [ToolSpec(f"{name}_sync", f"Syncs {name} records.") for name in names]
    index = LexicalIndex(Catalog.from_specs("demo", specs))
    assert not index.analyzer.query_terms("zorbqx")[0].matches
    fewer = LexicalIndex(Catalog.from_specs("demo", specs[:3]))
    assert sorted(m.term for m in fewer.analyzer.query_terms("zorbqx")[0].matches) == [
        "zorbax",
        "zorbex",
        "zorbix",
    ]


def test_neighbours_are_exactly_the_catalog_words_one_edit_away() -> None:
    """The deletion table finds what generating every edit finds, on random words."""
    rng = random.Random(7)
    vocabulary = {"".join(rng.choice("abcde") for _ in range(rng.randint(5, 7))) for _ in range(400)}
    corrector = Corrector(vocabulary)
    for _ in range(300):
        word = "".join(rng.choice("abcde") for _ in range(rng.randint(5, 7)))
        assert corrector.neighbours(word) == _one_edit(word) & vocabulary, word


def test_corrections_are_deterministic_and_ignore_non_ascii_words() -> None:
    corrector = Corrector(["weather", "météo", "天气预报", "Weather"])
    assert corrector.corrections("wheather") == ("weather",)
    assert corrector.corrections("météoo") == ()
    assert corrector.corrections("天气预报吗") == ()
    routes = [visibility().allow_set("wheather in Paris").routes for _ in range(3)]
    assert routes[0] == routes[1] == routes[2]


def test_a_typo_is_read_as_the_catalog_word_in_the_other_spelling() -> None:
    """ "colur" is one edit from "color" (the likelier English reading) and from the catalog's
    "colour": one word in two spellings, so it is corrected."""
    tools = [ToolSpec("colour_palette", "Make a colour palette from a base colour."), *TOOLS]
    allow = Visibility(SchemaRouter(Catalog.from_specs("demo", tools)), k=3).allow_set("a colur scheme")
    assert allow.names[:1] == ("colour_palette",)


def test_the_corrected_request_is_what_hybrid_mode_encodes() -> None:
    class Recording:
        name = "recording-2"
        dim = 2

        def __init__(self) -> None:
            self.calls: list[list[str]] = []

        def encode(self, texts: Sequence[str]) -> Any:
            import numpy as np

            self.calls.append(list(texts))
            return np.ones((len(texts), 2), dtype=np.float32)

    router = SchemaRouter(Catalog.from_specs("demo", TOOLS))
    assert (
        router.index.analyzer.corrected_text("Wheather in Oslo, then an emial")
        == "weather in Oslo, then an email"
    )
    assert router.index.analyzer.corrected_text("weather in Oslo") == "weather in Oslo"
    encoder = Recording()
    hybrid = router.with_semantic(encoder)
    encoder.calls.clear()
    hybrid.retrieve("wheather in Oslo", 3)
    assert encoder.calls == [["weather in Oslo"]]


@pytest.mark.skipif(
    not semantic_available(), reason="schemarouter-core[semantic] (wordllama) is not installed"
)
@pytest.mark.parametrize(
    ("request_text", "tool"),
    [("wheather in Oslo", "get_weather"), ("an emial to Ann now", "send_email")],
)
def test_hybrid_mode_routes_a_misspelt_request_as_lexical_mode_does(request_text: str, tool: str) -> None:
    router = SchemaRouter(Catalog.from_specs("demo", TOOLS))
    assert Visibility(router, k=3).allow_set(request_text).names[:1] == (tool,)
    assert tool in Visibility(router.with_semantic(), k=3).allow_set(request_text).names


def test_the_explanation_says_what_a_misspelt_word_was_read_as(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    router = SchemaRouter(Catalog.from_specs("demo", TOOLS))
    (best, *_) = router.retrieve("wheather in Oslo", 3).candidates
    assert {(s.term, s.read_as) for s in best.signals} == {("wheather", "weather")}
    (exact, *_) = router.retrieve("weather in Oslo", 3).candidates
    assert {s.read_as for s in exact.signals} == {None}
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": s.name, "description": s.description} for s in TOOLS]))
    assert main(["route", "--tools", str(tools), "wheather in Oslo"]) == 0
    assert "wheather->weather" in capsys.readouterr().out
    assert main(["route", "--tools", str(tools), "--json", "wheather in Oslo"]) == 0
    signals = json.loads(capsys.readouterr().out)["candidates"][0]["signals"]
    assert {s["read_as"] for s in signals} == {"weather"}


def test_each_of_several_corrections_is_read_as_its_own_word() -> None:
    names = ("zorbax", "zorbex")
    specs = [ToolSpec(f"{name}_sync", f"Syncs {name} records.") for name in names]
    retrieval = SchemaRouter(Catalog.from_specs("demo", specs)).retrieve("zorbqx", 3)
    read = {c.name: {s.read_as for s in c.signals} for c in retrieval.candidates}
    assert read == {"zorbax_sync": {"zorbax"}, "zorbex_sync": {"zorbex"}}


def test_route_output_marks_a_loose_match_that_carries_no_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "calender" is an English word, so it is not corrected; it only starts "calendar", a prefix
    match that ranks but gives no evidence. The table must not show it as a reason to route."""
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": s.name, "description": s.description} for s in TOOLS]))
    assert main(["route", "--tools", str(tools), "-k", "1", "open the calender"]) == 0
    out = capsys.readouterr().out
    assert "calender (name/description, no evidence)" in " ".join(out.split())
    assert "matched a query word" in out


@pytest.mark.skipif(
    not semantic_available(), reason="schemarouter-core[semantic] (wordllama) is not installed"
)
def test_hybrid_route_output_counts_the_tools_that_competed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": s.name, "description": s.description} for s in TOOLS]))
    assert main(["route", "--tools", str(tools), "--semantic", "tell me a joke"]) == 0
    out = capsys.readouterr().out
    assert "competed" in out
    assert "matched a query word" not in out


def test_a_long_run_of_letters_is_neither_corrected_nor_split() -> None:
    """A pasted blob (an id, base64 without digits) is no mistyped word: its one-edit
    candidates grow with the square of its length, so it is not corrected, and not split
    into run-together words either. The rest of the request routes as without it."""
    long_word = "weatherforecast" * 3 + "x"  # 46 letters, one edit from a catalog word below
    tools = [*TOOLS, ToolSpec("lookup", f"Look up the {long_word[:-1]} table.")]
    index = LexicalIndex(Catalog.from_specs("demo", tools))
    assert len(long_word) > MAX_LENGTH
    assert not correctable(long_word)
    assert Corrector([long_word[:-1], "weather"]).corrections(long_word) == ()
    (term,) = index.analyzer.query_terms(long_word)
    assert [m.kind for m in term.matches if m.kind in ("typo", "part")] == []
    assert segment("weather" * 10, {"weather"}) == ()  # 70 letters
    assert segment("weather" * 2, {"weather"}) == ("weather", "weather")
    blob = "q" * 20_000
    allow = visibility().allow_set(f"wheather in Paris {blob}")
    assert allow.names[:1] == ("get_weather",)
