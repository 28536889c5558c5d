"""Words that tool catalogs and requests use for the same thing: "fetch" / "retrieve", "photo" / "image".

A request says "save the report", the tool is `write_file`; "remove the entry", the tool is
`delete_record`. Stemming folds a word's own forms, not other words, so these share no term.
Each group below lists words that name the same action or object in the language of tools
and requests. A request word matches the catalog's terms for the other words of its group
too, at a lower quality than its own term (see `IndexSettings.synonym_quality`); the index
itself is not changed.

Only groups whose words are interchangeable in what a tool does are listed. A word with a
common second sense that would send requests to the wrong tools is left out: "book" (a
reservation, and something to read), "record" (to store, and audio), "track" (a song, and to
follow), "order" (to buy, and to sort), "share" (stock, and to send), "issue" (a ticket, and
a magazine).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["GROUPS", "synonyms_by_stem"]

GROUPS: tuple[tuple[str, ...], ...] = (
    # actions
    ("fetch", "retrieve", "obtain"),  # "get" is a stop-word
    ("search", "find", "lookup", "locate"),
    ("create", "generate"),
    ("delete", "remove", "erase"),
    ("update", "modify", "edit", "alter"),
    ("write", "save", "store"),
    ("run", "execute", "invoke"),
    ("stop", "terminate", "kill", "halt"),
    ("list", "enumerate"),
    ("calculate", "compute"),
    ("check", "verify"),
    ("buy", "purchase"),
    ("fix", "repair"),
    ("cancel", "abort"),
    ("send", "dispatch"),
    # things
    ("image", "picture", "photo", "photograph"),
    ("movie", "film"),
    ("car", "vehicle", "automobile"),
    ("price", "cost"),
    ("song", "tune"),
    ("doctor", "physician"),
    ("lawyer", "attorney"),
    ("trip", "journey"),
    ("hotel", "lodging", "accommodation"),
    ("company", "business"),
    ("news", "headline"),
    ("workout", "exercise"),
)


def synonyms_by_stem(stem: Callable[[str], str]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Per stem of a listed word, the other words of its group as (stem, word), in table order.

    A word in two groups gets both groups' words; words of one group that share a stem are not
    each other's synonyms."""
    out: dict[str, dict[str, str]] = {}
    for group in GROUPS:
        stems = {stem(word): word for word in reversed(group)}  # a stem's first word names it
        for own in stems:
            others = out.setdefault(own, {})
            for other in dict.fromkeys(stem(word) for word in group):
                if other != own:
                    others.setdefault(other, stems[other])
    return {own: tuple(others.items()) for own, others in out.items() if others}
