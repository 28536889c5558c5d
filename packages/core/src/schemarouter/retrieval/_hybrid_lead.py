"""Which tool comes first in hybrid mode: the fused ranking's first tool, or the lexical side's.

The fused ranking weighs the semantic side's closest tools heavily, which is right for a
paraphrase and wrong where the lexical side has read the request better. The lexical side's
first tool takes the first place in two cases (`lexical_lead`):

- **It is named.** A request word names it (identifier evidence of at least
  `HybridPolicy.lead_identifier`) and its ranking score leads the lexical runner-up's by
  `HybridPolicy.lead_margin`.
- **The lexical side prefers it clearly and the semantic side barely prefers the other.** Each
  side's preference is read on its own scale. The lexical side's is the share by which the
  fused first tool's lexical ranking score falls short of the lexical first tool's (1 when the
  lexical side does not rank it). The semantic side's is how far the request points from the
  lexical first tool towards the fused first tool: the difference of their cosines divided by
  the distance between the two tool vectors, that is, the cosine between the request and the
  direction from one tool to the other. Dividing by the distance puts every pair of tools on
  one scale: two cosines differ by no more than the distance between the tool vectors, so a
  small difference of cosines is a clear preference between near-copies or siblings and a weak
  one between unlike tools. The lexical tool
  leads when its side's preference is at least `HybridPolicy.lead_lexical_gap` and the
  semantic side's is under `HybridPolicy.lead_semantic_pull`.

Only the first place moves; the order below it is the fusion's.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ._hybrid_policy import HybridPolicy
from ._results import Candidate

__all__ = ["LEAD_STEP", "lexical_lead", "semantic_pull"]

LEAD_STEP = 0.001
"""How far above the fused ranking's first tool the lexical lead is placed."""


def _named(first: Candidate, runner_up: float, hp: HybridPolicy) -> bool:
    """Does a request word name the lexical first tool, and does it lead its runner-up clearly?"""
    if hp.lead_identifier > 1.0 or first.identifier_score < hp.lead_identifier:
        return False
    return (first.rank_score - runner_up) / first.rank_score >= hp.lead_margin


def _lexical_gap(first: Candidate, fused: Candidate | None) -> float:
    """The share by which the fused first tool's lexical ranking score (`fused`: its lexical
    candidate, None when the lexical side does not rank it) falls short of the lexical first's."""
    return 1.0 - (fused.rank_score / first.rank_score if fused is not None else 0.0)


def lexical_lead(
    lex_top: list[Candidate],
    fused_first: str | None,
    pull: Callable[[str, str], float],
    hp: HybridPolicy,
) -> str | None:
    """The route of the lexical side's first tool (`lex_top`: its best tools, best first) when
    it should lead a fused ranking whose first tool is `fused_first`; else None.

    `pull(lexical_route, fused_route)` is the semantic side's preference for the fused first
    tool (see `semantic_pull`); it is asked only when the lexical side's own preference is clear.
    """
    if not lex_top or fused_first is None:
        return None
    first = lex_top[0]
    if first.route == fused_first or first.rank_score <= 0.0:
        return None
    runner_up = lex_top[1].rank_score if len(lex_top) > 1 else 0.0
    if _named(first, runner_up, hp):
        return first.route
    if hp.lead_semantic_pull <= 0.0:
        return None
    fused = next((c for c in lex_top if c.route == fused_first), None)
    if (
        _lexical_gap(first, fused) >= hp.lead_lexical_gap
        and pull(first.route, fused_first) < hp.lead_semantic_pull
    ):
        return first.route
    return None


def semantic_pull(closeness_from: float, closeness_to: float, distance: float) -> float:
    """How far a request points from one tool towards another: the difference of its closeness
    to each, over the distance between their unit vectors (the cosine between the request and
    the direction from one tool to the other, for whole-request cosines). Two tools with the
    same vector are not told apart at all: 0."""
    if not math.isfinite(distance) or distance <= 0.0:
        return 0.0
    return (closeness_to - closeness_from) / distance
