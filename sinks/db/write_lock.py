"""Take SQLite's write lock at the start of a transaction, waiting for it in short steps.

SQLite has one write lock per database file, shared here by two processes (the ingress and the worker each
commit in groups). A connection that finds it taken calls SQLite's busy handler, which sleeps 1, 2, 5, 10,
15, 20, 25 ... ms between tries: a lock held 3 ms costs the waiter 8 ms, one held 9 ms costs 18. In the
webhook load bench those steps were the slowest commits of the ingress (p99.9 of a commit 20-35 ms, the
largest 55 ms: 1+2+5+10, +15, +20) and every trigger queued behind such a commit waited as long. Python's
``sqlite3`` offers no other busy handler, so this module tries ``BEGIN IMMEDIATE`` with the busy handler
off and sleeps 0.1 to 0.5 ms between tries itself: a waiter gets the lock within half a millisecond of its
release.

``BEGIN IMMEDIATE`` also takes the lock before the transaction's first read, so a transaction that reads
and then writes never finds its snapshot stale at the first write (``SQLITE_BUSY_SNAPSHOT``, which no busy
handler retries).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

from sqlalchemy.orm import Session

BUSY_TIMEOUT_MS = 10_000
"""How long a connection waits for the write lock, in SQLite's own busy handler and in :func:`take`."""

FIRST_PAUSE_SECONDS = 0.0001
LONGEST_PAUSE_SECONDS = 0.0005


def pauses(
    first: float = FIRST_PAUSE_SECONDS, longest: float = LONGEST_PAUSE_SECONDS
) -> Callable[[int], float]:
    """The pause after the ``n``-th failed try (from 1): doubling from ``first`` up to ``longest``."""

    def pause(n: int) -> float:
        return min(longest, first * float(2 ** min(n - 1, 16)))

    return pause


DEFAULT_PAUSES = pauses()


def _busy(exc: sqlite3.OperationalError) -> bool:
    return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY or "locked" in str(exc)


def begin_immediate(
    connection: sqlite3.Connection,
    *,
    timeout_seconds: float = BUSY_TIMEOUT_MS / 1000,
    pause: Callable[[int], float] = DEFAULT_PAUSES,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Begin a write transaction on ``connection``; returns how many tries found the lock taken.

    Raises ``sqlite3.OperationalError`` ("database is locked") when the lock stays taken ``timeout_seconds``.
    The connection's busy timeout is restored to :data:`BUSY_TIMEOUT_MS` whatever happens.
    """
    deadline = clock() + timeout_seconds
    failed = 0
    connection.execute("PRAGMA busy_timeout=0")
    try:
        while True:
            try:
                connection.execute("BEGIN IMMEDIATE")
                return failed
            except sqlite3.OperationalError as exc:
                if not _busy(exc) or clock() >= deadline:
                    raise
            failed += 1
            sleep(pause(failed))
    finally:
        connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")


def take(session: Session) -> None:
    """Take the write lock for the session's transaction now (SQLite); other databases need nothing."""
    connection = session.connection()
    if connection.dialect.name != "sqlite":
        return
    raw = connection.connection.driver_connection
    if isinstance(raw, sqlite3.Connection) and not raw.in_transaction:
        begin_immediate(raw)
