"""Whether an error means that the storage had no room left for a write: the one classification of a full
disk, for every write the service makes.

Full is: ``ENOSPC`` or ``EDQUOT`` from a local file write (the SQLite file, the local object store, the
Iceberg warehouse, DuckDB's files; pyarrow's error text when it carries no errno), SQLite's ``SQLITE_FULL``
("database or disk is full"), PostgreSQL's SQLSTATE ``53100`` (disk_full), DuckDB's I/O error for a full
device, and an S3-compatible service answering that it is out of space (MinIO's ``XMinioStorageFull``, HTTP
507), and the service's own errors that say so (:class:`NoRoom`, mixed into
``sinks.iceberg.exceptions.StorageFull``). Such a write did not happen, and the same write succeeds once
space returns, so: the ingress answers 503 with ``Retry-After`` (``ingress/errors.py``), the workers wait
and try again (``sinks/db/availability.unreachable`` counts a full database as one that cannot be written
now; analytics jobs wait in ``streams/analytics/jobs.py``), and ``/readyz`` says ``storage: full``.

:class:`Sightings` remembers when a process last saw one: a database server or an S3 service that is full is
not a file system this process can measure (``sinks/storage_space.py`` measures those it can).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator

from sqlalchemy import exc as sa_exc

FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
# The C library's text of each, as pyarrow and DuckDB quote it: "No space left on device", "Disk quota
# exceeded".
_FULL_TEXTS = tuple(sorted(os.strerror(number) for number in FULL_ERRNOS))
_POSTGRES_DISK_FULL = "53100"
_S3_FULL_CODES = frozenset({"XMinioStorageFull", "507"})
_S3_FULL_STATUS = 507
_CHAIN_DEPTH = 8


class NoRoom(Exception):
    """Mixed into the service's own errors that say a write found no room (``StorageFull``)."""


def full(exc: BaseException) -> bool:
    """The error, or one it was raised from or while handling, says the storage had no room for a write."""
    return any(_says_full(error) for error in _chain(exc))


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The error, what it was raised from (or, unless suppressed, while handling), and the driver error a
    SQLAlchemy error wraps."""
    current: BaseException | None = exc
    for _ in range(_CHAIN_DEPTH):
        if current is None:
            return
        yield current
        if isinstance(current, sa_exc.DBAPIError) and isinstance(current.orig, BaseException):
            yield current.orig
        following = current.__cause__
        if following is None and not current.__suppress_context__:
            following = current.__context__
        current = following


def _says_full(error: BaseException) -> bool:
    if isinstance(error, NoRoom):
        return True
    if isinstance(error, OSError):
        if error.errno is not None:
            return error.errno in FULL_ERRNOS
        return _full_text(str(error))
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None)
        return code is not None and code & 0xFF == sqlite3.SQLITE_FULL
    # Looked up, not imported: a process without the driver cannot hold its error.
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None and isinstance(error, psycopg.Error):
        return bool(error.sqlstate == _POSTGRES_DISK_FULL)
    duckdb = sys.modules.get("duckdb")
    if duckdb is not None and isinstance(error, duckdb.IOException):
        return _full_text(str(error))
    botocore = sys.modules.get("botocore.exceptions")
    if botocore is not None and isinstance(error, botocore.ClientError):
        return _s3_full(error.response)
    return False


def _full_text(message: str) -> bool:
    return any(text in message for text in _FULL_TEXTS)


def _s3_full(response: object) -> bool:
    if not isinstance(response, dict):
        return False
    code = str(response.get("Error", {}).get("Code", ""))
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return code in _S3_FULL_CODES or status == _S3_FULL_STATUS


class Sightings:
    """When this process last saw a write refused for lack of space: ``recent()`` for ``seconds`` after."""

    def __init__(self, seconds: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._seconds = seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._last: float | None = None

    def saw(self) -> None:
        with self._lock:
            self._last = self._clock()

    def recent(self) -> bool:
        with self._lock:
            return self._last is not None and self._clock() - self._last < self._seconds
