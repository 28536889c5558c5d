"""Tool names as a reader sees them: one skeleton for names that look alike.

A server can name a tool `close_аccount` (a Cyrillic `а`), `close_account\u200b` (a zero-width
space) or `ｃｌｏｓｅ_account` (fullwidth letters): to a model and to a person reading a log these
are `close_account`, yet they are other strings, so a rule written for `close_account` would not
match them. `name_skeleton` folds such differences away: Unicode NFKC (fullwidth and other
compatibility forms), invisible format characters (zero-width spaces and joiners, bidirectional
marks) and surrounding white space removed, case folded, and letters of other scripts that are
drawn like Latin letters mapped to them. Two names with one skeleton are lookalikes.

The map covers the Cyrillic and Greek letters drawn like basic Latin letters (after Unicode's
confusables data, restricted to those scripts), which is where real lookalike attacks come from;
it is not a full confusables implementation.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = ["lookalike_groups", "name_skeleton"]

_LATIN_LOOKALIKES = {
    # Cyrillic (lower case; upper case is folded to these first)
    "а": "a",
    "в": "b",
    "е": "e",
    "ё": "e",
    "к": "k",
    "м": "m",
    "н": "h",
    "о": "o",
    "р": "p",
    "с": "c",
    "т": "t",
    "у": "y",
    "х": "x",
    "і": "i",
    "ї": "i",
    "ј": "j",
    "ѕ": "s",
    "ԁ": "d",
    "ԛ": "q",
    "ԝ": "w",
    "һ": "h",
    "ӏ": "l",
    "ɡ": "g",
    # Greek
    "α": "a",
    "β": "b",
    "ε": "e",
    "ζ": "z",
    "η": "n",
    "ι": "i",
    "κ": "k",
    "μ": "u",
    "ν": "v",
    "ο": "o",
    "ρ": "p",
    "τ": "t",
    "υ": "u",
    "χ": "x",
    # Latin letters drawn like others
    "ı": "i",
    "ℓ": "l",
}
_TABLE = str.maketrans(_LATIN_LOOKALIKES)


@lru_cache(maxsize=4096)
def name_skeleton(name: str) -> str:
    """The form of `name` that every lookalike of it shares (see the module docstring)."""
    folded = unicodedata.normalize("NFKC", name)
    visible = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")
    return visible.strip().casefold().translate(_TABLE)


def lookalike_groups(names: dict[str, str]) -> tuple[tuple[str, ...], ...]:
    """Keys of `names` (route -> name) whose names differ but share a skeleton, one group per
    skeleton, in the order first seen. Empty when no two names look alike."""
    by_skeleton: dict[str, list[str]] = {}
    spelled: dict[str, set[str]] = {}
    for key, name in names.items():
        skeleton = name_skeleton(name)
        by_skeleton.setdefault(skeleton, []).append(key)
        spelled.setdefault(skeleton, set()).add(name)
    return tuple(tuple(keys) for skeleton, keys in by_skeleton.items() if len(spelled[skeleton]) > 1)
