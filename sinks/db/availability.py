"""Whether a metadata-DB error means the database cannot be reached now, rather than that the work is wrong.

*Unreachable* errors go away by themselves once the database is back: a refused or reset connection, a
connection the server closed while shutting down or restarting, a server not yet taking connections, a pool
with no connection to give, SQLite's busy, locked or cannot-open. The ingress answers them with 503 and
``Retry-After``; the workers wait and run the same work again. Any other error (a constraint, a bad
statement, a serialization failure) is the work's own and is never retried blindly: a worker retrying it
would retry forever. A database whose disk is full (SQLite's ``SQLITE_FULL``, PostgreSQL's ``53100``; the
classification is :mod:`sinks.storage_full`'s) counts as unreachable too: the write did not happen, the
workers wait for space as they wait for a server, and the ingress answers 503 saying the storage is full.

:func:`describe` names an error for a log line without what SQLAlchemy adds to its message (the statement
and its parameters, which may hold a payload) and without a password a driver might echo.
"""

from __future__ import annotations

import re
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sqlalchemy import exc as sa_exc

from core.backoff import capped_doubling
from sinks.db.write_lock import WriteLockTimeout
from sinks.storage_full import full

# PostgreSQL SQLSTATEs of a server going away or not taking connections; class 08 is every connection error.
_UNREACHABLE_STATES = frozenset({"57P01", "57P02", "57P03", "53300"})
_SQLITE_CONTENTION = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
_SQLITE_UNREACHABLE = _SQLITE_CONTENTION | {sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR}
_CHAIN_DEPTH = 5
_DESCRIPTION_CHARS = 300
_URL_PASSWORD = re.compile(r"(://[^:/?#@\s]*:)[^@\s]*@")
_PASSWORD_SETTING = re.compile(r"(password\s*=\s*)('[^']*'|\S+)", re.IGNORECASE)


class DatabaseUnreachable(Exception):
    """Raised without trying the database, which was found unreachable a moment ago."""


@dataclass(frozen=True)
class Backoff:
    """Pauses between tries of work that found the database unreachable: doubling up to ``longest``."""

    first: float = 0.05
    longest: float = 2.0

    def pause(self, failures: int) -> float:
        """The pause after the ``failures``-th failure in a row (from 1)."""
        return capped_doubling(self.first, self.longest, failures)


class OutageClock:
    """How long this process recently waited for the database, so that a sweep judging work by its age (an
    attempt running past its timeout) does not count the time the work spent waiting for the database.

    ``lag()`` is the length of the outages that ended within ``horizon`` seconds (the longest a piece of
    work may run) plus ``margin`` each (a waiting caller sees the database back up to a pause later), and
    the time of the outage under way.
    """

    def __init__(self, *, margin: float, horizon: float, clock: Callable[[], float] = time.time) -> None:
        self._margin = margin
        self._horizon = horizon
        self._clock = clock
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._lag = 0.0
        self._lag_until = 0.0

    def failed(self) -> None:
        with self._lock:
            if self._down_since is None:
                self._down_since = self._clock()

    def answered(self) -> None:
        with self._lock:
            if self._down_since is None:
                return
            moment = self._clock()
            earlier = self._lag if moment < self._lag_until else 0.0
            self._lag = earlier + (moment - self._down_since) + self._margin
            self._lag_until = moment + self._lag + self._horizon
            self._down_since = None

    def lag(self) -> float:
        with self._lock:
            moment = self._clock()
            ended = self._lag if moment < self._lag_until else 0.0
            return ended + (moment - self._down_since if self._down_since is not None else 0.0)


def unreachable(exc: BaseException) -> bool:
    """The error, or one it was raised from, says the database cannot be reached (or written) right now."""
    return any(_unreachable(error) for error in _chain(exc)) or full(exc)


def contention(exc: BaseException) -> bool:
    """SQLite's write lock stayed taken (busy, locked): the database is there, only busy."""
    for error in _chain(exc):
        orig = error.orig if isinstance(error, sa_exc.DBAPIError) else error
        if isinstance(orig, WriteLockTimeout):
            return True
        if isinstance(orig, sqlite3.OperationalError):
            code = getattr(orig, "sqlite_errorcode", None)
            if code is not None and code & 0xFF in _SQLITE_CONTENTION:
                return True
    return False


def _chain(exc: BaseException) -> Iterator[BaseException]:
    current: BaseException | None = exc
    for _ in range(_CHAIN_DEPTH):
        if current is None:
            return
        yield current
        current = current.__cause__


def _unreachable(error: BaseException) -> bool:
    if isinstance(
        error, DatabaseUnreachable | sa_exc.DisconnectionError | sa_exc.TimeoutError
    ):  # TimeoutError: the pool's
        return True
    if isinstance(error, sa_exc.DBAPIError):
        return error.connection_invalidated or (error.orig is not None and _driver_unreachable(error.orig))
    return _driver_unreachable(error)


def _driver_unreachable(error: BaseException) -> bool:
    if isinstance(error, WriteLockTimeout):
        return True
    if isinstance(error, sqlite3.OperationalError):
        code = getattr(error, "sqlite_errorcode", None)
        return code is not None and code & 0xFF in _SQLITE_UNREACHABLE
    psycopg = sys.modules.get("psycopg")  # not imported: no psycopg error can exist
    if psycopg is not None and isinstance(error, psycopg.OperationalError | psycopg.InterfaceError):
        state: str | None = error.sqlstate
        # No SQLSTATE: the client's own report that it could not connect or lost the connection.
        return state is None or state.startswith("08") or state in _UNREACHABLE_STATES
    return False


def describe(exc: BaseException) -> str:
    """``SQLAlchemyClass(DriverClass SQLSTATE): first line of the driver's message``, passwords hidden."""
    name = type(exc).__name__
    orig = exc.orig if isinstance(exc, sa_exc.DBAPIError) else None
    if orig is not None:
        state = getattr(orig, "sqlstate", None)
        name = f"{name}({type(orig).__name__}{' ' + state if state else ''})"
        detail = str(orig)
    else:
        detail = str(exc).split(" (Background on this error", 1)[0]
    first = detail.strip().splitlines()[0] if detail.strip() else ""
    return f"{name}: {redact(first)}"[:_DESCRIPTION_CHARS]


def redact(text: str) -> str:
    """``text`` with the password of any URL and of any ``password=`` setting replaced by ``***``."""
    return _PASSWORD_SETTING.sub(r"\1***", _URL_PASSWORD.sub(r"\1***@", text))
