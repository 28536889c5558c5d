"""What the index holds, as the request side of the analysis chain matches against it.

A request word is matched to indexed terms: the same stem, a longer word it starts, a catalog
word it misspells, the parts of a run-together word, two words written as one. `Vocabulary` is
the term dictionary those matches look in, with each term's rarity in the catalog; the index
makes it once per catalog version from its postings.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping

from ._document import AnalyzedTools
from ._terms import SOURCE_MARK
from ._typo import Corrector

__all__ = ["Vocabulary"]

MAX_EXPANSIONS = 12
"""A request word matches at most this many longer indexed words it starts."""


class Vocabulary:
    """The indexed terms with their idf, and the word lists matching looks in. Immutable."""

    __slots__ = (
        "corrector",
        "idf",
        "joinable_terms",
        "longest_term",
        "max_idf",
        "name_wholes",
        "own_words",
        "sorted_terms",
        "surface_words",
        "word_terms",
    )

    def __init__(self, idf: Mapping[str, float], max_idf: float, tools: AnalyzedTools) -> None:
        self.idf = idf
        """Indexed term -> its idf (a term every tool of a one-server catalog shares is not indexed)."""
        self.max_idf = max_idf
        """The idf of a term found in one tool."""
        self.surface_words = tools.surface_words
        self.name_wholes = tools.name_wholes
        # typos are corrected towards the tools' own words, each of which is an indexed term
        self.own_words = tools.own_words
        self.corrector = Corrector(tools.own_words)
        # Prefix matches and joined request words look among the tools' words only: a name whole
        # is matched as a whole (`recipe` is no prefix of the name `recipe_retrieval`).
        self.word_terms = tools.word_terms
        # sorted: prefix expansion bisects it per query word
        self.sorted_terms = tuple(sorted(t for t in idf if t in tools.word_terms))
        self.longest_term = max(map(len, self.sorted_terms), default=0)
        # what two request words written as one may match: the tools' words and the sources' words
        source_words = {t[len(SOURCE_MARK) :] for t in idf if t.startswith(SOURCE_MARK)}
        self.joinable_terms = tuple(sorted(source_words.union(self.sorted_terms)))

    def rarity(self, term: str) -> float:
        """Rarity of an indexed term in [0, 1]: 1 for a term of one tool, near 0 for one in every tool."""
        idf = self.idf.get(term)
        return 1.0 if idf is None else idf / self.max_idf

    def longer_terms(self, prefix: str) -> list[str]:
        """The shortest indexed words (at most `MAX_EXPANSIONS`) that `prefix` starts, shortest first."""
        terms = self.sorted_terms
        longer: list[str] = []
        for position in range(bisect_left(terms, prefix), len(terms)):
            term = terms[position]
            if not term.startswith(prefix):
                break
            if len(term) > len(prefix) and term.isalpha():
                longer.append(term)
        return sorted(longer, key=lambda t: (len(t), t))[:MAX_EXPANSIONS]
