"""The turn on one table's commits within one process (docs/tables.md, "Compaction and the table writer").

Every commit the table writer sends to the catalog (appends, svcdb operations, its snapshot expiry) is sent
while holding the table's turn; so is a compaction commit after it lost a few races. Holding the turn, the
compaction builds its commit on the current head and sends it before any append of this process can move
that head, within a deadline. The turn is only a lock around sending commits: every commit still requires the
head it was built on, so a commit from another process (the ingress's maintain call) is kept out by the
catalog's own check, and nothing about exactly-once depends on the turn.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from pyiceberg.table import Table


class _Turns:
    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    def of(self, table: Table) -> threading.Lock:
        # Keyed by the table's uuid: every handle (each has its own catalog) of one table shares its turn.
        key = str(table.metadata.table_uuid)
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())


_TURNS = _Turns()


@contextmanager
def writer_turn(table: Table) -> Iterator[None]:
    """Held by the writer while it sends a commit (milliseconds): it waits while a compaction holds it."""
    with _TURNS.of(table):
        yield


@contextmanager
def compaction_turn(table: Table, wait_seconds: float) -> Iterator[bool]:
    """The turn if it came within ``wait_seconds`` (True), else nothing is held (False)."""
    lock = _TURNS.of(table)
    held = lock.acquire(timeout=wait_seconds)
    try:
        yield held
    finally:
        if held:
            lock.release()
