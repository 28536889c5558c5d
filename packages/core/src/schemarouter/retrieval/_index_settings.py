"""The settings of the lexical index: BM25F parameters, how loosely a request word may match an
indexed word, and how much a tool's breadth, an identifier's rarity and an action count.

A snapshot records them and restores an index with the same ones (`settings_record`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["IndexSettings"]


@dataclass(frozen=True, slots=True)
class IndexSettings:
    """BM25F parameters and how loosely a query word may match an indexed word."""

    k1: float = 1.2
    field_weights: Mapping[str, float] = field(
        default_factory=lambda: {
            "name": 3.0,
            "title": 2.0,
            "description": 1.0,
            "params": 0.8,
            "param_text": 0.4,
            "source": 2.0,
        }
    )
    field_b: Mapping[str, float] = field(
        default_factory=lambda: {
            "name": 0.3,
            "title": 0.3,
            "description": 0.75,
            "params": 0.5,
            "param_text": 0.75,
            "source": 0.0,
        }
    )
    segment_weight: float = 0.8
    """Weight of a word found inside a run-together name, relative to a whole name token."""
    abbreviation_weight: float = 0.8
    """Weight of the spelled-out word indexed beside an abbreviation in a tool's name, title or
    parameter names (`cmd` -> `command`), relative to the token itself; also the credit for a
    request's abbreviation matching the spelled-out word (see `_abbreviations`). 0 turns both off."""
    example_weight: float = 0.1
    """Weight of a word of an example value in a parameter's text (`'Asia/Tokyo'`, what follows
    "e.g."), relative to the rest of that text: a request's argument ("Tokyo") matching the
    example one tool's author happened to give says little about which tool fits (0 leaves
    examples out)."""
    prefix_quality: float = 0.7
    """Credit for a match where one word is a prefix of the other (`dealer` / `dealership`)."""
    compound_quality: float = 0.7
    """Credit for a run-together query word matched through its parts (`carpark` -> `car`, `park`)."""
    compound_min_specificity: float = 1.0
    """A query word is split into run-together parts only when at least this specific (rare in
    everyday English): `carpark` is, but `devastated` must not match `dev` and `state`."""
    typo_quality: float = 0.7
    """Credit for a misspelt request word matched through the catalog word one edit away
    (`emial` -> `email`; see `_typo`). Such a match is evidence the gate counts. 0 turns it off."""
    synonym_quality: float = 0.6
    """Credit for a request word matched through another word of its group in `_synonyms`
    (`fetch` -> `retrieve`, `photo` -> `image`). 0 turns it off."""
    min_prefix: int = 4
    """Shortest word that may match another word it is a prefix of."""
    specificity_focus: float = 0.5
    """How much ranking discounts words common in everyday English (0 = not at all)."""
    breadth_reference: float = 256.0
    """Distinct terms a tool's description and parameters may list before each of them counts
    less (see `_breadth`): the longest real tools of the development data list 31 (MetaTool), 82
    (BFCL) and 282 (LiveMCPBench, most under 60); a description stuffed with 16 KiB of everyday
    English lists about 2,000."""
    breadth_power: float = 1.0
    """How fast a broad tool's descriptive words lose weight past `breadth_reference`: 1 keeps
    what all its words can earn together what a focused tool's can (0 turns it off)."""
    argument_power: float = 0.0
    """How fast a term's hits on tools' parameters lose weight as more tools take it as a
    parameter (`analysis._arguments`): "subscription", a parameter of most tools of one server,
    then says little there and names `subscription_list`. Off (0) by default: with the action
    (`action_weight`) the siblings are told apart without it, and at 0.5 it cost held-out
    LiveMCPBench recall@1 two tasks of 42 and gained on no held-out set (docs/decisions.md)."""
    action_weight: float = 0.3
    """How much a tool's action agreeing with the request's (`analysis._actions`) scales its
    ranking score: by `1 + action_weight * agreement * trust`, agreement from -1 (one reads, the
    other writes) to 1, trust 1 for an action read from the tool's name (0 turns it off)."""
    number_specificity: float = 0.2
    """Specificity of an all-digit query word: numbers are argument values far more often than
    they name what a tool does, so `100` matching "c-100" in a parameter description must not
    route on its own."""
