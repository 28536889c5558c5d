"""A bounded per-run-context memo of routing outcomes.

Entries are keyed on the identity of the run context *and* the full routing input
(query, principal, catalog version), so one run never sees another run's allow-set,
and a changed request or catalog is routed afresh. Contexts are held weakly and
checked on every lookup: a finished run's entry can never be matched by a new
context that happens to reuse its `id()`.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["ContextMemo"]

V = TypeVar("V")


class ContextMemo(Generic[V]):
    """At most one value per live context object; at most `size` contexts remembered (LRU)."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("size must be >= 1")
        self._size = size
        self._entries: OrderedDict[int, tuple[weakref.ref[object], Hashable, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, context: object, key: Hashable) -> V | None:
        with self._lock:
            entry = self._entries.get(id(context))
            if entry is None:
                return None
            ref, stored_key, value = entry
            if ref() is not context or stored_key != key:
                return None
            self._entries.move_to_end(id(context))
            return value

    def put(self, context: object, key: Hashable, value: V) -> None:
        try:
            ref = weakref.ref(context)
        except TypeError:
            return  # not weak-referenceable: never cached, always recomputed
        with self._lock:
            self._entries[id(context)] = (ref, key, value)
            self._entries.move_to_end(id(context))
            if len(self._entries) > self._size:
                for ident in [i for i, (r, _, _) in self._entries.items() if r() is None]:
                    del self._entries[ident]
                while len(self._entries) > self._size:
                    self._entries.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
