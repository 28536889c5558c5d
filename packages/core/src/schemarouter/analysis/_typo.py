"""Misspelt request words: the catalog words one edit away.

People type "wheather", "emial" or "calandar". A request word that the catalog does not know
and that is no word of everyday English is compared with the catalog's own words: those one
edit away (a letter left out, added or replaced, or two neighbouring letters swapped) are what
it may stand for. The first letter is never edited: people rarely mistype it, and a name that
differs from a catalog word only there is usually a name of its own ("binance", "echarts").
Only plain ASCII words of `MIN_LENGTH` to `MAX_LENGTH` letters are corrected, and only into
words of that length: short words have too many neighbours ("form", "from", "fork"), and a
longer run of letters is no word anyone mistyped (a pasted blob, an id); the candidates of a
word grow with the square of its length, so the bound also keeps one such run cheap. A word with more than
`MAX_CORRECTIONS` neighbours in the catalog is too ambiguous to correct, and an everyday English
word one edit away that the catalog lacks is a likelier reading than a catalog word (see
`Corrector.corrections`).

Neighbours are found through deletions (as in SymSpell): two words one edit apart share a
string that each gives with at most one letter deleted. The table of the catalog words'
deletions is built on the first correction asked for, so a catalog whose requests are all
spelt right never pays for it.
"""

from __future__ import annotations

from collections.abc import Collection

from ._commonness import english_count
from ._spelling import american
from ._text import STOP_WORDS

__all__ = ["MAX_CORRECTIONS", "MAX_LENGTH", "MIN_LENGTH", "Corrector", "correctable"]

MIN_LENGTH = 5
MAX_LENGTH = 40
MAX_CORRECTIONS = 3
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def correctable(word: str) -> bool:
    """Whether `word` has the shape of a word we correct (or correct into)."""
    return MIN_LENGTH <= len(word) <= MAX_LENGTH and word.isascii() and word.isalpha() and word.islower()


def _deletions(word: str) -> list[str]:
    """`word` and every string it gives with one letter after the first deleted."""
    return [word, *(word[:i] + word[i + 1 :] for i in range(1, len(word)))]


def _one_edit(word: str) -> set[str]:
    """Every string one edit from `word` that keeps its first letter."""
    splits = [(word[:i], word[i:]) for i in range(1, len(word) + 1)]
    edits = {left + right[1:] for left, right in splits if right}
    edits.update(left + right[1] + right[0] + right[2:] for left, right in splits if len(right) > 1)
    edits.update(left + c + right[1:] for left, right in splits if right for c in _LETTERS)
    edits.update(left + c + right for left, right in splits for c in _LETTERS)
    edits.discard(word)
    return edits


def _one_apart(a: str, b: str) -> bool:
    """Whether `b` is one edit from `a` (deletion, insertion, substitution or swap of neighbours)."""
    if a == b or a[0] != b[0] or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    start = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(a))
    if len(a) < len(b):
        return a[start:] == b[start + 1 :]
    if a[start + 1 :] == b[start + 1 :]:
        return True
    return (
        start + 1 < len(a)
        and a[start] == b[start + 1]
        and a[start + 1] == b[start]
        and a[start + 2 :] == b[start + 2 :]
    )


class Corrector:
    """Corrections of misspelt words into the words of one catalog."""

    def __init__(self, vocabulary: Collection[str]) -> None:
        self._vocabulary = frozenset(w for w in vocabulary if correctable(w))
        self._by_deletion: dict[str, tuple[str, ...]] | None = None

    def _table(self) -> dict[str, tuple[str, ...]]:
        table = self._by_deletion
        if table is None:
            grouped: dict[str, list[str]] = {}
            for word in sorted(self._vocabulary):
                for key in _deletions(word):
                    grouped.setdefault(key, []).append(word)
            table = {key: tuple(words) for key, words in grouped.items()}
            self._by_deletion = table  # built whole, then published: readers see none or all
        return table

    def neighbours(self, word: str) -> set[str]:
        """The catalog words one edit from `word` (keeping its first letter)."""
        table = self._table()
        found = {v for key in _deletions(word) for v in table.get(key, ())}
        return {v for v in found if _one_apart(word, v)}

    def corrections(self, word: str) -> tuple[str, ...]:
        """The catalog words that `word` is likely a misspelling of, sorted.

        Candidates are the catalog words one edit away; none when there are more than
        `MAX_CORRECTIONS`. When some English word that is not a stop-word is one edit away too,
        the commonest of those in everyday English is the likeliest reading: it is the one
        correction if the catalog has it (in either spelling, see `_spelling`), and there is
        none otherwise ("shapping" reads as "shopping", not as a catalog's "shipping"). A word
        of everyday English itself is not corrected.
        """
        if not correctable(word) or english_count(word):
            return ()
        found = self.neighbours(word)
        if not found or len(found) > MAX_CORRECTIONS:
            return ()
        counted = [
            (count, edit)
            for edit in _one_edit(word)
            if edit not in STOP_WORDS and (count := english_count(edit))
        ]
        if not counted:
            return tuple(sorted(found))
        likeliest = american(max(counted)[1])
        # the catalog may spell the likeliest reading the other way ("colur": "color" / `colour`)
        return tuple(sorted(w for w in found if american(w) == likeliest))
