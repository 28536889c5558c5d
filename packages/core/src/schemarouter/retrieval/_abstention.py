"""Abstention policy: when a ranked candidate is good enough to be routed."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import UserError

__all__ = [
    "DEFAULT_ABSTENTION",
    "DEFAULT_RUNNER_UPS",
    "DEFAULT_UNCERTAIN_TOOLS",
    "RetrievalAbstentionPolicy",
    "require_policy",
]

DEFAULT_UNCERTAIN_TOOLS = 3
"""Tools offered, best first, when a request has only weak evidence (the `uncertain` outcome)."""

DEFAULT_RUNNER_UPS = 0
"""Tools with weak evidence offered after a confident route of fewer than k tools."""


@dataclass(frozen=True, slots=True)
class RetrievalAbstentionPolicy:
    """What the no-route gate's verdicts become: a confident route, an uncertain offer, or no route.

    `min_score`: a candidate whose routing score is below it is not routed (`below_min_score`).
    Choose it with `calibrate(...)`, not by hand.

    `uncertain_tools`: when no tool earns a confident route but some have weak evidence (a
    request word hits them, the semantic side finds them close, or their score is under
    `min_score`), up to this many of them, best first, are offered anyway: the `uncertain`
    outcome (`Retrieval.uncertain`, `AllowSet.outcome`). Hiding a tool that fits costs a user
    the task; showing three that might costs a few hundred bytes of prompt. No route is left
    for requests with no evidence for any tool. 0 turns the uncertain outcome off: weak
    evidence is then no route, as before 0.1.

    `runner_ups`: when some tools earn a confident route but fewer than k, up to this many
    further tools with weak evidence (as above), best first, are offered after them, marked
    `uncertain` (`Retrieval.uncertain`; the outcome stays `route`). A confident route can
    be the wrong tool; a runner-up lets the model reach the tool the gate was unsure of, for
    one tool's schema more. The selective execution boundary runs none of them. 0 offers the
    confident tools alone.
    """

    min_score: float = 0.0
    uncertain_tools: int = DEFAULT_UNCERTAIN_TOOLS
    runner_ups: int = DEFAULT_RUNNER_UPS

    def __post_init__(self) -> None:
        value = self.min_score  # typed float, but any object can be passed at run time
        if isinstance(value, bool) or not isinstance(value, int | float):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"min_score must be a number, got {type(value).__name__}")
        if not (math.isfinite(value) and value >= 0.0):  # NaN would turn abstention off
            raise UserError(f"min_score must be a finite number >= 0, got {value}")
        for name in ("uncertain_tools", "runner_ups"):
            count = getattr(self, name)
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise UserError(f"{name} must be an int >= 0, got {count!r}")


DEFAULT_ABSTENTION = RetrievalAbstentionPolicy()
"""The policy of a retrieval given none: no threshold, uncertain outcome on."""


def require_policy(policy: object, what: str = "abstention") -> RetrievalAbstentionPolicy | None:
    """`policy` if it is None or a `RetrievalAbstentionPolicy`; a `UserError` otherwise (a
    calibration report is a common slip: its `.policy` is the policy)."""
    if policy is None or isinstance(policy, RetrievalAbstentionPolicy):
        return policy
    hint = " (pass the report's .policy)" if hasattr(policy, "policy") else ""
    raise UserError(f"{what} must be a RetrievalAbstentionPolicy or None, got {type(policy).__name__}{hint}")
