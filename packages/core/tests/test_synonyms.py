"""A request word matches the catalog's word for the same action or thing ("fetch" / `retrieve`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec
from schemarouter.analysis._stemming import Stemmer
from schemarouter.analysis._synonyms import GROUPS, synonyms_by_stem
from schemarouter.cli import main
from schemarouter.retrieval._index import IndexSettings, LexicalIndex
from schemarouter.retrieval._offer import gate

TOOLS = [
    ToolSpec("retrieve_invoice", "Return one invoice by its number."),
    ToolSpec("delete_record", "Delete a record from the ledger."),
    ToolSpec("write_file", "Write text to a file on disk."),
    ToolSpec("search_recipes", "Search recipes by ingredient."),
    ToolSpec("resize_image", "Resize an image to a given width."),
    ToolSpec("send_invitation", "Send an invitation to a guest."),
]


def catalog() -> Catalog:
    return Catalog.from_specs("demo", TOOLS)


@pytest.mark.parametrize(
    ("request_text", "tool"),
    [
        ("fetch invoice 1042", "retrieve_invoice"),
        ("obtain the invoice for March", "retrieve_invoice"),
        ("remove the duplicate entry in the ledger", "delete_record"),
        ("erase that record", "delete_record"),
        ("save these notes to a file", "write_file"),
        ("find recipes with leeks", "search_recipes"),
        ("make this photo 800 pixels wide", "resize_image"),
    ],
)
def test_a_synonym_of_the_tools_word_routes_to_it(request_text: str, tool: str) -> None:
    routed = gate(LexicalIndex(catalog()), request_text, 3)
    assert routed.names[:1] == (tool,)
    off = gate(LexicalIndex(catalog(), IndexSettings(synonym_quality=0.0)), request_text, 3)
    assert off.names[:1] != (tool,) or off.candidates[0].score < routed.candidates[0].score


def test_a_synonym_counts_for_less_than_the_word_itself() -> None:
    specs = [
        ToolSpec("fetch_report", "Return a report by its id."),
        ToolSpec("retrieve_report", "Return a report by its id."),
    ]
    retrieval = gate(LexicalIndex(Catalog.from_specs("demo", specs)), "fetch the quarterly report", 2)
    assert retrieval.names == ("fetch_report", "retrieve_report")
    own, synonym = retrieval.candidates
    assert own.rank_score > synonym.rank_score
    assert own.score > synonym.score


def test_the_explanation_says_which_synonym_matched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (best, *_) = SchemaRouter(catalog()).retrieve("fetch invoice 1042", 3).candidates
    assert best.name == "retrieve_invoice"
    assert {(s.term, s.read_as) for s in best.signals if s.term == "fetch"} == {("fetch", "retrieve")}
    assert {s.read_as for s in best.signals if s.term == "invoice"} == {None}
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": s.name, "description": s.description} for s in TOOLS]))
    assert main(["route", "--tools", str(tools), "fetch invoice 1042"]) == 0
    assert "fetch->retrieve" in capsys.readouterr().out


def test_synonyms_are_read_on_the_request_side_only() -> None:
    """The index is the same with synonyms on or off: a catalog word's weight never changes."""
    on, off = LexicalIndex(catalog()), LexicalIndex(catalog(), IndexSettings(synonym_quality=0.0))
    assert on._idf == off._idf  # pyright: ignore[reportPrivateUsage]
    for term, (docs, weights) in on._postings.items():  # pyright: ignore[reportPrivateUsage]
        other_docs, other_weights = off._postings[term]  # pyright: ignore[reportPrivateUsage]
        assert np.array_equal(docs, other_docs)
        assert np.array_equal(weights, other_weights)


def test_a_word_with_no_group_matches_as_before() -> None:
    on, off = LexicalIndex(catalog()), LexicalIndex(catalog(), IndexSettings(synonym_quality=0.0))
    for request_text in ("resize the image", "invitation for Ann", "ledger totals"):
        assert gate(on, request_text, 3) == gate(off, request_text, 3)


def test_each_group_names_one_meaning_with_distinct_stems() -> None:
    """Two words of a group that stem alike add nothing, and a stem in two groups would join
    their meanings ("check" / "validate" once joined `check` to the adjective "valid")."""
    stem = Stemmer().stem
    owner: dict[str, int] = {}
    for number, group in enumerate(GROUPS):
        stems = [stem(word) for word in group]
        assert len(set(stems)) == len(stems), group
        for s in stems:
            assert owner.setdefault(s, number) == number, (s, group, GROUPS[owner[s]])
    table = synonyms_by_stem(stem)
    for group in GROUPS:
        for word in group:
            others = {w for _, w in table[stem(word)]}
            assert others == set(group) - {word}


@pytest.mark.parametrize(
    ("stacked", "single"),
    [
        ("erase and remove the ledger record", "erase the ledger record"),  # two synonyms of one word
        ("delete and erase the ledger record", "delete the ledger record"),  # the word and a synonym
        ("erase and delete the ledger record", "delete the ledger record"),  # in either order
    ],
)
def test_a_catalog_word_reached_by_synonym_counts_once_per_request(stacked: str, single: str) -> None:
    """Request words count once per stem, so a stem reached through synonyms must too: "erase
    ... remove" is not twice the evidence of "erase"."""
    index = LexicalIndex(catalog())
    (best, *_) = gate(index, stacked, 3).candidates
    (alone, *_) = gate(index, single, 3).candidates
    assert best.name == alone.name == "delete_record"
    assert (best.score, best.rank_score) == (alone.score, alone.rank_score)


def test_a_synonym_replaces_a_looser_prefix_match_to_the_same_word() -> None:
    """ "photographs" starts with `photo`, a prefix match that brings no evidence; its synonym
    `photo` does."""
    specs = [ToolSpec("search_photos", "Search the gallery by date or place.")]
    (best,) = gate(LexicalIndex(Catalog.from_specs("demo", specs)), "photographs of my dog", 3).candidates
    assert {(s.term, s.read_as) for s in best.signals} == {("photographs", "photo")}
    assert best.identifier_score > 0


def test_a_word_whose_synonym_one_request_dropped_keeps_it_in_the_next() -> None:
    """What a word adds is cached per word; the reading without its synonym is cached apart."""
    specs = [
        ToolSpec("delete_record", "Delete a record from the ledger."),
        ToolSpec("stain_remover", "Which stain remover suits a fabric."),  # "remove" also prefixes it
    ]
    index = LexicalIndex(Catalog.from_specs("demo", specs))
    stacked = gate(index, "erase and remove the ledger record", 2)
    assert stacked == gate(
        LexicalIndex(Catalog.from_specs("demo", specs)), "erase and remove the ledger record", 2
    )
    single = gate(index, "remove the ledger record", 2)
    assert single == gate(LexicalIndex(Catalog.from_specs("demo", specs)), "remove the ledger record", 2)
    assert any(s.read_as == "delete" for c in single.candidates for s in c.signals if s.term == "remove")


def test_synonym_evidence_sets_what_a_synonym_brings_the_gate() -> None:
    """`GateSettings.synonym_evidence` scales a synonym's gate evidence, not its ranking."""
    from dataclasses import replace

    from schemarouter.retrieval._gate import DEFAULT_GATE

    index = LexicalIndex(catalog())
    full = gate(index, "fetch invoice 1042", 3)
    none = gate(index, "fetch invoice 1042", 3, settings=replace(DEFAULT_GATE, synonym_evidence=0.0))
    weight = {s.term: s.weight for s in full.candidates[0].signals}
    assert weight["fetch"] > 0
    assert {s.term: s.weight for s in none.candidates[0].signals}["fetch"] == 0
    assert none.candidates[0].rank_score == full.candidates[0].rank_score
    assert none.candidates[0].score < full.candidates[0].score
