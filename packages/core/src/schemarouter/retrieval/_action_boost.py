"""How a request's action scales each tool's ranking score, by how well the tool's action agrees.

A tool's action is a posting of its own (`ACTION_MARK` + the action, weighted by how far it is
trusted: see `analysis._actions`). For one request action, every tool with an action gets the
factor `1 + weight * agreement * trust` (`agreement` from -1 to 1); tools without one keep their
score. The factors of each request action are worked out once per index and kept (there are a
dozen actions), so a request scales the scores of those tools only, with no pass over the
catalog.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..analysis._actions import ACTIONS, agreement
from ..analysis._terms import ACTION_MARK
from ._ranking import DocArray, Postings, WeightArray, WordVector

__all__ = ["ActionBoosts", "Boost", "named_siblings"]

_TOOL_ACTIONS = (*ACTIONS, "read")
"""What a tool may do: an action of the vocabulary, or `read` (annotated read-only, no more said)."""


class Boost(NamedTuple):
    """What one request action does to the ranking, per tool position: the factor it scales the
    tool's score by (1 for a tool with no action) and how far the tool is trusted to do that very
    action (0 for another one)."""

    factors: WeightArray
    same: WeightArray


class ActionBoosts:
    """Per request action: each tool's factor, worked out once per index and action."""

    def __init__(self, postings: Postings, weight: float, size: int) -> None:
        self._postings = postings
        self._weight = weight
        self._size = size
        self._of: dict[str, Boost | None] = {}

    def of(self, action: str) -> Boost | None:
        """What a request asking to `action` does to each tool; None when it scales none."""
        if action in self._of:
            return self._of[action]
        factors = np.ones(self._size, dtype=np.float64)
        same = np.zeros(self._size, dtype=np.float64)
        scaled = False
        if self._weight > 0.0:
            for tool_action in _TOOL_ACTIONS:
                term = ACTION_MARK + tool_action
                if term not in self._postings:
                    continue
                fit = agreement(action, tool_action)
                tools, trust = self._postings[term]
                if fit:
                    factors[tools] = 1.0 + self._weight * fit * trust
                    scaled = True
                if tool_action == action:
                    same[tools] = trust
        boost = Boost(factors, same) if scaled else None
        self._of[action] = boost  # a race computes the same value twice: no lock needed
        return boost


def named_siblings(
    boost: Boost, objects: list[WordVector]
) -> tuple[DocArray, WeightArray, WeightArray] | None:
    """The tools the request names by an object word (one of `objects`, the vectors of the
    request words that say no action, hits the tool's name or title), with the factor `boost`
    scales each by (1 for a tool with no action) and its trust in the same action. The action
    tells apart siblings over the object the request names, not any tool whose action agrees.
    A tool named by two words is listed twice: scaling `scores[tools] *= factors` reads every
    score before it writes any, so it is still scaled once. None when no such word names a tool."""
    named = [v.named for v in objects if v.named.size]
    if not named:
        return None
    tools = np.concatenate(named) if len(named) > 1 else named[0]
    return tools, boost.factors[tools], boost.same[tools]
