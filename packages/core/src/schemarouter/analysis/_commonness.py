"""How specific a word is in everyday English, from a general word-frequency list.

Catalog rarity alone misleads: in a catalog of 200 tools, "man", "story" or "time" may
each appear in one tool and so look rare, while nearly every request uses them. A word's
frequency in general English (the list shipped with `pyspellchecker`, counted over film
subtitles, i.e. everyday conversational English) tells the two apart: `specificity` is 1
for words rare in everyday English (or absent from it: brand names, non-English words,
CJK) and falls to 0 for the commonest words.

The list is loaded once per process, on first use.
"""

from __future__ import annotations

import gzip
import importlib.resources
import json
import math
import threading
from collections.abc import Mapping
from typing import cast

__all__ = ["english_count", "specificity"]

_COMMON_LOG10 = 7.0
"""A word seen 10 million times in the list is as common as it gets (specificity 0)."""
_RARE_LOG10 = 3.0
"""A word seen at most 1,000 times is fully specific (specificity 1)."""

_lock = threading.Lock()
_frequencies: Mapping[str, int] | None = None


def _read_list() -> Mapping[str, int]:
    """The English list as `pyspellchecker` ships it (gzipped JSON, word -> count), read directly:
    half the time of building a `SpellChecker` around it (0.1 s instead of 0.2 s of CPU, paid by
    a process's first request). Falls back to the checker if the file is not where it was."""
    try:
        resource = importlib.resources.files("spellchecker").joinpath("resources", "en.json.gz")
        with resource.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as text:
            data = json.load(text)
        if isinstance(data, dict) and data:
            return cast("Mapping[str, int]", data)
    except (OSError, ValueError, ModuleNotFoundError):
        pass
    from spellchecker import SpellChecker  # pyright: ignore[reportMissingTypeStubs]

    checker = SpellChecker(language="en", distance=1)
    return cast("Mapping[str, int]", checker.word_frequency.dictionary)  # pyright: ignore[reportUnknownMemberType]


def _load() -> Mapping[str, int]:
    global _frequencies
    with _lock:
        if _frequencies is None:
            _frequencies = _read_list()
        return _frequencies


def specificity(word: str) -> float:
    """1.0 for a word rare in everyday English, down to 0.0 for the most frequent words."""
    frequencies = _frequencies if _frequencies is not None else _load()
    count = frequencies.get(word)
    if not count:
        return 1.0
    position = (math.log10(count + 1) - _RARE_LOG10) / (_COMMON_LOG10 - _RARE_LOG10)
    return 1.0 - min(1.0, max(0.0, position))


def english_count(word: str) -> int:
    """How often `word` (lower case) occurs in the everyday-English list; 0 when it is not there."""
    frequencies = _frequencies if _frequencies is not None else _load()
    return frequencies.get(word, 0)
