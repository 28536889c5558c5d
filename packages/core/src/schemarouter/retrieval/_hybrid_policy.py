"""`HybridPolicy`: how hybrid retrieval fuses the lexical and the semantic signal, and how much
evidence a tool needs to be routed (see `_hybrid` for the fusion itself)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import UserError
from ._abstention import RetrievalAbstentionPolicy
from ._results import Candidate

__all__ = ["HybridPolicy", "require_hybrid_policy"]


@dataclass(frozen=True, slots=True)
class HybridPolicy:
    """How the two signals are fused, and how much evidence a tool needs to be routed.

    Weights were chosen on the `dev` halves of the development data (MetaTool routing and
    its Task1 abstention set, LiveMCPBench) and are reported on the held-out halves; see
    `benchmarks/hybrid.py`.
    """

    rank_weight: float = 0.2
    """Ranking: weight of the lexical rank score, relative to the best one for the query."""
    evidence_weight: float = 0.2
    """Ranking: weight of the bounded lexical evidence."""
    semantic_place_weight: float = 0.8
    """Ranking: weight of 1 / the tool's place in the semantic ranking (1 for the closest tool)."""
    lexical_place_weight: float = 0.2
    """Ranking: weight of 1 / the tool's place in the lexical ranking."""
    gate_weight: float = 0.2
    """Ranking: added when the lexical gate keeps the tool."""
    action_power: float = 1.0
    """Ranking: how many times the lexical side's action factor (`IndexSettings.action_weight`:
    how well a named tool's action agrees with the request's) scales the fused rank of that
    tool. The semantic side reads "show me my subscriptions" close to a `get` as to a `list`;
    the action tells the siblings apart (0 turns it off)."""
    lexical_weight: float = 0.5
    """Abstention: weight of the bounded lexical evidence next to the cosine."""
    min_confidence: float = 0.3
    """Abstention: least `Candidate.score` for a route, before any calibrated `min_score`.

    In [0, 1 + lexical_weight], the range of the fused score. Deliberately permissive (a
    cosine of 0.3 alone routes): hiding a needed tool costs more
    than showing an extra one. Raise it with `calibrate(...)` on your own labelled queries.
    """
    agree_cosine: float = 0.1
    """Least cosine for a tool with identifier evidence that the lexical gate refused; in (0, 1]."""
    semantic_floor: float = 0.2
    """Least cosine for a tool with no lexical evidence; in (0, 1] (a cosine of 0, an unrelated
    tool or a zero vector, is never evidence)."""
    uncertain_cosine: float = 0.2
    """Least cosine for a tool with no lexical evidence to be offered in an uncertain outcome
    (when no tool earns a route); in (0, 1]. See `RetrievalAbstentionPolicy.uncertain_tools`."""
    depth: int = 20
    """How many best tools of each signal (lexical and semantic) compete in the fusion, and get
    a place. The lexical side is always asked for this many, whatever `k` is, so that the
    ranking does not depend on `k`; for a `k` above it, only the semantic side's next best
    tools (with no place) fill the rest: raise it with such a `k`."""
    clause_weight: float = 0.5
    """Ranking, for a request of several sentences or steps: each tool's cosine moves this far
    from the whole request's towards its best clause's (see `clauses`), so that every part of a
    request that asks for several things brings its own tools. The no-route decision always
    reads the whole request's cosine. 0 = whole request only (and no clause is encoded)."""
    lead_identifier: float = 0.5
    """Ranking: when the lexical side's first tool has at least this identifier evidence
    (`Candidate.identifier_score`: a request word names it) and leads the lexical runner-up by
    `lead_margin`, it is the fused ranking's first tool too. Where a request names a tool, the
    lexical side is right more often than the semantic side (see docs/hybrid.md); above 1, never."""
    lead_margin: float = 0.2
    """Ranking: the share by which the lexical first tool's ranking score must exceed the
    lexical runner-up's for it to lead (see `lead_identifier`); in [0, 1]."""
    lead_lexical_gap: float = 0.3
    """Ranking: the lexical first tool also leads when the fused first tool's lexical ranking
    score falls short of its own by at least this share (1 when the lexical side does not rank
    it) and the request points towards the fused first tool by less than `lead_semantic_pull`;
    in [0, 1]."""
    lead_semantic_pull: float = 0.075
    """Ranking: how far the request may point from the lexical first tool towards the fused
    first tool (the difference of their cosines over the distance between the two tool vectors)
    for the lexical first tool still to lead (see `lead_lexical_gap`); in [0, 1], 0 turns this
    case off."""

    def __post_init__(self) -> None:
        # Typed float / int, but any object can be passed at run time. Every check fails at
        # setup: a NaN floor would compare False with every score and turn the floor off.
        for field in _WEIGHTS:
            value = _number(self, field)
            if not (math.isfinite(value) and value >= 0.0):
                raise UserError(f"hybrid weights must be finite numbers >= 0, got {field}={value!r}")
        for field in ("agree_cosine", "semantic_floor", "uncertain_cosine"):
            value = _number(self, field)
            if not (math.isfinite(value) and 0.0 < value <= 1.0):
                # 0 or below would count an unrelated (orthogonal) tool as semantic evidence
                raise UserError(f"hybrid cosine thresholds must lie in (0, 1], got {field}={value!r}")
        top = 1.0 + self.lexical_weight  # the highest fused score: cosine 1 and evidence 1
        confidence = _number(self, "min_confidence")
        if not (math.isfinite(confidence) and 0.0 <= confidence <= top):
            raise UserError(
                f"min_confidence must lie in [0, 1 + lexical_weight] = [0, {top:g}], the range of "
                f"the fused score, got {confidence!r}"
            )
        for field in ("clause_weight", "lead_margin", "lead_lexical_gap", "lead_semantic_pull"):
            value = _number(self, field)
            if not (math.isfinite(value) and 0.0 <= value <= 1.0):
                raise UserError(f"{field} must lie in [0, 1], got {value!r}")
        lead = _number(self, "lead_identifier")
        if not (math.isfinite(lead) and lead >= 0.0):
            raise UserError(f"lead_identifier must be a finite number >= 0, got {lead!r}")
        depth = self.depth
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"depth must be an int >= 1, got {depth!r}")

    def weakly_evident(self, cosine: float, lexical: Candidate | None, semantic: bool = True) -> bool:
        """Does a tool refused a route have weak evidence, so that an uncertain outcome may offer
        it: a request word names it (identifier evidence), the lexical side offers it as
        uncertain, or its cosine reaches `uncertain_cosine` (only for a request the encoder
        reads)."""
        if lexical is not None and (lexical.identifier_score > 0.0 or lexical.reason == "uncertain"):
            return True
        return semantic and cosine >= self.uncertain_cosine

    def evidence(self, cosine: float, lexical: Candidate | None, semantic: bool = True) -> str:
        """Which signals make a tool worth considering: a `Candidate.reason`, or `weak_evidence`.

        Without `semantic` (a request the encoder does not read, see `TextEncoder`), the cosine
        is no evidence: only the lexical gate keeps a tool."""
        if not semantic:
            return "lexical_gate" if lexical is not None and lexical.kept else "weak_evidence"
        if lexical is not None and lexical.kept:
            return "lexical_gate" if cosine < self.semantic_floor else "hybrid_agree"
        if lexical is not None and lexical.identifier_score > 0 and cosine >= self.agree_cosine:
            return "hybrid_agree"
        if cosine >= self.semantic_floor:
            return "semantic_match"
        return "weak_evidence"


_WEIGHTS = (
    "action_power",
    "rank_weight",
    "evidence_weight",
    "semantic_place_weight",
    "lexical_place_weight",
    "gate_weight",
    "lexical_weight",
)


def _number(policy: HybridPolicy, field: str) -> float:
    """`policy.field` as a float; a `UserError` for a bool, a string, None or any non-number."""
    value: object = getattr(policy, field)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UserError(f"HybridPolicy.{field} must be a number, got {type(value).__name__}")
    return float(value)


def require_hybrid_policy(policy: object) -> HybridPolicy | None:
    """`policy` if it is None or a `HybridPolicy`; a `UserError` naming the expected type otherwise
    (an abstention policy or a calibration report is a likely slip)."""
    if policy is None or isinstance(policy, HybridPolicy):
        return policy
    hint = (
        " (a RetrievalAbstentionPolicy goes to Visibility(abstention=...) or retrieve(abstention=...))"
        if isinstance(policy, RetrievalAbstentionPolicy) or hasattr(policy, "policy")
        else ""
    )
    raise UserError(f"the hybrid policy must be a HybridPolicy or None, got {type(policy).__name__}{hint}")
