"""The terms analysis gives the index and reads a request into, and the settings it reads.

A tool's fields become terms (stems, spelled-out abbreviations, parts of run-together names, a
source's words, a pasted name whole); a request becomes `QueryTerm`s: each word with the indexed
terms it matches (`TermMatch`), how well, and how specific it is in everyday English.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ._fields import FIELDS

__all__ = ["ACTION_MARK", "SOURCE_MARK", "WORD_FIELDS", "AnalysisSettings", "QueryTerm", "TermMatch"]

WORD_FIELDS = tuple(name for name in FIELDS if name != "source")
"""The fields indexed as the tool's own words; `source` is indexed apart (see `SOURCE_MARK`)."""
SOURCE_MARK = "\x00"
"""Starts the terms of a source's name. A source's words are counted apart from the tools' own
words: in a one-server catalog named `weather` every tool has the source word, and counted as
one term with the descriptions' `weather` it would make that word common to every tool and so
worth nothing. Apart, a source term is as rare as the share of the catalog its server holds, and
the word keeps its own rarity in the tools that use it."""
ACTION_MARK = "\x01"
"""Starts the term that records a tool's action (`ACTION_MARK + "list"`, see `_actions`): a
posting of its own, which no request word can match, whose weight is how far the action is
trusted. The index reads a tool's action from it, so a snapshot holds the actions with the
postings."""


class AnalysisSettings(Protocol):
    """What the analysis chain reads of the index settings (`IndexSettings` has these fields)."""

    @property
    def segment_weight(self) -> float: ...
    @property
    def abbreviation_weight(self) -> float: ...
    @property
    def example_weight(self) -> float: ...
    @property
    def prefix_quality(self) -> float: ...
    @property
    def compound_quality(self) -> float: ...
    @property
    def compound_min_specificity(self) -> float: ...
    @property
    def typo_quality(self) -> float: ...
    @property
    def synonym_quality(self) -> float: ...
    @property
    def min_prefix(self) -> int: ...
    @property
    def number_specificity(self) -> float: ...


@dataclass(frozen=True, slots=True)
class TermMatch:
    """One indexed term a query term matches, and how well (1.0 = same stem)."""

    term: str
    quality: float
    kind: str = "exact"
    """`exact` (same stem), `prefix` (one word starts the other), `part` (of a run-together word),
    `expansion` (the word an abbreviation stands for), `typo` (a catalog word one edit away),
    `synonym` (another word of the request word's group in `_synonyms`) or `source` (a word of
    a source's name, see `SOURCE_MARK`)."""
    read_as: str | None = None
    """The word the request word is read as: for a `typo` match the catalog word it stands for,
    for a `synonym` match the synonym (`fetch` read as `retrieve`)."""


@dataclass(frozen=True, slots=True)
class QueryTerm:
    """A query word: its surface form, its stem, what it matches in the index and its weight.

    `specificity` (in [0, 1]) says how unusual the word is in everyday English; `weight`
    is the evidence a hit on it carries: catalog rarity of the best match times specificity.
    """

    surface: str
    word: str
    specificity: float
    weight: float
    matches: tuple[TermMatch, ...]
    corrected: str | None = None
    """For a misspelt word, the catalog word it is read as (`wheather` -> `weather`)."""
    by_synonym: frozenset[str] = frozenset()
    """The indexed terms among `matches` that it reaches only as a synonym."""
    key: str = ""
    """What its per-word vectors are cached under: `surface`, or for a term whose synonym
    matches a request dropped (see `QueryAnalyzer.query_terms`), `surface` and what was dropped."""
    named_by: str | None = None
    """For a word a file name in the request stands for (see `_paths`), that file name."""
    base_specificity: float = -1.0
    """`specificity` of the word's most common form: the lower of its own and its stem's, when
    the stem is a word ("writing" is as everyday as "write"). Defaults to `specificity`."""
    says_action: bool = False
    """The word says an action ("list", "show", "created"; see `_actions`) rather than a thing."""

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", self.surface)
        if self.base_specificity < 0.0:
            object.__setattr__(self, "base_specificity", self.specificity)
