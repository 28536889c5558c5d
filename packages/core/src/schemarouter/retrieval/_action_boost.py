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
from numpy.typing import NDArray

from ..analysis._actions import ACTIONS, agreement
from ..analysis._terms import ACTION_MARK
from ._ranking import DocArray, Postings, WeightArray, WordVector

__all__ = ["ActionBoosts", "Boost", "named_siblings"]

_TOOL_ACTIONS = (*ACTIONS, "read")
"""What a tool may do: an action of the vocabulary, or `read` (annotated read-only, no more said)."""


class Boost(NamedTuple):
    """What one request action does to the ranking: the tools it scales and by what factor, and
    how far each of them is trusted to do that very action (0 for an agreeing other one)."""

    tools: DocArray
    factors: WeightArray
    same: WeightArray

    def among(self, keep: NDArray[np.bool_]) -> Boost:
        """The tools `keep` marks, with their factors."""
        return Boost(self.tools[keep], self.factors[keep], self.same[keep])


class ActionBoosts:
    """Per request action: the tools whose score it scales, and each one's factor."""

    def __init__(self, postings: Postings, weight: float) -> None:
        self._postings = postings
        self._weight = weight
        self._of: dict[str, Boost | None] = {}

    def of(self, action: str) -> Boost | None:
        """The tools (positions, each once) a request asking to `action` scales, the factor of
        each, and how far each is trusted to do that very action (0 for another action); None
        when it scales none."""
        if action in self._of:
            return self._of[action]
        docs: list[DocArray] = []
        factors: list[WeightArray] = []
        same: list[WeightArray] = []
        if self._weight > 0.0:
            for tool_action in _TOOL_ACTIONS:
                term = ACTION_MARK + tool_action
                if term not in self._postings:
                    continue
                fit = agreement(action, tool_action)
                if fit:
                    tools, trust = self._postings[term]
                    docs.append(tools)
                    factors.append(1.0 + self._weight * fit * trust)
                    same.append(trust if tool_action == action else np.zeros_like(trust))
        boost = Boost(np.concatenate(docs), np.concatenate(factors), np.concatenate(same)) if docs else None
        self._of[action] = boost  # a race computes the same value twice: no lock needed
        return boost


def named_siblings(boost: Boost, objects: list[WordVector], size: int) -> Boost | None:
    """The tools of `boost` that the request names by an object word: one of `objects` (the
    vectors of the request words that say no action, over `size` tools) hits the tool's name or
    title. The action tells apart siblings over the object the request names, not any tool
    whose action agrees. None when no such word names a tool."""
    named = [v.positions[v.positions >= 2 * size] for v in objects]
    if not named:
        return None
    return boost.among(np.isin(boost.tools, np.concatenate(named) - 2 * size))
