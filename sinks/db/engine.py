"""Engine and sessions for the metadata DB (SQLite in WAL mode by default, PostgreSQL by URL)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, make_url, text
from sqlalchemy.orm import Session, sessionmaker

from sinks.db.write_lock import BUSY_TIMEOUT_MS

# A server that does not answer (host down, network cut) costs a caller at most connect_timeout seconds per
# connection attempt, and a connection whose server vanished is found dead by TCP keepalives within about
# 25 s instead of the kernel's minutes: callers get their 503, and workers their retry, instead of hanging.
# (libpq ignores the keepalives on a unix socket, where a vanished server is seen at once.) The URL's own
# values win.
_POSTGRES_CONNECT_ARGS = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
}


def with_postgres_connect_args(url: str) -> str:
    """``url`` with the connect timeout and keepalives above in its query, where it names none of its own:
    for engines made elsewhere from a URL alone (the Iceberg catalog's)."""
    parsed = make_url(url)
    missing = {name: str(value) for name, value in _POSTGRES_CONNECT_ARGS.items() if name not in parsed.query}
    return parsed.update_query_dict(missing).render_as_string(hide_password=False)


# The WAL's file is cut back to this once a checkpoint has copied it all: a burst's WAL does not stay on disk.
JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # First: a new file takes its vacuum mode only before anything (WAL mode's header included) is written,
    # so pages freed by deletions can be given back (sinks/db/space.py). On an existing file it changes
    # nothing until a VACUUM, which migration 0026 runs once.
    cursor.execute("PRAGMA auto_vacuum=INCREMENTAL")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT_BYTES}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.close()


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        database = make_url(url).database
        in_file = bool(database) and database != ":memory:"
        if in_file:
            Path(str(database)).parent.mkdir(parents=True, exist_ok=True)
        # A file DB pools as many connections as the ingress has worker threads (40): beyond the pool, every
        # call would open a connection (and run the pragmas) and close it again.
        pooling = {"pool_size": 40, "max_overflow": 40} if in_file else {}
        connect_args = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}
        # hide_parameters: an error message never carries a statement's values (payloads, digests) to a log.
        engine = create_engine(url, connect_args=connect_args, hide_parameters=True, **pooling)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    given = make_url(url).query
    connect_args = {name: value for name, value in _POSTGRES_CONNECT_ARGS.items() if name not in given}
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=10,
        max_overflow=20,
        connect_args=connect_args,
        hide_parameters=True,
    )


def make_sessions(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(sessions: sessionmaker[Session]) -> Iterator[Session]:
    """One unit of work: commit on success, roll back on any error."""
    with sessions.begin() as session:
        yield session


def ping(engine: Engine) -> None:
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))
