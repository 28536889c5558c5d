"""Splitting run-together words (`airqualityforecast`, `carpark`) into words the catalog knows.

Real catalogs name tools `hdbcarpark` or `weatherforecast`; users write "car park" and
"weather forecast". A dynamic program picks the split that covers the most characters with
known words, preferring long words; characters it cannot explain stay unexplained.
"""

from __future__ import annotations

from collections.abc import Container

__all__ = ["MAX_WORD", "MIN_PART", "segment"]

MIN_PART = 3
"""Shortest word accepted as a part of a compound."""

_MAX_PART = 20
MAX_WORD = 64
"""Longest word split: a longer run of letters is a pasted blob, not a name run together."""
_MIN_COVERAGE = 0.6


def segment(word: str, vocabulary: Container[str]) -> tuple[str, ...]:
    """Known words that `word` is made of, in order; empty when no good split exists.

    A split must use at least two known words and explain at least 60% of the characters.
    Words longer than `MAX_WORD` characters are not split.
    """
    size = len(word)
    if size < 2 * MIN_PART or size > MAX_WORD:
        return ()
    # best[i] = (score, covered characters, parts) for word[:i]
    best: list[tuple[int, int, tuple[str, ...]]] = [(0, 0, ())] * (size + 1)
    for end in range(1, size + 1):
        score, covered, parts = best[end - 1]  # leave word[end-1] unexplained
        candidate = (score, covered, parts)
        for start in range(max(0, end - _MAX_PART), end - MIN_PART + 1):
            piece = word[start:end]
            if piece == word or piece not in vocabulary:
                continue
            prev_score, prev_covered, prev_parts = best[start]
            option = (prev_score + len(piece) ** 2, prev_covered + len(piece), (*prev_parts, piece))
            if option[0] > candidate[0]:
                candidate = option
        best[end] = candidate
    _, covered, parts = best[size]
    if len(parts) < 2 or covered < _MIN_COVERAGE * size:
        return ()
    return parts
