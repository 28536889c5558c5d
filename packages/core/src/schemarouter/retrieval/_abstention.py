"""Abstention policy: when a ranked candidate is good enough to be routed."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

from ..errors import UserError

__all__ = [
    "DEFAULT_ABSTENTION",
    "DEFAULT_RUNNER_UPS",
    "DEFAULT_UNCERTAIN_TOOLS",
    "OfferRule",
    "RetrievalAbstentionPolicy",
    "require_policy",
]

OfferRule = Literal["top_k", "gated", "search"]
"""Which tools a request is offered (`RetrievalAbstentionPolicy.offer`):

- `top_k` (default): a request that is not a no-route is offered the ranking's first k tools
  that have any evidence for it, each marked routed (confident) or uncertain.
- `gated`: the confident tools alone; when there is none, the best `uncertain_tools` with weak
  evidence; after a confident route of fewer than k, up to `runner_ups` of them.
- `search`: the ranking's first k tools with any evidence, even for a request that routes
  nothing as a whole (what `Visibility.search`, and so find-tools, asks for).
"""

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
    `min_score`), tools are offered anyway: the `uncertain` outcome (`Retrieval.uncertain`,
    `AllowSet.outcome`). In the `gated` offer, up to this many of them, best first. Hiding a
    tool that fits costs a user the task; showing a few that might costs a few hundred bytes of
    prompt. No route is left for requests with no evidence for any tool. 0 turns the uncertain
    outcome off: weak evidence is then no route, and only confident tools are ever offered.

    `runner_ups` (`gated` offer only): when some tools earn a confident route but fewer than k, up to this many
    further tools with weak evidence (as above), best first, are offered after them, marked
    `uncertain` (`Retrieval.uncertain`; the outcome stays `route`). A confident route can
    be the wrong tool; a runner-up lets the model reach the tool the gate was unsure of, for
    one tool's schema more. The selective execution boundary runs none of them. 0 offers the
    confident tools alone.

    `offer` (see `OfferRule`): with `top_k`, the default, a request that is not a no-route is
    offered the ranking's first k tools with any evidence for it, confident ones marked routed
    and the rest uncertain, whatever the gate says of each: the gate tells a fitting tool from
    a near miss too poorly to hide one. `uncertain_tools` and `runner_ups` then only count as
    on or off: `uncertain_tools=0` offers the confident tools alone (a request with none is no
    route), as `gated` with no runner-ups does. `gated` offers what the counts above say.
    """

    min_score: float = 0.0
    uncertain_tools: int = DEFAULT_UNCERTAIN_TOOLS
    runner_ups: int = DEFAULT_RUNNER_UPS
    offer: OfferRule = "top_k"

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
        if self.offer not in _OFFER_RULES:
            raise UserError(f"offer must be one of {', '.join(map(repr, _OFFER_RULES))}, got {self.offer!r}")

    def fills(self) -> bool:
        """Are tools without a confident verdict offered from the ranking (`top_k` with the
        uncertain outcome on, or `search`)?"""
        return self.offer == "search" or (self.offer == "top_k" and self.uncertain_tools > 0)


_OFFER_RULES: tuple[str, ...] = get_args(OfferRule)


DEFAULT_ABSTENTION = RetrievalAbstentionPolicy()
"""The policy of a retrieval given none: no threshold, uncertain outcome on."""


def require_policy(policy: object, what: str = "abstention") -> RetrievalAbstentionPolicy | None:
    """`policy` if it is None or a `RetrievalAbstentionPolicy`; a `UserError` otherwise (a
    calibration report is a common slip: its `.policy` is the policy)."""
    if policy is None or isinstance(policy, RetrievalAbstentionPolicy):
        return policy
    hint = " (pass the report's .policy)" if hasattr(policy, "policy") else ""
    raise UserError(f"{what} must be a RetrievalAbstentionPolicy or None, got {type(policy).__name__}{hint}")
