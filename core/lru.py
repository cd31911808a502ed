"""A small thread-safe least-recently-used map bounded by its number of entries.

For values that are costly to compute and cheap to keep, looked up from several threads (``functools.
lru_cache`` keys on every argument, a tenant's included, and cannot be read without computing). Validity is
the caller's business and belongs in the key. ``core/bounded_memo.py`` is the one bounded by size as well.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"an LRU map holds at least one entry, not {size}")
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for ``key`` (now the most recently used), else ``make()``'s, kept. ``make`` runs
        outside the lock: two misses of one key both compute it, as ``lru_cache`` does."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
