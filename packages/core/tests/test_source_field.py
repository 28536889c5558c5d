"""A tool's source (its MCP server's name, the first half of its route) is indexed as a field of its own."""

from __future__ import annotations

from dataclasses import replace

from schemarouter import Catalog, SchemaRouter, ToolSpec
from schemarouter.retrieval._gate import DEFAULT_GATE
from schemarouter.retrieval._index import LexicalIndex
from schemarouter.retrieval._offer import gate


def _servers() -> Catalog:
    """Three servers whose tool names say little on their own."""
    return Catalog.merge(
        Catalog.from_specs(
            "hackernews",
            [
                ToolSpec("search", "Full-text search over stories and comments."),
                ToolSpec("get_top", "The current front page."),
            ],
        ),
        Catalog.from_specs(
            "github",
            [
                ToolSpec("search", "Search repositories by keyword."),
                ToolSpec("list_issues", "List the open issues of a repository."),
            ],
        ),
        Catalog.from_specs(
            "music-analysis",
            [
                ToolSpec("load", "Load an audio file and return its handle."),
                ToolSpec("beat_track", "Estimate the tempo and the beat positions."),
            ],
        ),
    )


def test_a_request_naming_the_server_picks_its_tool_among_same_named_ones() -> None:
    retrieval = SchemaRouter(_servers()).retrieve("search Hacker News for posts about Rust", 3)
    assert retrieval.routes[:1] == ("hackernews:search",)
    # "Hacker News" written as the server's one word `hackernews`
    assert ("hackernews", "source") in {(s.term, s.field) for s in retrieval.candidates[0].signals}


def test_the_server_name_lends_its_words_to_tools_with_opaque_names() -> None:
    """`load` and `beat_track` say nothing of music; their server does. Its words rank them,
    and count as gate evidence the way description words do (a server's words are broader
    than a tool's name), so they alone do not route."""
    ranked = gate(
        LexicalIndex(_servers()),
        "run a music analysis of my song",
        3,
        settings=replace(DEFAULT_GATE, identifier_floor=0.0, evidence_floor=0.0),
    )
    assert set(ranked.routes[:2]) == {"music-analysis:load", "music-analysis:beat_track"}
    assert {s.field for c in ranked.candidates for s in c.signals} == {"source"}
    alone = SchemaRouter(_servers()).retrieve("run a music analysis of my song", 3)
    assert not alone.candidates  # no confident route; the server's tools are offered as uncertain
    assert {c.route for c in alone.uncertain} <= {"music-analysis:load", "music-analysis:beat_track"}
    assert alone.outcome == "uncertain"


def test_a_source_shared_by_every_tool_names_none_of_them() -> None:
    """In a one-server catalog the source is in every tool: it carries no rarity, so a request
    that only names the server routes nothing through it."""
    catalog = Catalog.from_specs(
        "acme",
        [
            ToolSpec("create_ticket", "Open a support ticket."),
            ToolSpec("close_ticket", "Close a support ticket."),
        ],
    )
    retrieval = SchemaRouter(catalog).retrieve("acme", 3)
    assert retrieval.no_route
    # not even a near-zero hit: a word every tool shares is not indexed at all
    assert (retrieval.reason, retrieval.matched) == ("no_terms_matched", 0)


def test_a_word_of_a_one_server_catalog_keeps_its_own_rarity() -> None:
    """The source's words are counted apart from the tools' own: in a catalog from one server
    named `weather`, counted together, the word would be in every tool and worth nothing, and
    "weather in Paris" would no longer route `get_weather`."""
    catalog = Catalog.from_specs(
        "weather",
        [
            ToolSpec("get_weather", "Current conditions for a city."),
            ToolSpec("get_pollen", "Pollen counts near a place."),
            ToolSpec("get_tides", "Tide times for a harbour."),
            ToolSpec("get_uv_index", "UV index for a place."),
        ],
    )
    retrieval = SchemaRouter(catalog).retrieve("weather in Paris", 3)
    assert retrieval.names == ("get_weather",)


def test_a_misspelt_server_name_is_no_error() -> None:
    """Typos are corrected towards the tools' own words only: a correction towards a source's
    word (`hackrnews` -> `hackernews`) named no indexed term and raised a KeyError."""
    router = SchemaRouter(_servers())
    for query in ("search hackrnews for rust", "githb issues", "musik analysis"):
        router.retrieve(query, 3)  # no exception
    assert router.retrieve("githb issues", 3).routes[:1] == ("github:list_issues",)
