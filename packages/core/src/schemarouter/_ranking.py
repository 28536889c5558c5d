"""Ranking a query over the postings of its terms: BM25F scores, then the best few tools.

A query term contributes to a tool the BM25F weight of its best match there times the
match quality (precomputed weight x quality scaled by the word's specificity); a tool's
score is the sum over query terms, added in query order, so it is the same float however
often it is computed. Only the postings of the query's terms are read, laid end to end and
summed per tool by one `bincount` into a score array the size of the catalog; the best
`depth` tools are selected by score (ties by route) without sorting every matched tool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "DocArray",
    "Postings",
    "TermPlan",
    "WeightArray",
    "add_up",
    "as_lists",
    "merged",
    "postings_of",
    "scores",
    "top",
]

DocArray = NDArray[np.intp]
WeightArray = NDArray[np.float64]

TermPlan = tuple[DocArray, WeightArray]
"""A query term as ranking reads it: the tools it matches and what it adds to each one's score.

A word matching one indexed term reads that term's postings, each weight times the match
quality (scaled by the word's specificity); a word matching several (prefix or compound
expansions) reads its merged postings: per tool the best weight x quality.
"""

Postings = Mapping[str, tuple[DocArray, WeightArray]]
"""Indexed term -> (tools, BM25F weights), in tool order; each tool at most once per term."""


def postings_of(docs: Sequence[int], weights: Sequence[float]) -> tuple[DocArray, WeightArray]:
    """One posting list as the arrays ranking reads."""
    return np.array(docs, dtype=np.intp), np.array(weights, dtype=np.float64)


def as_lists(docs: DocArray, weights: WeightArray) -> tuple[list[int], list[float]]:
    """One posting list as Python lists (for the scalar paths: merging, the reference accumulation)."""
    doc_list: list[int] = docs.tolist()
    weight_list: list[float] = weights.tolist()
    return doc_list, weight_list


def merged(postings: Postings, matches: Sequence[tuple[str, float]]) -> tuple[DocArray, WeightArray]:
    """Per tool, the best weight x quality over `matches` (tools where it is 0 are left out)."""
    best: dict[int, float] = {}
    get = best.get
    for term, quality in matches:
        for doc, weight in zip(*as_lists(*postings[term]), strict=True):
            value = weight * quality
            if value > get(doc, 0.0):
                best[doc] = value
    return postings_of(list(best), list(best.values()))


def add_up(parts: Sequence[tuple[DocArray, WeightArray]], size: int) -> tuple[WeightArray, DocArray]:
    """Per tool, the sum of the values `parts` give it (in order), and every tool any part lists.

    One `bincount` over the parts laid end to end: it adds element by element in that order,
    starting from 0.0, so a tool's sum is the same float a scalar loop adding the parts in
    order gives (a tool appears at most once per part).
    """
    if len(parts) == 1:
        docs, values = parts[0]
    elif parts:
        docs = np.concatenate([p[0] for p in parts])
        values = np.concatenate([p[1] for p in parts])
    else:
        return np.zeros(size, dtype=np.float64), np.zeros(0, dtype=np.intp)
    total: WeightArray = np.bincount(docs, values, minlength=size)  # pyright: ignore[reportAssignmentType]
    return total, docs


def scores(plans: Sequence[TermPlan], size: int) -> tuple[WeightArray, NDArray[np.bool_]]:
    """BM25F score of every tool, and which tools any term matched (a zero-weight match counts).

    Scores are added in query-term order, so a tool's score is the same float on every call
    (and the same float a scalar loop adding each term's weights in that order gives).
    """
    total, docs = add_up(plans, size)
    hit = np.zeros(size, dtype=np.bool_)
    hit[docs] = True
    return total, hit


def top(
    route_rank: DocArray,
    plans: Sequence[TermPlan],
    depth: int,
    preferred: int | None = None,
    positive: bool = False,
) -> tuple[DocArray, WeightArray, int]:
    """The best `depth` tools by (-score, route), their scores, and how many tools matched any term.

    `route_rank[tool]` is the tool's position in route order (the tie-break). `preferred`
    (a tool position) competes even when no term matches it, with score 0. `positive` says
    every weight in `plans` is above 0: the matched tools are then exactly those scoring
    above 0, read off the scores without a separate record of hits.
    """
    if positive and preferred is None:
        total, _ = add_up(plans, len(route_rank))
        matched_docs = np.flatnonzero(total > 0.0)
    else:
        total, hit = scores(plans, len(route_rank))
        if preferred is not None:
            hit[preferred] = True
        matched_docs = np.flatnonzero(hit)
    matched = int(matched_docs.size)
    if matched == 0 or depth < 1:
        return matched_docs[:0], total[:0], matched
    values = total[matched_docs]
    if matched > depth:
        # Keep every tool scoring at least the depth-th best, so ties at the cutoff are ordered by route.
        cutoff = np.partition(values, matched - depth)[matched - depth]
        keep = values >= cutoff
        matched_docs, values = matched_docs[keep], values[keep]
    order = np.lexsort((route_rank[matched_docs], -values))[:depth]
    return matched_docs[order], values[order], matched
