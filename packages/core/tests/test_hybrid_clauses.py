"""A request that asks for several things: each clause brings its own tools to the hybrid ranking.

The encoder here is a user-supplied one, through the seam: a text's vector counts its topic
words, so the cosines are known exactly. No semantic extra needed, except where WordLlama's
own clause encoding is checked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec, UserError
from schemarouter.retrieval._hybrid import HybridPolicy
from schemarouter.retrieval._semantic import WordLlamaEncoder, clause_spans, clauses, semantic_available

TOPICS = {"rain": 0, "umbrella": 0, "sunny": 0, "letter": 1, "envelope": 1, "stamp": 1}
"""Request words, by the topic axis they point along (weather, post)."""

TOOL_AXES = {
    "get_forecast": (1.0, 0.0, 0.0),
    "send_mail": (0.0, 1.0, 0.0),
    "plan_errands": (0.6, 0.6, math.sqrt(1 - 0.72)),  # a generalist: close to both topics at once
    "play_music": (0.0, 0.0, 1.0),
}
DESCRIPTIONS = {
    "get_forecast": "Forecast for a city.",
    "send_mail": "Post to an address.",
    "plan_errands": "Plan a day out.",
    "play_music": "Play a song.",
}
CATALOG = Catalog.from_specs("app", [ToolSpec(name, DESCRIPTIONS[name]) for name in TOOL_AXES])
REQUEST = "Will I need an umbrella because of rain? Then buy a stamp for the envelope please."


class TopicEncoder:
    """A tool text points along its tool's axes; any other text along the sum of its topic words."""

    name = "topics-3"
    dim = 3

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy as np

        self.calls.append(list(texts))
        out = np.zeros((len(texts), 3), dtype=np.float32)
        for row, text in enumerate(texts):
            tool = next((n for n in TOOL_AXES if text.startswith(n.replace("_", " ") + ".")), None)
            if tool is not None:
                out[row] = TOOL_AXES[tool]
                continue
            for word in text.lower().replace("?", " ").replace(".", " ").split():
                axis = TOPICS.get(word)
                if axis is not None:
                    out[row, axis] += 1.0
        return out


def _ranked(policy: HybridPolicy | None) -> list[Any]:
    router = SchemaRouter(CATALOG).with_semantic(TopicEncoder(), hybrid=policy)
    retrieval = router.retrieve(REQUEST, 4)
    return sorted(retrieval.reported, key=lambda c: (-c.rank_score, c.route))


def test_a_request_is_cut_into_its_clauses() -> None:
    assert clauses(REQUEST) == [
        "Will I need an umbrella because of rain",
        "buy a stamp for the envelope please",
    ]
    assert clauses("Find flights to Rome, then book the cheapest hotel near the station") == [
        "Find flights to Rome",
        "book the cheapest hotel near the station",
    ]
    assert clauses("Summarise the notes\nand email them to the whole team") == [
        "Summarise the notes",
        "and email them to the whole team",
    ]


def test_dots_inside_names_paths_and_numbers_do_not_cut_a_clause() -> None:
    text = "Run a scan of www.example.com and save the report to /root/out/scan.md for version 3.5 today"
    assert clause_spans(text) == []
    two = "Run a scan of www.example.com now. Save the report to /root/out/scan.md please."
    assert clauses(two) == [
        "Run a scan of www.example.com now",
        "Save the report to /root/out/scan.md please",
    ]


def test_short_pieces_and_single_clauses_give_no_clauses() -> None:
    assert clauses("What's the weather in Paris?") == []
    assert clauses("Hi! What's the weather in Paris?") == []  # "Hi" is too short to be a clause
    many = " ".join(f"Do task number {i}." for i in range(12))
    assert len(clauses(many)) == 8


def test_spans_point_at_the_clause_text() -> None:
    text = "  Check the forecast for Lyon.   Then email the summary to Ann!  "
    assert [text[a:b] for a, b in clause_spans(text)] == clauses(text)
    assert clauses(text) == ["Check the forecast for Lyon", "email the summary to Ann"]


def test_each_clause_brings_its_own_tool_above_a_generalist() -> None:
    # The whole request points between the two topics, where the generalist lies: it is the
    # closest tool to the whole. Each clause points at one topic's tool.
    whole = [c.name for c in _ranked(HybridPolicy(clause_weight=0.0))]
    assert whole[0] == "plan_errands"
    by_clause = [c.name for c in _ranked(None)]
    assert by_clause[:2] == ["get_forecast", "send_mail"]  # equally close: by route
    assert by_clause.index("plan_errands") == 2


def test_the_no_route_decision_reads_the_whole_request_only() -> None:
    whole = {c.name: (c.score, c.reason) for c in _ranked(HybridPolicy(clause_weight=0.0))}
    by_clause = {c.name: (c.score, c.reason) for c in _ranked(None)}
    assert by_clause == whole


def test_the_seam_encodes_the_request_and_its_clauses_in_one_call() -> None:
    encoder = TopicEncoder()
    router = SchemaRouter(CATALOG).with_semantic(encoder)
    encoder.calls.clear()
    router.retrieve(REQUEST, 2)
    assert encoder.calls == [[REQUEST, *clauses(REQUEST)]]
    encoder.calls.clear()
    router.retrieve("Will I need an umbrella because of rain?", 2)
    assert encoder.calls == [["Will I need an umbrella because of rain?"]]
    off = SchemaRouter(CATALOG).with_semantic(encoder, hybrid=HybridPolicy(clause_weight=0.0))
    encoder.calls.clear()
    off.retrieve(REQUEST, 2)
    assert encoder.calls == [[REQUEST]]


@pytest.mark.parametrize("weight", [-0.1, 1.5])
def test_clause_weight_outside_zero_to_one_is_refused(weight: float) -> None:
    with pytest.raises(UserError, match="clause_weight"):
        HybridPolicy(clause_weight=weight)


@pytest.mark.skipif(
    not semantic_available(), reason="schemarouter-core[semantic] (wordllama) is not installed"
)
def test_wordllama_encodes_a_request_and_its_clauses_from_one_tokenisation() -> None:
    import numpy as np

    encoder = WordLlamaEncoder().load()
    text = "Find the cheapest flight to Lisbon next week. Then email the itinerary to my manager."
    spans = clause_spans(text)
    rows = encoder.encode_spans(text, spans)
    assert rows.shape == (3, encoder.dim)
    assert np.array_equal(rows[0], encoder.encode([text])[0])  # the whole request: the same floats
    separate = encoder.encode([text[a:b] for a, b in spans])
    for joint, alone in zip(rows[1:], separate, strict=True):
        cosine = float(joint @ alone) / float(np.linalg.norm(joint) * np.linalg.norm(alone))
        assert cosine > 0.99
    # a few texts are encoded one by one: each row is the same floats as encoding it alone
    pair = encoder.encode([text, "play some jazz"])
    assert np.array_equal(pair[1], encoder.encode(["play some jazz"])[0])
