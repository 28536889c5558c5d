"""British and American spellings of a word meet, and so do a noun and the verb it names."""

from __future__ import annotations

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec, Visibility
from schemarouter.analysis._spelling import american
from schemarouter.analysis._stemming import Stemmer

BRITISH_TOOLS = [
    ToolSpec("summarise_document", "Summarise a document into its key points."),
    ToolSpec("set_colour", "Change the colour of the theme."),
    ToolSpec("find_theatre", "Find a theatre showing a play."),
    ToolSpec("list_organisations", "List the organisations in the catalogue."),
]
AMERICAN_TOOLS = [
    ToolSpec("summarize_document", "Summarize a document into its key points."),
    ToolSpec("set_color", "Change the color of the theme."),
    ToolSpec("find_theater", "Find a theater showing a play."),
    ToolSpec("list_organizations", "List the organizations in the catalog."),
]


@pytest.mark.parametrize(
    ("british", "american_spelling"),
    [
        ("organisation", "organization"),
        ("organised", "organized"),
        ("analyse", "analyze"),
        ("colour", "color"),
        ("favourite", "favorite"),
        ("behavioural", "behavioral"),
        ("centre", "center"),
        ("litres", "liters"),
        ("catalogue", "catalog"),
        ("licence", "license"),
        ("programme", "program"),
        ("grey", "gray"),
    ],
)
def test_a_british_spelling_stems_as_the_american_one(british: str, american_spelling: str) -> None:
    assert american(british) == american_spelling
    stemmer = Stemmer()
    assert stemmer.stem(british) == stemmer.stem(american_spelling)


@pytest.mark.parametrize(
    "word", ["tour", "hour", "acre", "genre", "course", "journey", "tournament", "basis"]
)
def test_words_with_no_other_spelling_are_left_alone(word: str) -> None:
    assert american(word) == word


@pytest.mark.parametrize(
    ("tools", "request_text", "tool"),
    [
        (BRITISH_TOOLS, "summarize this report", "summarise_document"),
        (BRITISH_TOOLS, "make the color darker", "set_colour"),
        (BRITISH_TOOLS, "which organizations are in the catalog", "list_organisations"),
        (AMERICAN_TOOLS, "summarise this report", "summarize_document"),
        (AMERICAN_TOOLS, "make the colour darker", "set_color"),
        (AMERICAN_TOOLS, "nearest theatre tonight", "find_theater"),
    ],
)
def test_a_request_routes_to_a_tool_spelt_the_other_way(
    tools: list[ToolSpec], request_text: str, tool: str
) -> None:
    allow = Visibility(SchemaRouter(Catalog.from_specs("app", tools)), k=2).allow_set(request_text)
    assert allow.names[:1] == (tool,)


def test_a_british_word_weighs_as_its_american_spelling() -> None:
    """A word the everyday-English list knows only in American spelling ("colour") is as common as
    that spelling, not an unknown (fully specific) word; a word the list knows keeps its own weight
    even where a rule rewrites it ("advise")."""
    index = SchemaRouter(Catalog.from_specs("app", BRITISH_TOOLS)).index
    (colour,) = index.analyzer.query_terms("colour")
    (color,) = index.analyzer.query_terms("color")
    assert colour.specificity == color.specificity < 1.0
    (advise,) = index.analyzer.query_terms("advise")
    assert advise.specificity < 1.0


def test_every_listed_noun_would_otherwise_stem_apart_from_its_verb() -> None:
    """The derivation table lists only pairs the stemmer alone keeps apart, and brings them together."""
    import snowballstemmer  # pyright: ignore[reportMissingTypeStubs]

    from schemarouter.analysis._derivations import _NOUN_TO_VERB  # pyright: ignore[reportPrivateUsage]

    plain = snowballstemmer.stemmer("english")  # pyright: ignore[reportUnknownMemberType]
    stemmer = Stemmer()
    for noun, verb in _NOUN_TO_VERB.items():
        assert plain.stemWord(noun) != plain.stemWord(verb), noun  # pyright: ignore[reportUnknownMemberType]
        assert stemmer.stem(noun) == stemmer.stem(verb), noun


@pytest.mark.parametrize(
    ("tool", "description", "request_text"),
    [
        ("convert_currency", "Convert an amount between currencies.", "currency conversion for 100 USD"),
        ("currency_conversion", "Exchange rates between currencies.", "convert 100 USD to EUR"),
        ("describe_image", "Say what a picture shows.", "an image description for this photo"),
        ("text_analysis", "Sentiment of a text.", "analyze the tone of this review"),
        ("manage_subscriptions", "Your plans.", "subscribe me to the newsletter"),
    ],
)
def test_a_noun_and_the_verb_it_names_route_alike(tool: str, description: str, request_text: str) -> None:
    tools = [ToolSpec(tool, description), ToolSpec("play_music", "Play a song on the speaker.")]
    allow = Visibility(SchemaRouter(Catalog.from_specs("app", tools)), k=2).allow_set(request_text)
    assert allow.names == (tool,)


def test_nouns_whose_sense_drifted_are_not_folded() -> None:
    stemmer = Stemmer()
    assert stemmer.stem("conversation") != stemmer.stem("convert")
    assert stemmer.stem("position") != stemmer.stem("pose")


def test_a_word_read_in_its_other_spelling_says_so() -> None:
    """A word the everyday-English list knows only in its American spelling is explained as
    read in that spelling; a word the list knows is not."""
    router = SchemaRouter(Catalog.from_specs("demo", AMERICAN_TOOLS))
    (best, *_) = router.retrieve("list the organisations", 2).candidates
    assert best.name == "list_organizations"
    assert ("organisations", "organizations") in {(s.term, s.read_as) for s in best.signals}
    (best, *_) = router.retrieve("list the organizations", 2).candidates
    assert {s.read_as for s in best.signals} == {None}
