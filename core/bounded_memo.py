"""A thread-safe least-recently-used memo bounded by its number of entries and by their total size.

For values that are costly to compute and cheap to keep, looked up from several threads (the ingress's
worker threads). Validity is the caller's business and belongs in the key: the memo never expires anything by
time, so a key must name everything its value depends on (ids of immutable things, versions). The size of a
value is whatever the caller measures it as (its JSON length, say); a value larger than ``max_entry_bytes``
is not kept at all, so one huge value never empties the memo of the others.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass(frozen=True)
class MemoBounds:
    """At most ``entries`` values of at most ``total_bytes`` together, none over ``entry_bytes``."""

    entries: int
    total_bytes: int
    entry_bytes: int

    def __post_init__(self) -> None:
        if self.entries < 1 or self.total_bytes < 1 or not 0 < self.entry_bytes <= self.total_bytes:
            raise ValueError(f"memo bounds must be positive, an entry within the total: {self}")


class BoundedMemo(Generic[K, V]):
    def __init__(self, bounds: MemoBounds) -> None:
        self.bounds = bounds
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept for ``key`` (now the most recently used), or None."""
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: K, value: V, size: int) -> bool:
        """Keep ``value`` of ``size`` bytes for ``key``, dropping the least recently used values until the
        bounds hold again; False (nothing kept) when the value alone is over the per-entry bound."""
        if size < 0:
            raise ValueError("a size cannot be negative")
        if size > self.bounds.entry_bytes:
            return False
        with self._lock:
            self._drop(key)
            self._items[key] = (value, size)
            self._bytes += size
            while len(self._items) > self.bounds.entries or self._bytes > self.bounds.total_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped
        return True

    def discard(self, key: K) -> None:
        with self._lock:
            self._drop(key)

    def _drop(self, key: K) -> None:
        found = self._items.pop(key, None)
        if found is not None:
            self._bytes -= found[1]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

    @property
    def total_bytes(self) -> int:
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
