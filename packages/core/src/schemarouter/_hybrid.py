"""Hybrid retrieval: the lexical index fused with a semantic scorer, ranking and abstention together.

Ranking uses a convex-style score fusion, not reciprocal-rank fusion: reciprocal ranks throw
away how far apart two tools are, and measured on real catalogs they made paraphrase recall
worse than either signal alone. The fused score of a tool is

    score = cosine + lexical_weight * (lexical score / best lexical score for this query)
                   + identifier_weight * identifier_score

so semantic similarity carries paraphrases, lexical evidence breaks ties and lifts exact names.

The no-route decision uses the same two signals. A tool is a candidate only with evidence:
lexical identifier evidence that the semantic side does not contradict (`hybrid_agree`), or a
cosine above a floor (`semantic_match`). Among those, the fused score must reach `min_score`,
unless one signal alone is very strong (`lexical_strong`, `semantic_strong`). A
`RetrievalAbstentionPolicy.min_score` replaces the default threshold, so `calibrate(...)`
tunes the fused decision exactly as it tunes the lexical one.
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

__all__ = ["HybridPolicy", "HybridRetriever", "LexicalRetriever"]

SEMANTIC_FIELD = "semantic"
"""`Signal.field` of the semantic similarity signal on a hybrid candidate."""


class LexicalRetriever(Protocol):
    """What the hybrid needs from the lexical side: a catalog and a ranked retrieval."""

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

    Defaults were chosen on the tuning half of the development data (MetaTool routing and
    its abstention set) and reported on the other half; see `benchmarks/hybrid.py`.
    """

    lexical_weight: float = 0.1
    """Weight of the lexical score, relative to the best lexical score for the query."""
    identifier_weight: float = 0.2
    """Weight of the bounded identifier score (rare query terms naming the tool)."""
    agree_cosine: float = 0.1
    """Least cosine for a tool that has lexical identifier evidence (the signals agree)."""
    semantic_floor: float = 0.2
    """Least cosine for a tool with no lexical identifier evidence."""
    strong_cosine: float = 0.6
    """Cosine at which semantic similarity alone routes a tool, whatever `min_score` says."""
    strong_identifier: float = 0.6
    """Identifier score at which lexical evidence alone routes a tool, whatever `min_score` says."""
    min_score: float = 0.3
    """Fused-score threshold used when no `RetrievalAbstentionPolicy` is given."""
    semantic_depth: int = 20
    """How many best tools of each signal (lexical and semantic) compete in the fusion."""

    def __post_init__(self) -> None:
        if self.lexical_weight < 0 or self.identifier_weight < 0:
            raise UserError("hybrid weights must be >= 0")
        cosines = (self.agree_cosine, self.semantic_floor, self.strong_cosine)
        if not all(-1.0 <= c <= 1.0 for c in cosines):
            raise UserError("hybrid cosine thresholds must lie in [-1, 1]")
        if not 0.0 < self.strong_identifier <= 1.0:
            raise UserError("strong_identifier must lie in (0, 1]")
        if self.semantic_depth < 1:
            raise UserError("semantic_depth must be >= 1")

    def evidence(self, cosine: float, identifier_score: float) -> str:
        """Which signals back a tool: a `Candidate.reason`, or `weak_evidence` when none do."""
        if identifier_score >= self.strong_identifier:
            return "lexical_strong"
        if cosine >= self.strong_cosine:
            return "semantic_strong"
        if identifier_score > 0 and cosine >= self.agree_cosine:
            return "hybrid_agree"
        if cosine >= self.semantic_floor:
            return "semantic_match"
        return "weak_evidence"


_BYPASS_MIN_SCORE = frozenset({"preferred_route", "lexical_strong", "semantic_strong"})


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

    def _semantic_pool(self, sims: NDArray[np.float32], depth: int) -> list[int]:
        import numpy as np

        depth = min(depth, int(sims.shape[0]))
        if depth <= 0:
            return []
        if depth >= sims.shape[0]:
            return list(range(int(sims.shape[0])))
        top: NDArray[np.intp] = np.argpartition(-sims, depth - 1)[:depth]
        return [int(i) for i in top.tolist()]

    def retrieve(
        self,
        query: str,
        k: int,
        policy: RetrievalAbstentionPolicy | None = None,
        preferred_route: str | None = None,
    ) -> Retrieval:
        hp = self.policy
        depth = max(k, hp.semantic_depth)
        lexical = self.lexical.retrieve(query, depth, None, preferred_route)
        # Only the best `depth` tools of each signal compete; the rest cannot reach the top.
        lex_top = heapq.nsmallest(
            depth, (*lexical.candidates, *lexical.dropped), key=lambda c: (-c.score, c.route)
        )
        lex_by_route = {c.route: c for c in lex_top}
        best_lex = lex_top[0].score if lex_top else 0.0
        sims = self.semantic.similarities(query)
        routes = self.semantic.routes
        pool = set(lex_by_route)
        pool.update(routes[i] for i in self._semantic_pool(sims, depth))
        if preferred_route is not None and preferred_route in self._caps:
            pool.add(preferred_route)

        position = self.semantic.position
        scored: list[tuple[float, str, float, Candidate | None]] = []
        for route in pool:
            cosine = round(float(sims[position[route]]), 6)
            lex = lex_by_route.get(route)
            if lex is None:
                fused = cosine
            else:
                lex_rel = lex.score / best_lex if best_lex > 0 else 0.0
                fused = round(
                    cosine + hp.lexical_weight * lex_rel + hp.identifier_weight * lex.identifier_score, 6
                )
            scored.append((fused, route, cosine, lex))
        scored.sort(key=lambda item: (-item[0], item[1]))

        min_score = policy.min_score if policy is not None else hp.min_score
        kept: list[Candidate] = []
        dropped: list[Candidate] = []
        for fused, route, cosine, lex in scored:
            ident = lex.identifier_score if lex is not None else 0.0
            reason = "preferred_route" if route == preferred_route else hp.evidence(cosine, ident)
            if reason not in _BYPASS_MIN_SCORE and reason != "weak_evidence" and fused < min_score:
                reason = "below_min_score"
            passes = reason not in ("weak_evidence", "below_min_score")
            keep = passes and len(kept) < k
            cap = self._caps[route]
            signals = (*(lex.signals if lex is not None else ()), Signal("", SEMANTIC_FIELD, cosine))
            cand = Candidate(
                route=route,
                name=cap.name,
                source=cap.source,
                score=fused,
                identifier_score=ident,
                signals=signals,
                kept=keep,
                reason=reason if keep or not passes else "beyond_k",
            )
            (kept if keep else dropped).append(cand)
        if kept:
            reason = "routed"
        elif not scored:
            reason = "no_terms_matched"
        else:
            reason = "gate_refused_all"
        return Retrieval(query, k, self.catalog.version, tuple(kept), tuple(dropped), not kept, reason)
