"""Hybrid mode fails closed on misconfiguration and on broken encoders: typed errors at setup, a
`RoutingError` at request time, and nothing runs.

The encoder is a user-supplied one, through the seam (a bag of hashed words, deterministic), so
no semantic extra is needed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec, UserError
from schemarouter._hybrid import HybridPolicy

CATALOG = Catalog.from_specs(
    "ops",
    [
        ToolSpec("send_email", "Send an email message to a recipient."),
        ToolSpec("get_weather", "Current weather conditions and forecast for a city."),
        ToolSpec("delete_file", "Delete a file from the disk."),
    ],
)


class WordsEncoder:
    """Each word of a text adds 1 along the axis its hash picks: texts that share words are close."""

    name = "words-32"
    dim = 32

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(".", " ").split():
                out[row, hashlib.sha256(word.encode()).digest()[0] % self.dim] += 1.0
        return out


@pytest.mark.parametrize(
    "bad",
    [
        {"min_confidence": float("nan")},
        {"min_confidence": float("inf")},
        {"min_confidence": -0.1},
        {"min_confidence": 1.6},  # above 1 + lexical_weight: no score can reach it
        {"min_confidence": "0.3"},
        {"min_confidence": None},
        {"min_confidence": True},
        {"semantic_floor": float("nan")},
        {"semantic_floor": 0.0},
        {"semantic_floor": -0.5},
        {"agree_cosine": float("nan")},
        {"agree_cosine": "0.1"},
        {"rank_weight": float("nan")},
        {"gate_weight": float("inf")},
        {"lexical_weight": None},
        {"semantic_place_weight": "0.8"},
        {"evidence_weight": False},
        {"depth": 2.5},
        {"depth": True},
        {"depth": "20"},
        {"depth": None},
        {"clause_weight": float("nan")},
        {"clause_weight": True},
        {"clause_weight": "0.5"},
    ],
)
def test_every_hybrid_policy_field_is_checked_at_setup(bad: dict[str, Any]) -> None:
    with pytest.raises(UserError):
        HybridPolicy(**bad)


def test_a_nan_confidence_floor_cannot_turn_abstention_off() -> None:
    with pytest.raises(UserError, match="min_confidence"):
        SchemaRouter(CATALOG).with_semantic(WordsEncoder(), policy=HybridPolicy(min_confidence=float("nan")))


@pytest.mark.parametrize(
    "good", [{"min_confidence": 0}, {"min_confidence": 1.5}, {"depth": 1}, {"clause_weight": 1}]
)
def test_edge_values_in_range_are_accepted(good: dict[str, Any]) -> None:
    assert HybridPolicy(**good)
