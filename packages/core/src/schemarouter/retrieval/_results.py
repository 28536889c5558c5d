"""Typed results of retrieval: ranked candidates with the gate's reasons. No-route is a result, never an exception."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Candidate", "Retrieval", "RouteOutcome", "RouteReason", "Signal"]


RouteOutcome = Literal["route", "uncertain", "no_route"]
"""What one request comes to (`Retrieval.outcome`, `AllowSet.outcome`):

- `route`: at least one tool has the evidence for a confident route; those are offered,
  followed by the ranking's best tools with any evidence (marked uncertain), k in all
  (`RetrievalAbstentionPolicy.offer`).
- `uncertain`: no tool has that evidence, but some have weak evidence; the ranking's best tools
  with any evidence are offered, k at most, and `reason` is `weak_evidence`.
- `no_route`: nothing is offered; `reason` says why.
"""

RouteReason = Literal[
    "routed",
    "weak_evidence",
    "no_content_words",
    "no_terms_matched",
    "gate_refused_all",
    "below_min_score",
    "static_rules_hid_all",
]
"""Why a request routes or not (`Retrieval.reason`, `AllowSet.reason`), in both modes:

- `routed`: at least one tool is routed.
- `weak_evidence`: no tool earns a confident route; the offered tools are all uncertain
  (the `uncertain` outcome).
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
    """Machine-readable: `routed`, `preferred_route`, `uncertain` (offered with weak evidence),
    `no_identifier_signal`, `weak_evidence`, `below_min_score`, `beyond_k`; in hybrid mode also
    `lexical_gate`, `hybrid_agree`, `semantic_match`, `low_confidence`."""
    rank_score: float = 0.0
    """The BM25F ranking score (unbounded; orders candidates, says nothing about fit)."""


@dataclass(frozen=True, slots=True)
class Retrieval:
    """Ranked candidates for one query over one catalog version.

    `candidates` holds the tools routed with confidence, best first (at most `k`); `uncertain`
    the other tools offered, best ranked first (see `RouteOutcome`); `dropped` those not
    offered, with reasons. `no_route` is True when nothing is offered.
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
    uncertain: tuple[Candidate, ...] = ()
    """Tools offered without a confident route (`Candidate.reason` `uncertain`), best ranked
    first, after the routed ones (see `RetrievalAbstentionPolicy.offer`). The execution
    boundary runs none of them."""

    @property
    def outcome(self) -> RouteOutcome:
        """`route`, `uncertain` or `no_route` (see `RouteOutcome`)."""
        if self.candidates:
            return "route"
        return "uncertain" if self.uncertain else "no_route"

    @property
    def offered(self) -> tuple[Candidate, ...]:
        """The tools a model is offered, in order: the routed ones, then the uncertain ones."""
        return (*self.candidates, *self.uncertain)

    @property
    def reported(self) -> tuple[Candidate, ...]:
        """Every candidate reported: routed ones, then uncertain ones, then refused ones (each
        group best first)."""
        return (*self.candidates, *self.uncertain, *self.dropped)

    @property
    def routes(self) -> tuple[str, ...]:
        """Routes of the tools routed with confidence (`candidates`), best first."""
        return tuple(c.route for c in self.candidates)

    @property
    def names(self) -> tuple[str, ...]:
        """Names of the tools routed with confidence (`candidates`), best first."""
        return tuple(c.name for c in self.candidates)
