"""Hybrid retrieval: the lexical index fused with a semantic scorer, ranking and abstention together.

Ranking and the no-route decision use the same two signals, but not the same number:

- **Ranking** (`Candidate.rank_score`) is a score fusion, not reciprocal-rank fusion
  (reciprocal ranks throw away how far apart two tools are; measured on real catalogs they
  made paraphrase recall worse than either signal alone):

      rank = cosine + rank_weight * (lexical rank score / best lexical rank score)
                    + evidence_weight * lexical evidence

- **Abstention** (`Candidate.score`, what `min_score` and `calibrate(...)` threshold) adds
  the tool's own evidence to the best evidence of each signal for this query:

      own   = cosine + lexical_weight * lexical evidence            (this tool)
      query = best cosine + lexical_weight * best lexical evidence  (any tool)
      score = (own + query) / 2

  so a route is confident when the two signals agree on a tool, or when one of them is very
  strong; a request that only vaguely resembles the catalog on both sides stays low. A tool
  is considered at all only with some evidence: the lexical gate kept it, or it has
  identifier evidence the semantic side does not contradict, or its cosine clears a floor.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ._abstention import RetrievalAbstentionPolicy
from ._catalog import Catalog
from ._results import Candidate, Retrieval, Signal
from ._semantic import SemanticIndex
from .errors import UserError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["SEMANTIC_FIELD", "HybridPolicy", "HybridRetriever", "LexicalRetriever"]

SEMANTIC_FIELD = "semantic"
"""`Signal.field` of the semantic similarity signal on a hybrid candidate."""


class LexicalRetriever(Protocol):
    """What the hybrid needs from the lexical side: a catalog and a gated, ranked retrieval."""

    @property
    def catalog(self) -> Catalog: ...

    def retrieve(
        self,
        query: str,
        k: int,
        policy: RetrievalAbstentionPolicy | None = None,
        preferred_route: str | None = None,
    ) -> Retrieval: ...


@dataclass(frozen=True, slots=True)
class HybridPolicy:
    """How the two signals are fused, and how much evidence a tool needs to be routed.

    Weights were chosen on the `dev` halves of the development data (MetaTool routing and
    its Task1 abstention set, LiveMCPBench) and are reported on the held-out halves; see
    `benchmarks/hybrid.py`.
    """

    rank_weight: float = 0.2
    """Ranking: weight of the lexical rank score, relative to the best one for the query."""
    evidence_weight: float = 0.1
    """Ranking: weight of the bounded lexical evidence."""
    lexical_weight: float = 0.5
    """Abstention: weight of the bounded lexical evidence next to the cosine."""
    min_confidence: float = 0.3
    """Abstention: least `Candidate.score` for a route, before any calibrated `min_score`.

    Deliberately permissive (a cosine of 0.3 alone routes): hiding a needed tool costs more
    than showing an extra one. Raise it with `calibrate(...)` on your own labelled queries.
    """
    agree_cosine: float = 0.1
    """Least cosine for a tool with identifier evidence that the lexical gate refused."""
    semantic_floor: float = 0.2
    """Least cosine for a tool with no lexical evidence."""
    depth: int = 20
    """How many best tools of each signal (lexical and semantic) compete in the fusion."""

    def __post_init__(self) -> None:
        if min(self.rank_weight, self.evidence_weight, self.lexical_weight) < 0:
            raise UserError("hybrid weights must be >= 0")
        if not all(-1.0 <= c <= 1.0 for c in (self.agree_cosine, self.semantic_floor)):
            raise UserError("hybrid cosine thresholds must lie in [-1, 1]")
        if self.depth < 1:
            raise UserError("depth must be >= 1")

    def evidence(self, cosine: float, lexical: Candidate | None) -> str:
        """Which signals make a tool worth considering: a `Candidate.reason`, or `weak_evidence`."""
        if lexical is not None and lexical.kept:
            return "lexical_gate" if cosine < self.semantic_floor else "hybrid_agree"
        if lexical is not None and lexical.identifier_score > 0 and cosine >= self.agree_cosine:
            return "hybrid_agree"
        if cosine >= self.semantic_floor:
            return "semantic_match"
        return "weak_evidence"


_REPORTED_DROPPED = 10
"""Refused tools reported with their reasons, best ranked first (`Retrieval.matched` counts all)."""


@dataclass(frozen=True, slots=True)
class _Scored:
    route: str
    rank: float
    score: float
    cosine: float
    lexical: Candidate | None


class HybridRetriever:
    """Same `retrieve` contract as the lexical index, over one catalog version.

    Deterministic: the same catalog, encoder, query and policy give the same candidates in
    the same order (ties broken by route). Side-effect free.
    """

    def __init__(
        self, lexical: LexicalRetriever, semantic: SemanticIndex, policy: HybridPolicy | None = None
    ) -> None:
        if semantic.catalog.version != lexical.catalog.version:
            raise UserError("the lexical and semantic indexes were built for different catalog versions")
        self.lexical = lexical
        self.semantic = semantic
        self.policy = policy or HybridPolicy()
        self.catalog = lexical.catalog
        self._caps = {cap.route: cap for cap in lexical.catalog}

    @property
    def encoder_name(self) -> str:
        return self.semantic.encoder_name

    def _semantic_top(self, sims: NDArray[np.float32], depth: int) -> list[int]:
        import numpy as np

        size = int(sims.shape[0])
        if depth >= size:
            return list(range(size))
        top: NDArray[np.intp] = np.argpartition(-sims, depth - 1)[:depth]
        return [int(i) for i in top.tolist()]

    def _score(self, query: str, k: int, preferred_route: str | None) -> list[_Scored]:
        hp = self.policy
        depth = max(k, hp.depth)
        # The lexical gate keeps up to k and reports its best refused tools: enough to fuse.
        lexical = self.lexical.retrieve(query, k, None, preferred_route)
        # Only the best `depth` tools of each signal compete; the rest cannot reach the top.
        lex_top = heapq.nsmallest(
            depth, (*lexical.candidates, *lexical.dropped), key=lambda c: (-c.rank_score, -c.score, c.route)
        )
        lex_by_route = {c.route: c for c in lex_top}
        sims = self.semantic.similarities(query)
        pool = set(lex_by_route)
        pool.update(self.semantic.routes[i] for i in self._semantic_top(sims, depth))
        if preferred_route is not None and preferred_route in self._caps:
            pool.add(preferred_route)
        position = self.semantic.position
        cosines = {route: round(float(sims[position[route]]), 6) for route in pool}
        best_rank = max((c.rank_score for c in lex_top), default=0.0)
        best_evidence = max((c.score for c in lex_top), default=0.0)
        query_evidence = max(cosines.values(), default=0.0) + hp.lexical_weight * best_evidence
        scored: list[_Scored] = []
        for route in pool:
            cosine = cosines[route]
            lex = lex_by_route.get(route)
            evidence = lex.score if lex is not None else 0.0
            rank_rel = lex.rank_score / best_rank if lex is not None and best_rank > 0 else 0.0
            rank = cosine + hp.rank_weight * rank_rel + hp.evidence_weight * evidence
            score = (cosine + hp.lexical_weight * evidence + query_evidence) / 2
            scored.append(_Scored(route, round(rank, 6), round(score, 6), cosine, lex))
        scored.sort(key=lambda s: (-s.rank, s.route))
        return scored

    def retrieve(
        self,
        query: str,
        k: int,
        policy: RetrievalAbstentionPolicy | None = None,
        preferred_route: str | None = None,
    ) -> Retrieval:
        hp = self.policy
        min_score = policy.min_score if policy is not None else 0.0
        scored = self._score(query, k, preferred_route)
        kept: list[Candidate] = []
        dropped: list[Candidate] = []
        for item in scored:
            if item.route == preferred_route:
                reason = "preferred_route"
            else:
                reason = hp.evidence(item.cosine, item.lexical)
                if reason != "weak_evidence" and item.score < hp.min_confidence:
                    reason = "low_confidence"
                elif reason != "weak_evidence" and item.score < min_score:
                    reason = "below_min_score"
            passes = reason not in ("weak_evidence", "low_confidence", "below_min_score")
            keep = passes and len(kept) < k
            if not keep and len(dropped) >= _REPORTED_DROPPED:
                continue
            cap = self._caps[item.route]
            lex = item.lexical
            cand = Candidate(
                route=item.route,
                name=cap.name,
                source=cap.source,
                score=item.score,
                identifier_score=lex.identifier_score if lex is not None else 0.0,
                signals=(*(lex.signals if lex is not None else ()), Signal("", SEMANTIC_FIELD, item.cosine)),
                kept=keep,
                reason=reason if keep or not passes else "beyond_k",
                rank_score=item.rank,
            )
            (kept if keep else dropped).append(cand)
        if kept:
            reason = "routed"
        elif not scored:
            reason = "no_terms_matched"
        else:
            reason = "gate_refused_all"
        return Retrieval(
            query, k, self.catalog.version, tuple(kept), tuple(dropped), not kept, reason, matched=len(scored)
        )
