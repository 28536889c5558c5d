"""How request words meet catalog words: acronym plurals, run-together names, words written apart."""

from __future__ import annotations

from dataclasses import replace

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec
from schemarouter.analysis._text import joined_whole, text_tokens
from schemarouter.retrieval._gate import DEFAULT_GATE
from schemarouter.retrieval._index import IndexSettings, LexicalIndex
from schemarouter.retrieval._offer import gate

TOOLS = [
    ToolSpec("find_carpark", "Find free spaces near a location."),
    ToolSpec("pet_taxi", "Take a pet to the vet by car."),
    ToolSpec("website_builder", "Create a landing page from a template."),
    ToolSpec("nonprofit_lookup", "Look up a registered charity by its tax id."),
    ToolSpec("merge_pdfs", "Merge several PDFs into one document."),
    ToolSpec("get_metar", "Aviation weather observation for an airport (METAR)."),
]


def catalog() -> Catalog:
    return Catalog.from_specs("demo", TOOLS)


def test_an_acronym_plural_stays_one_word_in_text_and_identifiers() -> None:
    assert text_tokens("merge these PDFs") == ["merge", "pdfs"]
    assert "urls" in text_tokens("listURLs")
    assert text_tokens("HTTPServer") == ["http", "server"]  # a capital before lower case still splits


def test_a_plural_acronym_in_a_request_routes_to_its_tool() -> None:
    retrieval = SchemaRouter(catalog()).retrieve("combine my PDFs", 3)
    assert retrieval.names[:1] == ("merge_pdfs",)


def test_a_run_together_request_word_still_matches_through_its_parts() -> None:
    retrieval = SchemaRouter(catalog()).retrieve("any carpark spaces downtown", 3)
    assert retrieval.names[:1] == ("find_carpark",)


def test_an_everyday_word_is_not_split_into_tool_name_parts() -> None:
    """`carpet` is an English word, not `car` + `pet`: it must not route to the pet taxi."""
    router = SchemaRouter(catalog())
    assert "pet_taxi" not in router.retrieve("clean the carpet", 3).names
    assert not router.index.analyzer.query_terms("carpet")[0].matches
    # The rule is a setting: with no specificity floor the word is split into catalog words again.
    loose = LexicalIndex(catalog(), IndexSettings(compound_min_specificity=0.0))
    parts = [m.term for m in loose.analyzer.query_terms("carpet")[0].matches if m.kind == "part"]
    assert parts == ["car", "pet"]


def test_two_request_words_match_the_catalog_word_they_form() -> None:
    router = SchemaRouter(catalog())
    assert router.retrieve("build me a web site for my bakery", 3).names[:1] == ("website_builder",)
    assert router.retrieve("is this non profit registered", 3).names[:1] == ("nonprofit_lookup",)
    # Only pairs the catalog indexes as one word are added.
    surfaces = [t.surface for t in router.index.analyzer.query_terms("web site red car")]
    assert surfaces == ["web", "site", "website", "red", "car"]


def test_the_routing_score_blends_gate_evidence_with_the_ranking_score() -> None:
    index = LexicalIndex(catalog())
    query = "merge pdfs"
    blended = gate(index, query, 3).candidates[0]
    evidence_only = gate(index, query, 3, settings=replace(DEFAULT_GATE, rank_weight=0.0)).candidates[0]
    assert blended.route == evidence_only.route == "demo:merge_pdfs"
    assert blended.score != evidence_only.score
    assert 0.0 < blended.score < 1.0
    # Which tools the gate keeps does not depend on the blend.
    assert (
        gate(index, query, 3).names
        == gate(index, query, 3, settings=replace(DEFAULT_GATE, rank_weight=0.0)).names
    )


def test_only_the_first_64_distinct_words_of_a_request_are_weighed() -> None:
    router = SchemaRouter(catalog())
    filler = [f"zq{a}{b}" for a in "abcdefghij" for b in "abcdefghij"][:70]
    assert router.retrieve(" ".join(["metar", *filler]), 3).names[:1] == ("get_metar",)
    assert router.retrieve(" ".join([*filler[:63], "metar"]), 3).names[:1] == ("get_metar",)
    assert router.retrieve(" ".join([*filler[:64], "metar"]), 3).no_route


MIXED_CASE_TOOLS = [
    ToolSpec("video_transcript", "Fetch the transcript of a YouTube video."),
    ToolSpec("tube_status", "Live status of the London Underground (the Tube) lines."),
    ToolSpec("hacker_news_top", "Top stories on Hacker News."),
    ToolSpec("search_iPhone_apps", "Search the App Store."),
]


def test_a_mixed_case_word_is_indexed_whole_besides_its_parts() -> None:
    assert text_tokens("Watch it on YouTube.", wholes=True) == ["watch", "tube", "youtube"]
    assert text_tokens("Watch it on YouTube.") == ["watch", "tube"]  # requests: see below
    assert text_tokens("call getWeather", wholes=True) == ["call", "weather", "getweather"]
    assert text_tokens("the API is down", wholes=True) == ["api"]  # one case throughout: no whole


def test_a_request_names_a_mixed_case_word_the_catalog_knows_whole() -> None:
    router = SchemaRouter(Catalog.from_specs("demo", MIXED_CASE_TOOLS))
    retrieval = router.retrieve("anything new on YouTube?", 4)
    # read whole, `YouTube` is the video tool's word; its part `tube` would name the other tool
    assert retrieval.names == ("video_transcript",)
    assert {s.term for c in retrieval.candidates for s in c.signals} == {"youtube"}


def test_a_mixed_case_word_the_catalog_knows_only_in_parts_is_read_in_parts() -> None:
    router = SchemaRouter(Catalog.from_specs("demo", MIXED_CASE_TOOLS))
    assert router.retrieve("show me HackerNews", 4).names[:1] == ("hacker_news_top",)


def test_a_mixed_case_part_of_a_tool_name_is_indexed_whole() -> None:
    router = SchemaRouter(Catalog.from_specs("demo", MIXED_CASE_TOOLS))
    assert router.retrieve("best iPhone games", 4).names[:1] == ("search_iPhone_apps",)
    assert router.retrieve("best iphone games", 4).names[:1] == ("search_iPhone_apps",)


NAMED_TOOLS = [
    ToolSpec("search_customers", "Search customer records by name or email address."),
    ToolSpec("get_customer", "Fetch one customer record by its id."),
    ToolSpec("create_customer", "Create a new customer record."),
    ToolSpec("update_customer_email", "Change the email address stored on a customer record."),
    ToolSpec("delete_customer", "Permanently delete a customer record."),
    ToolSpec("cmd_controller.execute", "Run a shell command on the host."),
]
"""Several tools share every specific word of `get_customer` (`get` is everyday English)."""


def test_a_tool_name_of_several_parts_is_read_as_one_word() -> None:
    assert joined_whole("get_customer") == "getcustomer"
    assert joined_whole("getCustomer") == "getcustomer"
    assert joined_whole("`cmd_controller.execute`,") == "cmdcontrollerexecute"
    assert joined_whole("customer") is None  # one part: the word itself is already indexed


@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("get_customer", "get_customer"),
        ("use get_customer for c-100", "get_customer"),
        ("call getCustomer with id c-7", "get_customer"),
        ("run `update_customer_email` for c-9", "update_customer_email"),
        ("cmd_controller.execute: list the files", "cmd_controller.execute"),
    ],
)
def test_a_request_that_pastes_a_tool_name_routes_to_that_tool(query: str, tool: str) -> None:
    """Read as its parts alone, `get_customer` hit four tools equally and routed none."""
    retrieval = SchemaRouter(Catalog.from_specs("demo", NAMED_TOOLS)).retrieve(query, 3)
    assert retrieval.names[:1] == (tool,)
    assert retrieval.candidates[0].identifier_score > 0.5


def test_a_pasted_tool_name_still_ranks_its_parts() -> None:
    """The name whole comes after its parts: the tools sharing them still compete below it."""
    ranked = gate(
        LexicalIndex(Catalog.from_specs("demo", NAMED_TOOLS)),
        "get_customer",
        5,
        settings=replace(DEFAULT_GATE, identifier_floor=0.0, evidence_floor=0.0),
    )
    assert ranked.names[0] == "get_customer"
    assert {"delete_customer", "create_customer", "search_customers"} <= set(ranked.names)


def test_the_parts_of_a_name_written_apart_do_not_name_the_tool() -> None:
    """Only the name as one word names the tool; its everyday parts in a sentence do not."""
    retrieval = SchemaRouter(Catalog.from_specs("demo", NAMED_TOOLS)).retrieve("get the customer", 3)
    assert not retrieval.candidates  # no confident route (the customer tools may be offered as uncertain)
