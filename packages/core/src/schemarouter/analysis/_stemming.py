"""English stemming with a bounded cache (the stemmer costs tens of microseconds a word).

British spellings are stemmed as the American ones (`_spelling`), so "colour" and "color" are
one term, and a noun as the verb it names (`_derivations`: "conversion" as "convert"). Only
plain ASCII-letter words are stemmed; CJK bigrams, digits, symbols and words in other scripts
pass through unchanged, so stemming can never make text vanish.
"""

from __future__ import annotations

import threading

import snowballstemmer  # pyright: ignore[reportMissingTypeStubs]

from ._derivations import verb_of
from ._memo import remember
from ._spelling import american

__all__ = ["Stemmer"]

_MIN_STEM_LENGTH = 3


class Stemmer:
    """Maps a surface token to its index term. Thread-safe; the cache is bounded (see `_memo`)."""

    def __init__(self, max_cache: int = 100_000) -> None:
        self._stemmer = snowballstemmer.stemmer("english")  # pyright: ignore[reportUnknownMemberType]
        self._cache: dict[str, str] = {}
        self._max_cache = max_cache
        self._lock = threading.Lock()

    def stem(self, token: str) -> str:
        cached = self._cache.get(token)
        if cached is not None:
            return cached
        if len(token) <= _MIN_STEM_LENGTH or not (token.isascii() and token.isalpha()):
            term = token
        else:
            with self._lock:
                term = str(self._stemmer.stemWord(american(verb_of(token))))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        return remember(self._cache, token, term, self._max_cache)

    def stem_all(self, tokens: list[str]) -> list[str]:
        cache = self._cache
        return [cache.get(t) or self.stem(t) for t in tokens]
