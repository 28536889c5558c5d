"""Typed results of retrieval and visibility. No-route is a result, never an exception."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

__all__ = [
    "AllowSet",
    "AllowSetProvider",
    "Candidate",
    "DecisionReason",
    "Retrieval",
    "Signal",
    "ToolDecision",
]


@dataclass(frozen=True, slots=True)
class Signal:
    """One explainable piece of a score: query term `term` hit field `field` of the tool."""

    term: str
    field: str
    weight: float


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
    reason: str
    matched: int = 0
    """Tools that matched any query word; those neither kept nor listed in `dropped` ranked lower."""

    @property
    def routes(self) -> tuple[str, ...]:
        return tuple(c.route for c in self.candidates)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.candidates)


DecisionReason = Literal[
    "routed",
    "always_visible",
    "blocked",
    "not_allowed",
    "gate_dropped",
    "beyond_k",
]


@dataclass(frozen=True, slots=True)
class ToolDecision:
    """Why one tool is visible or hidden for this request."""

    route: str
    name: str
    visible: bool
    reason: DecisionReason
    detail: str = ""
    score: float | None = None


@dataclass(frozen=True, slots=True)
class AllowSet:
    """The tools a model may see for one request.

    `names` / `routes` are ordered (routed tools best first, then always-visible ones).
    Tools with no decision listed were not retrieved for this query and are hidden.
    `no_route` is True when no routed tool is visible (always-visible tools do not
    count as a route); `reason` says why.
    """

    query: str
    principal: Hashable | None
    catalog_version: str
    names: tuple[str, ...]
    routes: tuple[str, ...]
    no_route: bool
    reason: str
    decisions: tuple[ToolDecision, ...]

    def __contains__(self, name_or_route: object) -> bool:
        return name_or_route in self.names or name_or_route in self.routes

    def allows(self, name: str, source: str | None = None) -> bool:
        """Is the tool `name` (optionally from `source`) visible?"""
        if source is None:
            return name in self.names
        return f"{source}:{name}" in self.routes

    @property
    def routed(self) -> tuple[str, ...]:
        """Names visible because retrieval routed them (not static rules)."""
        return tuple(d.name for d in self.decisions if d.visible and d.reason == "routed")


@runtime_checkable
class AllowSetProvider(Protocol):
    """What adapters call once per turn. `Visibility` is the standard implementation."""

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet: ...
