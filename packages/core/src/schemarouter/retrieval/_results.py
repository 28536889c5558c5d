"""Typed results of retrieval: ranked candidates with the gate's reasons. No-route is a result, never an exception."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Candidate", "Retrieval", "RouteReason", "Signal"]


RouteReason = Literal[
    "routed",
    "no_content_words",
    "no_terms_matched",
    "gate_refused_all",
    "below_min_score",
    "static_rules_hid_all",
]
"""Why a request routes or not (`Retrieval.reason`, `AllowSet.reason`), in both modes:

- `routed`: at least one tool is routed.
- `no_content_words`: the request has no word routing weighs (empty, or only stop-words and
  punctuation).
- `no_terms_matched`: no tool shares a word with the request.
- `gate_refused_all`: the no-route gate refused every candidate: not enough evidence that
  any tool fits.
- `below_min_score`: some candidate had the evidence but none reached the policy's `min_score`.
- `static_rules_hid_all` (`AllowSet` only): the gate would route tools, but `blocked` /
  `allowed` rules hide every one of them.
"""


@dataclass(frozen=True, slots=True)
class Signal:
    """One explainable piece of a score: query term `term` hit field `field` of the tool."""

    term: str
    field: str
    weight: float
    read_as: str | None = None
    """The word a request word was read as, when not as itself: the catalog word a misspelt word
    stands for (`wheather` -> `weather`), its other spelling (`resise` -> `resize`), the synonym
    it matched (`fetch` -> `retrieve`), or, when `term` is a file name, a word for the file
    (`report.md` -> `markdown`)."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A ranked tool for one query, with why it was kept or dropped by the no-route gate."""

    route: str
    name: str
    source: str
    score: float
    identifier_score: float
    """Rarity-weighted evidence that the query names this tool (bounded to [0, 1])."""
    signals: tuple[Signal, ...]
    kept: bool
    reason: str
    """Machine-readable: `routed`, `preferred_route`, `no_identifier_signal`, `weak_evidence`,
    `below_min_score`, `beyond_k`."""
    rank_score: float = 0.0
    """The BM25F ranking score (unbounded; orders candidates, says nothing about fit)."""


@dataclass(frozen=True, slots=True)
class Retrieval:
    """Ranked candidates for one query over one catalog version.

    `candidates` holds the kept ones, best first (at most `k`); `dropped` those the gate
    refused, with reasons. `no_route` is True when nothing was kept.
    """

    query: str
    k: int
    catalog_version: str
    candidates: tuple[Candidate, ...]
    dropped: tuple[Candidate, ...]
    no_route: bool
    reason: RouteReason
    matched: int = 0
    """Tools that matched any query word; those neither kept nor listed in `dropped` ranked lower."""

    @property
    def routes(self) -> tuple[str, ...]:
        return tuple(c.route for c in self.candidates)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.candidates)
