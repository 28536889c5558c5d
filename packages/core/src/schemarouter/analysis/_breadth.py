"""A tool's breadth: how many distinct words its descriptive fields list, and what each is worth.

A tool that states one purpose lists a few words; a description stuffed with everyday English
lists thousands, and so shares a word with nearly any request. Counted like any other tool's,
each of those words would rank it, add to its gate evidence and lower the rarity of the same
word in the honest tools: the stuffed tool enters unrelated allow-sets and pushes the right
tool out. So every word of a tool's descriptive fields (description, parameter names,
parameter text) is worth `reference / breadth` of a word of a focused tool once the tool lists
more than `reference` distinct terms there (`content_factor`): a tool earns no more per word
than its breadth allows, wherever a request's words land in it. Ranking (its BM25F pseudo term
frequency), the gate's evidence and the document frequency behind every term's rarity all
read a tool's descriptive words through that factor; its name, title and source count as
before (they are bounded already: see `MAX_IDENTIFIER_TOKENS`).

The breadth is counted from the postings (the terms that hit a descriptive field of the tool),
so an index restored from its arrays works it out again without any stored field.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ._fields import FIELDS

__all__ = ["CONTENT_FIELDS", "CONTENT_MASK", "content_factor", "content_factors"]

CONTENT_FIELDS = ("description", "params", "param_text")
"""The fields whose distinct terms make a tool's breadth."""
CONTENT_MASK = sum(1 << FIELDS.index(name) for name in CONTENT_FIELDS)
"""The bits of `CONTENT_FIELDS` in a posting's field bitmask (`analysis.FIELDS` order)."""


def content_factor(breadth: int, reference: float, power: float) -> float:
    """What each descriptive word of a tool listing `breadth` distinct terms is worth, in (0, 1]:
    1 up to `reference` terms, `(reference / breadth) ** power` past it."""
    if breadth <= reference or power <= 0.0:
        return 1.0
    return (reference / breadth) ** power


def content_factors(
    docs: NDArray[np.integer], fields: NDArray[np.integer], size: int, reference: float, power: float
) -> NDArray[np.float64]:
    """`content_factor` of every tool, from the postings laid end to end (`docs` and the field
    bitmask of each posting): a tool's breadth is its postings that hit a descriptive field."""
    breadth = np.bincount(docs[(fields & CONTENT_MASK) != 0], minlength=size)
    return np.array([content_factor(b, reference, power) for b in breadth.tolist()], dtype=np.float64)
