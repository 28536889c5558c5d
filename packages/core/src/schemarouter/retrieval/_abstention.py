"""Abstention policy: when a ranked candidate is good enough to be routed."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import UserError

__all__ = ["RetrievalAbstentionPolicy", "require_policy"]


@dataclass(frozen=True, slots=True)
class RetrievalAbstentionPolicy:
    """Thresholds on top of the no-route gate.

    `min_score`: a candidate whose relevance score is below it is dropped
    (`below_min_score`). Choose it with `calibrate(...)`, not by hand.
    """

    min_score: float = 0.0

    def __post_init__(self) -> None:
        value = self.min_score  # typed float, but any object can be passed at run time
        if isinstance(value, bool) or not isinstance(value, int | float):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"min_score must be a number, got {type(value).__name__}")
        if not (math.isfinite(value) and value >= 0.0):  # NaN would turn abstention off
            raise UserError(f"min_score must be a finite number >= 0, got {value}")


def require_policy(policy: object, what: str = "abstention") -> RetrievalAbstentionPolicy | None:
    """`policy` if it is None or a `RetrievalAbstentionPolicy`; a `UserError` otherwise (a
    calibration report is a common slip: its `.policy` is the policy)."""
    if policy is None or isinstance(policy, RetrievalAbstentionPolicy):
        return policy
    hint = " (pass the report's .policy)" if hasattr(policy, "policy") else ""
    raise UserError(f"{what} must be a RetrievalAbstentionPolicy or None, got {type(policy).__name__}{hint}")
