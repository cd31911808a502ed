"""The one thread-safe least-recently-used map: bounded by its number of entries and, where the caller
measures its values (a JSON length, a footer's size), by their total size as well.

For values that are costly to compute and cheap to keep, looked up from several threads (``functools.
lru_cache`` keys on every argument, a tenant's included, and cannot be read without computing). Validity is
the caller's business and belongs in the key; ``core/expiring.py`` keeps values for a time instead. A value
over the per-entry size is not kept at all, so one huge value never empties the map of the others.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar, overload

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
D = TypeVar("D")


@dataclass(frozen=True)
class SizeBounds:
    """At most ``total_bytes`` of values together, none over ``entry_bytes``."""

    total_bytes: int
    entry_bytes: int

    def __post_init__(self) -> None:
        if self.total_bytes < 1 or not 0 < self.entry_bytes <= self.total_bytes:
            raise ValueError(f"size bounds must be positive, an entry within the total: {self}")


class Lru(Generic[K, V]):
    """At most ``entries`` values (and, with ``sizes``, at most their bytes), least recently used out first.
    ``on_drop`` is called with every value that leaves (pushed out, replaced, discarded or cleared), outside
    the lock: a connection kept here is closed there."""

    def __init__(
        self,
        entries: int,
        *,
        sizes: SizeBounds | None = None,
        on_drop: Callable[[V], None] | None = None,
    ) -> None:
        if entries < 1:
            raise ValueError(f"an LRU map holds at least one entry, not {entries}")
        self.entries = entries
        self.sizes = sizes
        self._on_drop = on_drop
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @overload
    def get(self, key: K) -> V | None: ...

    @overload
    def get(self, key: K, default: D) -> V | D: ...

    def get(self, key: K, default: object = None) -> object:
        """The value kept for ``key`` (now the most recently used), or ``default``."""
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return default
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: K, value: V, size: int = 0) -> bool:
        """Keep ``value`` (of ``size`` bytes) for ``key``, pushing out the least recently used values until
        the bounds hold again; False (nothing kept, nothing pushed out) when it alone is over the per-entry
        size."""
        if size < 0:
            raise ValueError("a size cannot be negative")
        if self.sizes is not None and size > self.sizes.entry_bytes:
            return False
        with self._lock:
            dropped = [old for old in self._pop(key) if old is not value]
            self._items[key] = (value, size)
            self._bytes += size
            total = self.sizes.total_bytes if self.sizes is not None else None
            while len(self._items) > self.entries or (total is not None and self._bytes > total):
                _, (oldest, oldest_size) = self._items.popitem(last=False)
                self._bytes -= oldest_size
                dropped.append(oldest)
        self._dropped(dropped)
        return True

    def get_or_make(self, key: K, make: Callable[[], V], size: Callable[[V], int] | None = None) -> V:
        """The value kept for ``key``, else ``make()``'s, kept (measured by ``size``). ``make`` runs outside
        the lock: two misses of one key both compute it, as ``lru_cache`` does."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found[0]
        value = make()
        self.put(key, value, 0 if size is None else size(value))
        return value

    def discard(self, key: K) -> None:
        with self._lock:
            dropped = self._pop(key)
        self._dropped(dropped)

    def clear(self) -> None:
        with self._lock:
            dropped = [value for value, _ in self._items.values()]
            self._items.clear()
            self._bytes = 0
        self._dropped(dropped)

    @property
    def total_bytes(self) -> int:
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def _pop(self, key: K) -> list[V]:
        found = self._items.pop(key, None)
        if found is None:
            return []
        self._bytes -= found[1]
        return [found[0]]

    def _dropped(self, values: list[V]) -> None:
        if self._on_drop is not None:
            for value in values:
                self._on_drop(value)
