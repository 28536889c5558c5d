"""Ranking a query over the postings of its terms: BM25F scores, then the best few tools.

A query term contributes to a tool the BM25F weight of its best match there times the
match quality (precomputed weight x quality scaled by the word's specificity); a tool's
score is the sum over query terms, added in query order, so it is the same float however
often it is computed. Only the postings of the query's terms are read. The best `depth`
tools are selected by score (ties by route) without sorting every matched tool.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence

__all__ = ["Postings", "TermPlan", "merged", "rank", "scores"]

TermPlan = tuple[tuple[int, ...], tuple[float, ...], float]
"""A query term as ranking reads it: tools, their weights, and the factor every weight gets.

A word matching one indexed term reads that term's postings with the match quality as the
factor; a word matching several (prefix or compound expansions) reads its merged postings:
per tool the best weight x quality, factor 1.0 (exact: `x * 1.0 == x`).
"""

Postings = Mapping[str, tuple[tuple[int, ...], tuple[float, ...]]]
"""Indexed term -> (tools, BM25F weights), in tool order."""


def merged(
    postings: Postings, matches: Sequence[tuple[str, float]]
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Per tool, the best weight x quality over `matches` (tools where it is 0 are left out)."""
    best: dict[int, float] = {}
    get = best.get
    for term, quality in matches:
        docs, weights = postings[term]
        for doc, weight in zip(docs, weights, strict=True):
            value = weight * quality
            if value > get(doc, 0.0):
                best[doc] = value
    return tuple(best), tuple(best.values())


def scores(plans: Sequence[TermPlan]) -> dict[int, float]:
    """BM25F score of every tool any term matches (a term of zero weight still counts as matched).

    Scores are added in query-term order, so a tool's score is the same float on every call.
    """
    out: dict[int, float] = {}
    get = out.get
    for docs, weights, factor in plans:
        for doc, weight in zip(docs, weights, strict=True):
            out[doc] = get(doc, 0.0) + weight * factor
    return out


def top(scored: Mapping[int, float], depth: int, route_rank: Sequence[int]) -> list[tuple[int, float]]:
    """The `depth` best (tool, score) pairs by (-score, route); `route_rank` orders tools by route."""

    def key(item: tuple[int, float]) -> tuple[float, int]:
        return (-item[1], route_rank[item[0]])

    if len(scored) > depth:
        cutoff = heapq.nlargest(depth, scored.values())[-1]
        scored = {doc: value for doc, value in scored.items() if value >= cutoff}
    return sorted(scored.items(), key=key)[:depth]


def rank(
    route_rank: Sequence[int],
    plans: Sequence[TermPlan],
    depth: int,
    preferred: int | None = None,
) -> tuple[list[tuple[int, float]], int]:
    """The best `depth` (tool, score) pairs, and how many tools matched any term.

    `preferred` (a tool position) competes even when no term matches it, with score 0.
    """
    scored = scores(plans)
    if preferred is not None and preferred not in scored:
        scored[preferred] = 0.0
    return top(scored, depth, route_rank), len(scored)
