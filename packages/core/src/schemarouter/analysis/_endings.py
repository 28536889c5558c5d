"""Word endings: when a longer word is the shorter one with an ending, and when a request word
reads as a modifier.

Two readings of the same English morphology, both request-side and both for ranking only:

- A prefix match ("dealer" / `dealership`, "rent" / `rental`) is the same word when the longer
  word goes on with an ending (`ENDINGS`: inflections and common derivational suffixes); when it
  goes on with another word or a run of letters that is none ("high" / `highlight`, "news" /
  `newsletter`, "plan" / `plant`, "report" / `repo`), it is another word that happens to share
  the start, and the match earns less (`prefix_credit`).
- A request word that the stemmer reads as an adverb in -ly or a participle in -ed or -ing
  ("specifically", "detailed", "performing") usually says how or which, not what a tool does:
  its ranking weight is lowered (`reads_as_modifier`). Its gate evidence is unchanged.

The lists are English grammar, not any catalog's vocabulary: the endings of a grammar book, and
only the three modifier endings the stemmer strips reliably.
"""

from __future__ import annotations

__all__ = ["ENDINGS", "MODIFIER_ENDINGS", "prefix_credit", "reads_as_modifier"]

ENDINGS = frozenset(
    {
        # inflections, and the letter the stemmer leaves where it cut one ("creati", "specifi")
        *("s", "es", "e", "i", "y", "ed", "ing", "er", "ers", "est", "ly"),
        # common derivational suffixes, as the stemmer leaves them
        *("al", "ally", "ial", "an", "ian", "n", "ness", "ment", "ments", "ship"),
        *("ion", "ions", "ation", "ition", "ity", "ic", "ical", "ist", "ists", "ism"),
        *("ive", "ful", "less", "able", "ible", "ence", "ance", "ent", "ant"),
        *("ary", "ery", "ory", "or", "ors", "ous", "ize", "ise"),
    }
)
"""What may follow a word for a longer word to be the same word: "dealer" + `ship`, "rent" +
`al`, "play" + `er`."""

MODIFIER_ENDINGS = ("ly", "ed", "ing")
"""Endings of a request word that make it a modifier (an adverb, a participle)."""

_MIN_BASE = 4
"""Letters a modifier's base must have ("speed", "string", "only" are no modifiers)."""


def prefix_credit(short: str, long: str, quality: float, loose: float) -> float:
    """The credit for a prefix match between two terms, `short` starting `long`: `quality`
    when what `long` adds is an ending (`ENDINGS`), `loose` otherwise."""
    return quality if long[len(short) :] in ENDINGS else loose


def reads_as_modifier(surface: str, stem: str) -> bool:
    """Whether a request word reads as a modifier: it ends in -ly, -ed or -ing, and the stemmer
    cut that ending off (its stem is the word's start, at most one letter longer than the word
    without the ending, as "based" -> `base`), so "family", "supply" or "thing" are not."""
    if not surface.isalpha() or stem == surface or not surface.startswith(stem):
        return False
    for ending in MODIFIER_ENDINGS:
        if surface.endswith(ending):
            base = len(surface) - len(ending)
            return base >= _MIN_BASE and len(stem) <= base + 1
    return False
