"""Remembering a run's routing decision: an adapter's hooks ask for it several times per model
step (one tool filter call per tool, one check per call), and it must be worked out once.

Two shapes, for the two ways frameworks identify a run step:

- `ContextMemo`: keyed on the run context object itself (held weakly, so a finished run's entry
  can never answer a new context that reuses its `id()`) and on the full routing input;
- `RunMemo`: keyed on a hashable key the adapter builds (a run id with the routing input).

Both are bounded (least recently used dropped first) and thread-safe. A value is only returned
for the same key it was stored with: a changed request, principal or catalog version is routed
afresh.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["ContextMemo", "RunMemo"]

V = TypeVar("V")


class ContextMemo(Generic[V]):
    """At most one value per live context object, stored with its key; at most `size` contexts
    remembered. A context that cannot be weakly referenced is never remembered."""

    def __init__(self, size: int) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError(f"size must be an int >= 1, got {size!r}")
        self._size = size
        self._entries: OrderedDict[int, tuple[weakref.ref[object], Hashable, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, context: object, key: Hashable) -> V | None:
        """The value stored for this very context object with this key, or None."""
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
        """Remember `value` for `context` and `key` (replacing what the context had)."""
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


class RunMemo(Generic[V]):
    """At most `size` values by key (0: remembers nothing)."""

    def __init__(self, size: int) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError(f"size must be an int >= 0, got {size!r}")
        self._size = size
        self._entries: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        """The value stored with `key`, or None."""
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: Hashable, value: V) -> None:
        """Remember `value` for `key`."""
        if not self._size:
            return
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
