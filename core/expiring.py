"""A thread-safe map whose values are kept for a while from when they were read: rows that change rarely
and are read on every delivery, where a change must still be seen within that while.

Bounded by its number of entries, least recently used out first (``core/lru.py``); the clock is the
caller's (``time.monotonic`` in the service, a fake one in tests).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar, overload

from core.lru import Lru

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
D = TypeVar("D")


class Expiring(Generic[K, V]):
    def __init__(self, seconds: float, entries: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self._kept: Lru[K, tuple[float, V]] = Lru(entries)

    @overload
    def get(self, key: K) -> V | None: ...

    @overload
    def get(self, key: K, default: D) -> V | D: ...

    def get(self, key: K, default: object = None) -> object:
        """The value kept for ``key`` if it was read less than ``seconds`` ago, else ``default``."""
        found = self._kept.get(key)
        if found is None or found[0] <= self.clock():
            return default
        return found[1]

    def put(self, key: K, value: V, read_at: float) -> None:
        """Keep ``value``, read at ``read_at`` (on the clock, taken before the read began), until
        ``seconds`` after that."""
        self._kept.put(key, (read_at + self.seconds, value))

    def discard(self, key: K) -> None:
        self._kept.discard(key)

    def clear(self) -> None:
        self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)
