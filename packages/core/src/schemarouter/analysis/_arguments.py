"""How much a word says as a parameter: a word most tools take as a parameter tells none apart.

In one server's catalog, a parameter such as `subscription` or `project_id` can be taken by
most tools; a request naming that object ("show my subscriptions") then hits every one of them,
and the tool that is about the object (`subscription_list`) drowns among the tools that merely
take it. BM25F weighs a term by how many tools it appears in at all, so the object's word is
common and the parameter hits add up. The argument factor of a term is its rarity among the
tools that take it as a parameter (in their parameter names or parameter text): about 1 for a
parameter of one tool, small for a parameter of most. The index multiplies a term's hits on a
tool's parameters by it, and counts a tool that has the term only among its parameters as that
share of a tool towards the term's rarity: the object's word stays rare, and names the tool
that is about it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

__all__ = ["ARGUMENT_FIELDS", "argument_factor", "argument_factors"]

ARGUMENT_FIELDS = ("params", "param_text")
"""The fields that say what a tool takes, not what it does."""


def argument_factor(count: int, size: int, power: float) -> float:
    """What a term taken as a parameter by `count` of `size` tools says there, in (0, 1]: its
    idf among those tools over the idf of a term of one tool, to the `power`."""
    if power <= 0.0 or count <= 1 or size < 2:
        return 1.0
    top = math.log(1.0 + (size - 0.5) / 1.5)
    return (math.log(1.0 + (size - count + 0.5) / (count + 0.5)) / top) ** power


def argument_factors(
    tools: Iterable[Mapping[str, Mapping[str, float]]], size: int, power: float
) -> dict[str, float]:
    """`argument_factor` of each term some tool takes as a parameter (in its parameter names or
    parameter text), where it is below 1. `tools` gives each tool's terms (term -> field -> term
    frequency); `size` is the number of tools."""
    if power <= 0.0 or size < 2:
        return {}
    counts: dict[str, int] = {}
    for terms in tools:
        for term, fields in terms.items():
            if "params" in fields or "param_text" in fields:
                counts[term] = counts.get(term, 0) + 1
    return {term: argument_factor(count, size, power) for term, count in counts.items() if count > 1}
