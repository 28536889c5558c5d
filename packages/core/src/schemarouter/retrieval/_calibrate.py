"""Choosing the abstention threshold from labelled queries, and saying what it costs.

`calibrate` splits the labelled queries in two halves (deterministically, by `seed`),
picks on the tuning half the highest `min_score` whose over-rejection of supported
queries stays within the target, and reports on the held-out half: over-rejection,
false acceptance of unsupported queries, recall@k of the gold tools, and the whole
trade-off curve. The result plugs straight into `Visibility(abstention=report.policy)`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from .._defaults import DEFAULT_K
from ..catalog._catalog import Catalog
from ..errors import UserError, require_k
from ._abstention import RetrievalAbstentionPolicy
from ._results import Retrieval

__all__ = ["CalibrationPoint", "CalibrationReport", "calibrate"]

_CURVE_POINTS = 41
_SEARCH_DEPTH = 4


class _Retriever(Protocol):
    @property
    def catalog(self) -> Catalog: ...

    def retrieve(
        self,
        query: str,
        k: int = DEFAULT_K,
        *,
        policy: RetrievalAbstentionPolicy | None = None,
        preferred_route: str | None = None,
        explain: bool = True,
    ) -> Retrieval: ...


@dataclass(frozen=True, slots=True)
class CalibrationPoint:
    """Held-out outcome of one threshold."""

    threshold: float
    over_rejection: float
    """Share of supported queries that got no route."""
    false_acceptance: float
    """Share of unsupported queries that got a route."""
    recall_at_k: float
    """Mean share of a supported query's gold tools inside its allow-set."""


@dataclass(frozen=True, slots=True)
class CalibrationReport:
    """The chosen threshold and what it implies on data it was not chosen on."""

    threshold: float
    k: int
    target_over_rejection: float
    seed: int
    tuning_supported: int
    tuning_unsupported: int
    heldout_supported: int
    heldout_unsupported: int
    tuning_over_rejection: float
    """Over-rejection at `threshold` on the half it was chosen on; above the target when the
    gate alone already refuses more supported queries than the target allows (see `target_met`)."""
    over_rejection: float
    """Held-out over-rejection at `threshold`."""
    false_acceptance: float
    """Held-out false acceptance at `threshold`."""
    recall_at_k: float
    """Held-out recall@k of the gold tools at `threshold`."""
    gate_only: CalibrationPoint
    """Held-out outcome of the no-route gate alone (threshold 0)."""
    curve: tuple[CalibrationPoint, ...]
    """Held-out trade-off, by increasing threshold."""

    @property
    def policy(self) -> RetrievalAbstentionPolicy:
        """The calibrated policy: `Visibility(router, k=..., abstention=report.policy)`."""
        return RetrievalAbstentionPolicy(min_score=self.threshold)

    @property
    def target_met(self) -> bool:
        """Did the threshold keep over-rejection within the target on the tuning half? When not,
        no threshold could: the gate alone refuses too many supported queries, and the
        threshold is 0 (the gate's own decision)."""
        return self.tuning_over_rejection <= self.target_over_rejection

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "target_met": self.target_met}


@dataclass(frozen=True, slots=True)
class _Scored:
    """For one query: the (score, is-gold) of the tools the gate keeps, best ranked first."""

    kept: tuple[tuple[float, bool], ...]
    gold: int


def _score(router: _Retriever, query: str, gold: frozenset[str], k: int) -> _Scored:
    retrieval = router.retrieve(query, k * _SEARCH_DEPTH, explain=False)  # scores suffice
    kept = tuple((c.score, c.route in gold or c.name in gold) for c in retrieval.candidates)
    return _Scored(kept, len(gold))


def _outcome(scored: _Scored, threshold: float, k: int) -> tuple[bool, float]:
    """(routed?, share of gold tools in the allow-set) under `threshold`."""
    shown = [is_gold for score, is_gold in scored.kept if score >= threshold][:k]
    recall = (sum(shown) / scored.gold) if scored.gold else 0.0
    return bool(shown), min(recall, 1.0)


def _point(
    supported: Sequence[_Scored], unsupported: Sequence[_Scored], threshold: float, k: int
) -> CalibrationPoint:
    routed = [_outcome(s, threshold, k) for s in supported]
    accepted = sum(_outcome(s, threshold, k)[0] for s in unsupported)
    return CalibrationPoint(
        threshold=round(threshold, 6),
        over_rejection=sum(not ok for ok, _ in routed) / len(routed),
        false_acceptance=accepted / len(unsupported),
        recall_at_k=sum(r for _, r in routed) / len(routed),
    )


def _best_score(scored: _Scored) -> float:
    return max((score for score, _ in scored.kept), default=0.0)


def _choose(supported: Sequence[_Scored], target: float) -> float:
    """Highest threshold whose over-rejection on `supported` stays within `target`."""
    best = sorted(_best_score(s) for s in supported)
    allowed = math.floor(target * len(best) + 1e-9)
    return best[allowed] if allowed < len(best) else best[-1]


def _halves(items: Sequence[Any], rng: random.Random) -> tuple[list[Any], list[Any]]:
    order = list(range(len(items)))
    rng.shuffle(order)
    middle = len(order) // 2
    return [items[i] for i in sorted(order[:middle])], [items[i] for i in sorted(order[middle:])]


def calibrate(
    router: _Retriever,
    supported: Iterable[tuple[str, Iterable[str]]],
    unsupported: Iterable[str],
    *,
    k: int = DEFAULT_K,
    target_over_rejection: float = 0.05,
    seed: int = 0,
) -> CalibrationReport:
    """Pick `min_score` on half the labelled queries; report its effect on the other half.

    `supported` pairs a query with the routes or tool names that answer it; `unsupported`
    queries should get no route. The split is deterministic for a given `seed`.
    """
    require_k(k)
    if not 0.0 <= target_over_rejection < 1.0:
        raise UserError("target_over_rejection must be in [0, 1)")
    labelled = [(str(q), frozenset([g]) if isinstance(g, str) else frozenset(g)) for q, g in supported]
    negatives = [str(q) for q in unsupported]
    if len(labelled) < 2 or len(negatives) < 2:
        raise UserError("calibration needs at least 2 supported and 2 unsupported queries")
    if any(not gold for _, gold in labelled):
        raise UserError("every supported query needs at least one gold route or tool name")
    unknown = router.catalog.unknown(name for _, gold in labelled for name in gold)
    if unknown:
        shown = ", ".join(map(repr, unknown[:5])) + (
            f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        )
        raise UserError(f"gold labels name no tool or route of the catalog: {shown}")
    rng = random.Random(seed)
    tune_pos, held_pos = _halves([_score(router, q, g, k) for q, g in labelled], rng)
    tune_neg, held_neg = _halves([_score(router, q, frozenset(), k) for q in negatives], rng)
    threshold = _choose(tune_pos, target_over_rejection)
    chosen = _point(held_pos, held_neg, threshold, k)
    values = sorted({0.0, threshold, *(_best_score(s) for s in (*held_pos, *held_neg))})
    if len(values) > _CURVE_POINTS:
        step = (len(values) - 1) / (_CURVE_POINTS - 1)
        values = sorted({values[round(i * step)] for i in range(_CURVE_POINTS)} | {threshold})
    return CalibrationReport(
        threshold=round(threshold, 6),
        k=k,
        target_over_rejection=target_over_rejection,
        seed=seed,
        tuning_supported=len(tune_pos),
        tuning_unsupported=len(tune_neg),
        heldout_supported=len(held_pos),
        heldout_unsupported=len(held_neg),
        tuning_over_rejection=_point(tune_pos, tune_neg, threshold, k).over_rejection,
        over_rejection=chosen.over_rejection,
        false_acceptance=chosen.false_acceptance,
        recall_at_k=chosen.recall_at_k,
        gate_only=_point(held_pos, held_neg, 0.0, k),
        curve=tuple(_point(held_pos, held_neg, value, k) for value in values),
    )
