"""Abstention policy: when a ranked candidate is good enough to be routed."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import UserError

__all__ = ["RetrievalAbstentionPolicy"]


@dataclass(frozen=True, slots=True)
class RetrievalAbstentionPolicy:
    """Thresholds on top of the no-route gate.

    `min_score`: a candidate whose relevance score is below it is dropped
    (`below_min_score`). Choose it with `calibrate(...)`, not by hand.
    """

    min_score: float = 0.0

    def __post_init__(self) -> None:
        if self.min_score < 0:
            raise UserError("min_score must be >= 0")
