"""Take SQLite's write lock at the start of a transaction, waiting for it in short steps.

SQLite has one write lock per database file, shared by every process of the stack: the ingress and the
worker each commit in groups (the worker one group committer per area), and a few rarer writers (table
appends and intake, the Iceberg catalog) write on their own. A connection that finds the lock taken calls
SQLite's busy handler, which sleeps 1, 2, 5, 10, 15, 20, 25 ... ms between tries: a lock held 3 ms costs
the waiter 8 ms, one held 9 ms costs 18. In the webhook load bench those steps were the slowest commits of
the ingress (p99.9 of a commit 20-35 ms, the largest 55 ms: 1+2+5+10, +15, +20) and every trigger queued
behind such a commit waited as long. Python's ``sqlite3`` offers no other busy handler, so this module
tries ``BEGIN IMMEDIATE`` with the busy handler off and sleeps 0.1 to 0.5 ms between tries itself: a
waiter gets the lock within half a millisecond of its release.

``BEGIN IMMEDIATE`` also opens the transaction before its first read. Python's ``sqlite3`` (legacy
transaction control) begins a transaction only at the first INSERT, UPDATE or DELETE, so the reads a unit
of work makes before it writes (a check before an insert, say) used to run outside it; now they run inside
the transaction and under the lock, and no other writer can commit between the check and the write.

The rarer writers keep SQLite's busy handler: a group committer polling every half millisecond finds the
lock free sooner than they do, which at worst delays them by a group commit or two.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from core.backoff import capped_doubling

BUSY_TIMEOUT_MS = 10_000
"""How long a connection waits for the write lock in SQLite's own busy handler."""

LOCK_TIMEOUT_SECONDS = BUSY_TIMEOUT_MS / 1000
"""How long :func:`begin_immediate` tries for the write lock by default (read at each call)."""

FIRST_PAUSE_SECONDS = 0.0001
LONGEST_PAUSE_SECONDS = 0.0005


def pauses(
    first: float = FIRST_PAUSE_SECONDS, longest: float = LONGEST_PAUSE_SECONDS
) -> Callable[[int], float]:
    """The pause after the ``n``-th failed try (from 1): doubling from ``first`` up to ``longest``."""

    def pause(n: int) -> float:
        return capped_doubling(first, longest, n)

    return pause


DEFAULT_PAUSES = pauses()


class WriteLockTimeout(sqlite3.OperationalError):
    """The write lock stayed taken for the whole timeout; the transaction never began."""


class BusyTimeoutLost(RuntimeError):
    """The connection's busy timeout could not be restored: it must not be used again."""


def _busy(exc: sqlite3.OperationalError) -> bool:
    # The extended code: its low byte is the primary one (SQLITE_BUSY_RECOVERY is 261, SQLITE_BUSY 5).
    return exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY


def begin_immediate(
    connection: sqlite3.Connection,
    *,
    timeout_seconds: float | None = None,
    pause: Callable[[int], float] = DEFAULT_PAUSES,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Begin a write transaction on ``connection``; returns how many tries found the lock taken.

    Raises :class:`WriteLockTimeout` ("database is locked") when the lock stays taken ``timeout_seconds``.
    The connection's busy timeout is restored to :data:`BUSY_TIMEOUT_MS` whatever happens, or
    :class:`BusyTimeoutLost` says it could not be.
    """
    deadline = clock() + (LOCK_TIMEOUT_SECONDS if timeout_seconds is None else timeout_seconds)
    failed = 0
    connection.execute("PRAGMA busy_timeout=0")
    try:
        while True:
            try:
                connection.execute("BEGIN IMMEDIATE")
                return failed
            except sqlite3.OperationalError as exc:
                if not _busy(exc):
                    raise
                if clock() >= deadline:
                    raise WriteLockTimeout(f"database is locked ({failed + 1} tries)") from exc
            failed += 1
            sleep(pause(failed))
    finally:
        try:
            connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        except Exception as exc:
            raise BusyTimeoutLost("the connection's busy timeout could not be restored") from exc


def take(session: Session) -> None:
    """Take the write lock for the session's transaction now (SQLite); other databases need nothing.

    Call it before the transaction's first statement: a connection already in a transaction is left as it is,
    and holds the lock only if that transaction has written. Raises the DBAPI's own exceptions
    (:class:`WriteLockTimeout`), not SQLAlchemy's wrappers. A connection whose busy timeout could not be
    restored is invalidated (closed, not returned to the pool), so nobody inherits a zero timeout.
    """
    connection = session.connection()
    if connection.dialect.name != "sqlite":
        return
    raw = connection.connection.driver_connection
    if isinstance(raw, sqlite3.Connection) and not raw.in_transaction:
        try:
            begin_immediate(raw)
        except BusyTimeoutLost:
            connection.invalidate()
            raise


class WriterTurns:
    """Turns at the write lock for the group committers of every process on one SQLite file.

    The ingress and each worker area run a group committer all day, and at event rates nearly every batch
    writes, so they meet at the write lock constantly. Polling for it (:func:`begin_immediate`) cost the
    ingress a tenth of its CPU at 300 deliveries a second. Between group committers the turn is handed over
    by a blocking advisory lock (``flock``) on a file beside the database instead: a waiter sleeps in the
    kernel and wakes the moment the holder's commit ends. SQLite's own lock still guards the data, and the
    rarer writers (appends, the Iceberg catalog, the admin CLI) do not take turns: a committer that meets
    one of them polls for the lock as before. A process that dies holding its turn gives it back with its
    file descriptors.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.Lock()  # flock does not exclude the threads of one process: they share the fd
        self._fd: int | None = None
        self._pid = 0

    def _descriptor(self) -> int:
        if self._fd is None or self._pid != os.getpid():  # a forked child opens its own file description
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            self._pid = os.getpid()
        return self._fd

    @contextmanager
    def turn(self) -> Iterator[None]:
        with self._local:
            try:
                descriptor = self._descriptor()
            except OSError:  # no folder (yet) or read-only: SQLite's lock alone, polled for as before
                yield
                return
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(descriptor, fcntl.LOCK_UN)


_TURNS: dict[Path, WriterTurns] = {}
_TURNS_LOCK = threading.Lock()


def writer_turns(url: URL) -> WriterTurns | None:
    """The turns of the SQLite file ``url`` names (one object per file and process); None for another
    database or an in-memory one."""
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    path = Path(url.database).resolve()
    with _TURNS_LOCK:
        return _TURNS.setdefault(path, WriterTurns(path.with_name(path.name + ".writers")))
