"""Take SQLite's write lock at the start of a transaction, waiting for it in short steps.

SQLite has one write lock per database file, shared by every process of the stack. Its busy handler sleeps
in ever longer steps (1, 2, 5, 10 ... ms), so a waiter can sleep well past the lock's release; Python's
``sqlite3`` offers no other, so this module tries ``BEGIN IMMEDIATE`` with the busy handler off and sleeps
0.1 to 0.5 ms between tries itself. ``BEGIN IMMEDIATE`` also opens the transaction before its first read,
so a check before a write runs under the lock and no other writer can commit in between. The rarer writers
(appends, intake, the Iceberg catalog) keep SQLite's busy handler. The reasons and figures are in
``docs/decisions/0002-sqlite-write-lock.md``.
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

    Group committers meet at the write lock constantly, and polling for it costs CPU, so between them the
    turn is handed over by a blocking advisory lock (``flock``) on a file beside the database: a waiter
    sleeps in the kernel and wakes when the holder's commit ends. SQLite's lock still guards the data; the
    rarer writers do not take turns, and a committer that meets one polls for the lock. A process that dies
    holding its turn gives it back with its file descriptors.
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
            except OSError:  # no folder (yet) or read-only: SQLite's lock alone, polled for
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
