"""Ranking a query over the postings of its terms: BM25F scores, then the best few tools.

A query term contributes to a tool the BM25F weight of its best match there times the
match quality (precomputed weight x quality scaled by the word's specificity); a tool's
score is the sum over query terms, added in query order, so it is the same float however
often it is computed. Only the postings of the query's terms are read, laid end to end and
summed per tool by one `bincount`; the best `depth` tools are then selected by score (ties
by route) without sorting every matched tool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "DocArray",
    "EvidenceVector",
    "MatchEvidence",
    "Ranked",
    "WordVector",
    "Postings",
    "TermPlan",
    "WeightArray",
    "add_up",
    "best",
    "merged",
    "postings_of",
]

DocArray = NDArray[np.intp]
WeightArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

TermPlan = tuple[DocArray, WeightArray]
"""A query term as ranking reads it: the tools it matches and what it adds to each one's score.

A word matching one indexed term reads that term's postings, each weight times the match
quality (scaled by the word's specificity); a word matching several (prefix or compound
expansions) reads its merged postings: per tool the best weight x quality.
"""

Postings = Mapping[str, tuple[DocArray, WeightArray]]
"""Indexed term -> (tools, BM25F weights), in tool order; each tool at most once per term."""


MatchEvidence = tuple[float, float, float]
"""The gate evidence of one match of a query term: on a tool's identifiers, elsewhere, and on its
argument text alone (see `LexicalIndex.term_evidence`)."""

EvidenceVector = tuple[DocArray, WeightArray, DocArray, WeightArray]
"""One query term's gate evidence: the tools it hits and the evidence it brings each; then the
tools among them it names (an identifier hit) and the part of their evidence that names them."""


class WordVector(NamedTuple):
    """What one query word adds to a request, laid out for one `bincount` over three blocks of
    catalog size: a position `p` below n adds to tool `p`'s ranking score, `n + p` to its gate
    evidence and `2n + p` to its identifier evidence."""

    positions: DocArray
    values: WeightArray
    ranking: int
    """The first `ranking` entries are the ranking block: the word's `TermPlan`."""
    positive: bool
    """Every ranking weight is above 0 (a tool it matches then scores above 0)."""
    named: DocArray
    """The tools whose name or title the word hits (the identifier block, as tool positions)."""


class Ranked(NamedTuple):
    """The best-ranked tools of one request, best first, with what the gate decides on."""

    docs: list[int]
    rank_scores: list[float]
    """BM25F score of each."""
    support: list[float]
    """Gate evidence of each."""
    named: list[float]
    """The part of `support` that comes from hits on each tool's identifiers."""
    matched: int | None
    """Tools that any query word matched (more than `docs` when they ranked lower); None when
    the caller did not ask for the count (`docs` is empty exactly when none matched)."""


def postings_of(docs: Sequence[int], weights: Sequence[float]) -> tuple[DocArray, WeightArray]:
    """One posting list as the arrays ranking reads."""
    return np.array(docs, dtype=np.intp), np.array(weights, dtype=np.float64)


def merged(
    postings: Postings, matches: Sequence[tuple[str, float]], size: int
) -> tuple[DocArray, WeightArray]:
    """Per tool, the best weight x quality over `matches` (tools where it is 0 are left out).

    `size` is the number of tools. Tools come in position order.
    """
    best = np.zeros(size, dtype=np.float64)
    for term, quality in matches:
        docs, weights = postings[term]
        best[docs] = np.maximum(best[docs], weights * quality)  # a term lists each tool once
    docs = np.flatnonzero(best)
    return docs, best[docs]


def add_up(positions: Sequence[DocArray], values: Sequence[WeightArray], size: int) -> WeightArray:
    """Per position below `size`, the sum of what the parts give it, in order: part `i` adds
    `values[i][j]` at `positions[i][j]`.

    One `bincount` over the parts laid end to end: it adds element by element in that order,
    starting from 0.0, so a position's sum is the same float a scalar loop adding the parts in
    order gives (a position appears at most once per part).
    """
    if len(positions) > 1:
        total: WeightArray = np.bincount(  # pyright: ignore[reportAssignmentType]
            np.concatenate(positions), np.concatenate(values), minlength=size
        )
    elif positions:
        total = np.bincount(positions[0], values[0], minlength=size)  # pyright: ignore[reportAssignmentType]
    else:
        total = np.zeros(size, dtype=np.float64)
    return total


def best(scores: WeightArray, depth: int, hit: BoolArray | None = None, many: bool = False) -> DocArray:
    """The best `depth` tools by (-score, position), best first.

    Tools are numbered in route order, so ties go to the route that sorts first. Matched
    tools are those `hit` marks or, without `hit`, those scoring above 0 (right when every
    weight added was positive). With `many` (without `hit`), the cutoff is read off every
    score, which is cheaper than gathering the matched tools' scores first when a large
    share of the tools matched. Every tool scoring at least the depth-th best is kept
    before the final sort, so ties at the cutoff are ordered by position.
    """
    if depth < 1:
        return np.zeros(0, dtype=np.intp)
    if hit is not None:
        docs = hit.nonzero()[0]
    elif many and scores.size > depth:
        cutoff = _kth_largest(scores, depth)
        if cutoff > 0.0:
            docs = (scores >= cutoff).nonzero()[0]
            return _in_order(docs, scores[docs], depth)
        docs = scores.nonzero()[0]  # fewer than `depth` tools matched
    else:
        docs = scores.nonzero()[0]
    values = scores[docs]
    if docs.size > depth:
        keep = values >= _kth_largest(values, depth)
        docs, values = docs[keep], values[keep]
    return _in_order(docs, values, depth)


def _kth_largest(values: WeightArray, k: int) -> float:
    """The k-th largest of `values` (1 <= k <= values.size); `values` is left as it was."""
    part = values.copy()
    part.partition(values.size - k)
    return float(part[values.size - k])


def _in_order(docs: DocArray, values: WeightArray, depth: int) -> DocArray:
    """The first `depth` of `docs` (in position order) by (-value, position)."""
    return docs[(-values).argsort(kind="stable")[:depth]]  # a stable sort keeps position order
