"""Hybrid retrieval: the lexical index fused with a semantic scorer, ranking and abstention together.

Ranking and the no-route decision use the same two signals, but not the same number:

- **Ranking** (`Candidate.rank_score`) fuses scores and places. Scores keep how far apart
  two tools are; places (the tool's position in each signal's own ranking, as a reciprocal)
  make sure each signal's best few tools compete even when the other signal disagrees:

      rank = cosine + rank_weight * (lexical rank score / best lexical rank score)
                    + evidence_weight * lexical evidence
                    + semantic_place_weight / semantic place + lexical_place_weight / lexical place
                    + gate_weight * (1 if the lexical gate keeps the tool)

  Places count from 1 within the best `depth` tools of each signal; past that a place adds
  nothing. (Reciprocal ranks alone measured worse than either signal on real catalogs.) The
  first place may then go to the lexical side's first tool, where that side has read the
  request better (`_hybrid_lead`).

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
from collections.abc import Mapping
from dataclasses import replace
from operator import itemgetter
from typing import Any, Protocol, cast

from ..catalog._capability import Capability
from ..catalog._catalog import Catalog
from ..errors import UserError
from ._abstention import DEFAULT_ABSTENTION, RetrievalAbstentionPolicy
from ._gate import runner_up_count, uncertain_count
from ._hybrid_lead import LEAD_STEP, lexical_lead, semantic_pull
from ._hybrid_policy import HybridPolicy, require_hybrid_policy
from ._offered import Offered, offered_from
from ._results import Candidate, Retrieval, RouteReason, Signal
from ._semantic import SemanticIndex, encoder_reads

__all__ = [
    "MAX_ENCODED_CHARS",
    "SEMANTIC_FIELD",
    "HybridPolicy",
    "HybridRetriever",
    "LexicalRetriever",
    "require_hybrid_policy",
]

SEMANTIC_FIELD = "semantic"
"""`Signal.field` of the semantic similarity signal on a hybrid candidate."""


class LexicalRetriever(Protocol):
    """What the hybrid needs from the lexical side: a catalog and a gated, ranked retrieval.

    Optionally, `corrected_text(query) -> str` gives the request with misspelt words replaced
    by what the lexical side reads them as (the lexical index has it); the semantic side then
    encodes that text. Without it, the request is encoded as written. Optionally,
    `action_factors(query) -> dict[int, float]` gives the factor by which the request's action
    scales each tool it names (tool positions in route order; see `LexicalGate.action_factors`):
    the fused ranking scales those tools alike. And optionally,
    `content_factors(routes) -> list[float]` gives what each descriptive word of each tool is
    worth (below 1 for a tool that lists far more words than a focused one); a broad tool's
    cosine is scaled by it.
    """

    @property
    def catalog(self) -> Catalog: ...

    def retrieve(
        self,
        query: str,
        k: int,
        policy: RetrievalAbstentionPolicy | None = None,
        preferred_route: str | None = None,
        explain: bool = True,
    ) -> Retrieval:
        """Kept and reported tools with scores and reasons; `explain=False` may leave out signals."""
        ...


MAX_ENCODED_CHARS = 32_768
"""The semantic side encodes at most this many first characters of a request (the lexical side
weighs its first 64 content words). The longest request of the development data has 18,686
(a LiveMCPBench task with an image pasted in as base64), so no measured request is cut; a
request of 1.6 MB took 5 to 7 s in hybrid mode before, 3.2 s of it in the tokenizer."""

_REPORTED_DROPPED = 10
"""Refused tools reported with their reasons, best ranked first (`Retrieval.matched` counts all)."""


_Scored = tuple[float, str, float, float, Candidate | None]
"""One competing tool: (-rank, route, score, cosine, its lexical candidate if any)."""

_LEXICAL_SIDE = RetrievalAbstentionPolicy(offer="gated")
"""What the lexical side is asked with: its gate's own verdicts (which tools it keeps, which it
finds weakly evident), which the fusion reads; never an offer filled from its ranking."""


def _evident(hp: HybridPolicy, cosine: float, lexical: Candidate | None, read: bool) -> bool:
    """May a tool fill an offer (or a find-tools result) from the ranking: lexical gate evidence
    (a request word hits it), weak evidence as the uncertain outcome reads it (see
    `HybridPolicy.weakly_evident`), or, for a request the encoder reads, a cosine of at least
    `agree_cosine`. A tool that is only among the semantically closest, under that, has none
    (why `agree_cosine`: docs/decisions.md, "Hybrid offers fill with what find-tools already
    reaches")."""
    if (lexical is not None and lexical.score > 0.0) or hp.weakly_evident(cosine, lexical, read):
        return True
    return read and cosine >= hp.agree_cosine


def _outcome(
    kept: list[Candidate],
    uncertain: list[Candidate],
    dropped: list[Candidate],
    matched: int,
    lexical_reason: RouteReason,
) -> RouteReason:
    """What the request came to: routed, only uncertain tools (weak evidence), or why nothing."""
    if kept:
        return "routed"
    if uncertain:
        return "weak_evidence"
    if lexical_reason == "no_content_words":
        return "no_content_words"
    if not matched:
        return "no_terms_matched"
    if any(c.reason == "below_min_score" for c in dropped):
        return "below_min_score"
    return "gate_refused_all"


def _candidate(
    cap: Capability,
    score: float,
    cosine: float,
    lexical: Candidate | None,
    explain: bool,
    kept: bool,
    reason: str,
    rank_score: float,
) -> Candidate:
    """One fused candidate: the lexical side's signals (if any) and its cosine as a signal."""
    return Candidate(
        route=cap.route,
        name=cap.name,
        source=cap.source,
        score=score,
        identifier_score=lexical.identifier_score if lexical is not None else 0.0,
        signals=(
            (*(lexical.signals if lexical is not None else ()), Signal("", SEMANTIC_FIELD, cosine))
            if explain
            else ()
        ),
        kept=kept,
        reason=reason,
        rank_score=rank_score,
    )


def _lexical_order(c: Candidate) -> tuple[float, float, str]:
    """The lexical ranking: best rank score first, then best evidence, then route."""
    return (-c.rank_score, -c.score, c.route)


_order = itemgetter(0, 1)
"""Best rank first; ties broken by route (routes are unique)."""


def _broad_tools(lexical: LexicalRetriever, routes: tuple[str, ...]) -> tuple[Any, Any]:
    """The positions (in `routes`) of the tools the lexical side counts as broad, and what each
    of their descriptive words is worth there (see `LexicalGate.content_factors`); none when the
    lexical side does not say."""
    import numpy as np

    factors_of = getattr(lexical, "content_factors", None)
    if not callable(factors_of):
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32)
    factors = np.asarray(factors_of(routes), dtype=np.float32)
    broad = np.flatnonzero(factors < 1.0)
    return broad, factors[broad]


class HybridRetriever:
    """Same `retrieve` contract as the lexical index, over one catalog version.

    Deterministic: the same catalog, encoder, query and policy give the same candidates in
    the same order (ties broken by route). Side-effect free. Per request the semantic side
    is one encode and one matrix-vector product; only the few tools that compete (the best
    `depth` of each signal) are looked at one by one.
    """

    def __init__(
        self, lexical: LexicalRetriever, semantic: SemanticIndex, policy: HybridPolicy | None = None
    ) -> None:
        if semantic.catalog.version != lexical.catalog.version:
            raise UserError("the lexical and semantic indexes were built for different catalog versions")
        self.lexical = lexical
        self.semantic = semantic
        self.policy = require_hybrid_policy(policy) or HybridPolicy()
        self.catalog = lexical.catalog
        self._caps = {cap.route: cap for cap in lexical.catalog}
        self._broad, self._broad_factors = _broad_tools(lexical, semantic.routes)
        broad: list[int] = self._broad.tolist()
        self._broad_routes: frozenset[str] = frozenset(semantic.routes[i] for i in broad)

    @property
    def encoder_name(self) -> str:
        return self.semantic.encoder_name

    def unencoded_chars(self, query: str) -> int:
        """How many characters at the end of `query` the encoder does not read (past the first
        `MAX_ENCODED_CHARS`); 0 for almost every request, so that callers can say so."""
        return max(0, len(query) - MAX_ENCODED_CHARS)

    def _score(
        self, query: str, k: int, preferred_route: str | None, explain: bool
    ) -> tuple[list[_Scored], RouteReason, bool]:
        """The competing tools, best ranked first, the lexical side's reason, and whether the
        encoder reads the request (see `TextEncoder`)."""
        import numpy as np

        hp = self.policy
        depth = hp.depth
        # The lexical side is asked for its best `depth` tools whatever k is, so that the gate's
        # verdicts and places the fusion reads do not depend on k: the allow-set at k is then
        # the first k of a longer one (a gate capped at k would hand its bonus to other tools).
        lexical = self.lexical.retrieve(query, depth, _LEXICAL_SIDE, preferred_route, explain)
        reported = (*lexical.candidates, *lexical.uncertain, *lexical.dropped)
        # Only the best `depth` tools of each signal compete; the rest cannot reach the top.
        lex_top = heapq.nsmallest(depth, reported, key=_lexical_order)
        position = self.semantic.position
        routes = self.semantic.routes
        # the semantic side reads a misspelt word as the lexical side does ("wheather": weather),
        # and only the first MAX_ENCODED_CHARS characters (a megabyte took seconds to tokenise)
        head = query[:MAX_ENCODED_CHARS]
        if not head.isascii():  # a lone surrogate (JSON's "\ud800") is no text an encoder can read
            head = head.encode("utf-8", "replace").decode("utf-8")
        corrected_text = getattr(self.lexical, "corrected_text", None)
        text = str(corrected_text(head)) if callable(corrected_text) else head
        if hp.clause_weight > 0.0:
            sims, by_clause = self.semantic.clause_similarities(text)
        else:
            sims, by_clause = self.semantic.similarities(text), None
        if self._broad.size:
            # the cosine of a tool listing thousands of words is that of everyday English with any
            # request: it counts as much as the lexical side lets each of its words count
            sims[self._broad] *= self._broad_factors
            if by_clause is not None:
                by_clause[self._broad] *= self._broad_factors
        # A request the encoder does not read, or whose vector is zero (every cosine 0), gives
        # no semantic evidence: only the lexical gate keeps tools. A zero vector has no
        # semantic ranking either, so no tool joins the pool or gets a place through it.
        heard = bool(sims.any())
        read = encoder_reads(self.semantic.encoder, text) and heard
        # Ranking reads each tool's cosine with the whole request moved towards its best clause's;
        # the no-route decision reads the whole request's cosine alone.
        meaning = sims if by_clause is None else sims + hp.clause_weight * (by_clause - sims)
        size = int(sims.shape[0])
        # A k above depth needs more tools than depth: the semantic side's next best join the
        # pool with no place bonus, so they rank below every tool of its best `depth`.
        wanted = max(k, depth)
        sem_top: list[int] = list(range(size)) if heard else []
        if heard and wanted < size:
            # every tool at least as close as the wanted-th, ties included (in route order), so
            # that which of two equally close tools competes does not depend on k either
            least = np.partition(meaning, size - wanted)[size - wanted]
            sem_top = np.flatnonzero(meaning >= least).tolist()
        lex_at = {position[c.route]: c for c in lex_top}
        pool = dict.fromkeys(lex_at)
        pool.update(dict.fromkeys(sem_top))
        if preferred_route is not None and preferred_route in position:
            pool[position[preferred_route]] = None
        at = list(pool)
        cosines = [round(c, 6) for c in sims[at].tolist()]
        closeness = cosines if by_clause is None else [round(c, 6) for c in meaning[at].tolist()]
        closeness_of = dict(zip(at, closeness, strict=True))
        # places within each signal's own ranking, from 1; ties broken by route
        by_meaning = sorted(sem_top, key=lambda i: (-closeness_of[i], routes[i]))
        sem_place = {i: place for place, i in enumerate(by_meaning[:depth], 1)}
        lex_place = {i: place for place, i in enumerate(lex_at, 1)}
        action_factors = getattr(self.lexical, "action_factors", None)
        scale = cast("dict[int, float]", action_factors(text)) if callable(action_factors) else {}
        best_rank = max((c.rank_score for c in lex_top), default=0.0)
        best_evidence = max((c.score for c in lex_top), default=0.0)
        query_evidence = max(cosines, default=0.0) + hp.lexical_weight * best_evidence
        scored: list[_Scored] = []
        for i, cosine, close in zip(at, cosines, closeness, strict=True):
            lex = lex_at.get(i)
            place = sem_place.get(i)
            rank = close + (hp.semantic_place_weight / place if place is not None else 0.0)
            if lex is None:
                score = round((cosine + query_evidence) / 2, 6)
            else:
                evidence = lex.score
                rank_rel = lex.rank_score / best_rank if best_rank > 0 else 0.0
                rank += (
                    hp.rank_weight * rank_rel
                    + hp.evidence_weight * evidence
                    + hp.lexical_place_weight / lex_place[i]
                    + (hp.gate_weight if lex.kept else 0.0)
                )
                score = round((cosine + hp.lexical_weight * evidence + query_evidence) / 2, 6)
            if scale and i in scale:
                # the lexical side's factor for the two actions' agreement, `action_power` times
                rank *= scale[i] ** hp.action_power
            scored.append((-round(rank, 6), routes[i], score, cosine, lex))
        scored.sort(key=_order)
        vectors = self.semantic.vectors

        def pull(lexical_route: str, fused_route: str) -> float:
            """The request's pull from the lexical first tool towards the fused first one."""
            a, b = position[lexical_route], position[fused_route]
            distance = float(np.linalg.norm(vectors[b].astype(np.float64) - vectors[a]))
            return semantic_pull(closeness_of[a], closeness_of[b], distance)

        lead = lexical_lead(lex_top, scored[0][1] if scored else None, pull, hp)
        if lead is not None:
            # the lexical side's first tool leads the fused ranking (see `_hybrid_lead`)
            lead_at = next(j for j, row in enumerate(scored) if row[1] == lead)
            _, route, score, cosine, lex = scored.pop(lead_at)
            scored.insert(0, (round(scored[0][0] - LEAD_STEP, 6), route, score, cosine, lex))
        return scored, lexical.reason, read

    def offer(
        self,
        query: str,
        k: int,
        policy: RetrievalAbstentionPolicy | None,
        hidden_routes: Mapping[str, str],
    ) -> Offered:
        """What `query` is offered, the tools of `hidden_routes` aside (see `offered_from`)."""
        depth = min(k + len(hidden_routes), max(len(self.catalog), 1))  # the rules shrink no offer
        return offered_from(self.retrieve(query, max(depth, k), policy, explain=False), policy, hidden_routes)

    def retrieve(
        self,
        query: str,
        k: int,
        policy: RetrievalAbstentionPolicy | None = None,
        preferred_route: str | None = None,
        explain: bool = True,
    ) -> Retrieval:
        """Fused retrieval of `query`. With `explain=False` candidates carry no `signals` (scores,
        reasons and order are the same), which saves the lexical side's per-term signals."""
        hp = self.policy
        min_score = policy.min_score if policy is not None else 0.0
        offer = min(k, max(uncertain_count(policy), runner_up_count(policy, k, 1)))
        scored, lexical_reason, read = self._score(query, k, preferred_route, explain)
        if (policy if policy is not None else DEFAULT_ABSTENTION).fills():
            return self._filled(query, k, policy, preferred_route, explain, scored, lexical_reason, read)
        kept: list[Candidate] = []
        dropped: list[Candidate] = []
        weak: list[Candidate] = []  # refused, with some evidence: what an uncertain outcome offers
        for neg_rank, route, score, cosine, lex in scored:
            if len(kept) >= k and len(dropped) >= _REPORTED_DROPPED:
                break  # nothing further can be kept or reported (nor offered: tools are kept)
            cap = self._caps[route]
            if route == preferred_route:
                reason = "preferred_route"
            else:
                reason = hp.evidence(cosine, lex, read)
                if reason != "weak_evidence" and score < hp.min_confidence:
                    reason = "low_confidence"
                elif reason != "weak_evidence" and score < min_score:
                    reason = "below_min_score"
            passes = reason not in ("weak_evidence", "low_confidence", "below_min_score")
            keep = passes and len(kept) < k
            offerable = not passes and len(weak) < offer and hp.weakly_evident(cosine, lex, read)
            if not keep and not offerable and len(dropped) >= _REPORTED_DROPPED:
                continue
            shown = reason if keep or not passes else "beyond_k"
            cand = _candidate(cap, score, cosine, lex, explain, keep, shown, -neg_rank)
            if keep:
                kept.append(cand)
                continue
            if offerable:
                weak.append(cand)
            if len(dropped) < _REPORTED_DROPPED:
                dropped.append(cand)
        if kept:
            weak = weak[: runner_up_count(policy, k, len(kept))]
        else:
            weak = weak[: min(k, uncertain_count(policy))]
        outcome = _outcome(kept, weak, dropped, len(scored), lexical_reason)
        offered = {c.route for c in weak}
        dropped = [c for c in dropped if c.route not in offered]
        uncertain = [replace(c, reason="uncertain") for c in weak]
        return self._retrieval(query, k, kept, uncertain, dropped, outcome, len(scored))

    def _verdict(
        self,
        route: str,
        score: float,
        cosine: float,
        lex: Candidate | None,
        min_score: float,
        preferred_route: str | None,
        read: bool,
    ) -> tuple[str, bool]:
        """A tool's reason (as `retrieve` gives it to a refused tool) and whether it passes."""
        hp = self.policy
        if route == preferred_route:
            return "preferred_route", True
        reason = hp.evidence(cosine, lex, read)
        if reason != "weak_evidence" and score < hp.min_confidence:
            reason = "low_confidence"
        elif reason != "weak_evidence" and score < min_score:
            reason = "below_min_score"
        return reason, reason not in ("weak_evidence", "low_confidence", "below_min_score")

    def _filled(
        self,
        query: str,
        k: int,
        policy: RetrievalAbstentionPolicy | None,
        preferred_route: str | None,
        explain: bool,
        scored: list[_Scored],
        lexical_reason: RouteReason,
        read: bool,
    ) -> Retrieval:
        """The offer of a policy that fills it from the ranking (`RetrievalAbstentionPolicy.fills`):
        the tools that pass (at most `k`, best ranked first), then the best ranked tools with any
        evidence, `uncertain`, `k` in all; a broad tool (see `_broad_tools`) only when a request
        word names it, or for find-tools' search. With `offer="top_k"`, a request where no tool passes
        and none has weak evidence stays a no-route, as in the gated offer."""
        hp = self.policy
        min_score = policy.min_score if policy is not None else 0.0
        rule = policy if policy is not None else DEFAULT_ABSTENTION
        rows = [
            (item, *self._verdict(item[1], item[2], item[3], item[4], min_score, preferred_route, read))
            for item in scored
        ]
        offering = rule.offer == "search" or any(
            passes or hp.weakly_evident(item[3], item[4], read) for item, _, passes in rows
        )
        room = k - min(k, sum(passes for _, _, passes in rows)) if offering else 0
        searching = rule.offer == "search"
        kept: list[Candidate] = []
        uncertain: list[Candidate] = []
        dropped: list[Candidate] = []
        for (neg_rank, route, score, cosine, lex), reason, passes in rows:
            keep = passes and len(kept) < k
            evident = not passes and _evident(hp, cosine, lex, read)
            if evident and not searching and route in self._broad_routes:
                # a broad tool fills no offer unless a request word names it
                evident = lex is not None and lex.identifier_score > 0.0
            fill = evident and len(uncertain) < room
            if not keep and not fill and len(dropped) >= _REPORTED_DROPPED:
                if len(kept) >= min(k, len(rows)) and len(uncertain) >= room:
                    break
                continue
            cap = self._caps[route]
            if keep or fill:
                shown = reason if keep else "uncertain"
            else:
                shown = "beyond_k" if passes or (evident and offering) else reason
            cand = _candidate(cap, score, cosine, lex, explain, keep, shown, -neg_rank)
            (kept if keep else uncertain if fill else dropped).append(cand)
        outcome = _outcome(kept, uncertain, dropped, len(scored), lexical_reason)
        return self._retrieval(query, k, kept, uncertain, dropped, outcome, len(scored))

    def _retrieval(
        self,
        query: str,
        k: int,
        kept: list[Candidate],
        uncertain: list[Candidate],
        dropped: list[Candidate],
        outcome: RouteReason,
        matched: int,
    ) -> Retrieval:
        return Retrieval(
            query,
            k,
            self.catalog.version,
            tuple(kept),
            tuple(dropped),
            not kept and not uncertain,
            outcome,
            matched=matched,
            uncertain=tuple(uncertain),
        )
