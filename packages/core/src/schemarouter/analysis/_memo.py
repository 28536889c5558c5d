"""Bounded memo tables for per-word work: a full table starts over.

Query words repeat, so their tokens, stems and index vectors are remembered. A table that
kept only the first words it saw would, in a long-running process, fill with the long tail
(ids, numbers, typos) and then never remember the words of later traffic. A full table is
cleared instead: memory stays bounded, and the words in use are remembered again within a few
requests. Clearing changes no result, only when work is redone. Each operation on the table is
atomic, so concurrent readers at worst miss and recompute.
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["remember"]

K = TypeVar("K")
V = TypeVar("V")


def remember(table: dict[K, V], key: K, value: V, limit: int) -> V:
    """Store `value` under `key` in `table` (cleared first when it holds `limit` entries); return it."""
    if len(table) >= limit:
        table.clear()
    table[key] = value
    return value
