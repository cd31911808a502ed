"""Taking SQLite's write lock in short steps, on real database files (two connections = two writers)."""

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session, sessionmaker

from sinks.db import write_lock
from sinks.db.engine import make_engine
from sinks.db.group_commit import GroupCommitter
from sinks.db.write_lock import (
    BUSY_TIMEOUT_MS,
    BusyTimeoutLost,
    WriteLockTimeout,
    begin_immediate,
    pauses,
    take,
)

pytestmark = pytest.mark.unit


def _connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    return connection


@pytest.fixture
def db(tmp_path: Path) -> Iterator[tuple[sqlite3.Connection, sqlite3.Connection]]:
    path = tmp_path / "db.sqlite"
    setup = _connect(path)
    setup.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    setup.commit()
    setup.close()
    holder, waiter = _connect(path), _connect(path)
    yield holder, waiter
    holder.close()
    waiter.close()


def _busy_timeout(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA busy_timeout").fetchone()[0])


def test_pauses_double_from_a_tenth_of_a_millisecond_to_half_a_millisecond() -> None:
    assert [round(pauses()(n) * 1e6) for n in range(1, 7)] == [100, 200, 400, 500, 500, 500]
    assert pauses(0.001, 0.004)(50) == 0.004


def test_a_free_lock_is_taken_at_once_and_the_busy_timeout_is_restored(
    db: tuple[sqlite3.Connection, sqlite3.Connection],
) -> None:
    _holder, waiter = db
    assert begin_immediate(waiter) == 0
    assert waiter.in_transaction
    assert _busy_timeout(waiter) == BUSY_TIMEOUT_MS
    waiter.execute("INSERT INTO t (v) VALUES ('x')")
    waiter.commit()


def test_a_taken_lock_is_retried_after_each_short_pause_until_it_is_released(
    db: tuple[sqlite3.Connection, sqlite3.Connection],
) -> None:
    holder, waiter = db
    holder.execute("BEGIN IMMEDIATE")
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 3:
            holder.commit()  # the holder lets go during the third pause

    assert begin_immediate(waiter, sleep=sleep) == 3
    assert [round(s * 1e6) for s in slept] == [100, 200, 400]
    assert waiter.in_transaction and _busy_timeout(waiter) == BUSY_TIMEOUT_MS
    # The waiter holds the lock now: the former holder cannot write.
    holder.execute("PRAGMA busy_timeout=0")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        holder.execute("BEGIN IMMEDIATE")
    waiter.rollback()


def test_a_lock_held_past_the_timeout_raises_database_is_locked_and_restores_the_busy_timeout(
    db: tuple[sqlite3.Connection, sqlite3.Connection],
) -> None:
    holder, waiter = db
    holder.execute("BEGIN IMMEDIATE")
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    with pytest.raises(WriteLockTimeout, match="locked"):
        begin_immediate(waiter, timeout_seconds=0.01, clock=lambda: now[0], sleep=sleep)
    assert 0.01 <= now[0] < 0.0106  # gave up at the first try past the deadline
    assert not waiter.in_transaction and _busy_timeout(waiter) == BUSY_TIMEOUT_MS
    holder.rollback()


def test_a_waiter_in_another_thread_gets_the_lock_once_the_holder_commits(
    db: tuple[sqlite3.Connection, sqlite3.Connection],
) -> None:
    holder, waiter = db
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO t (v) VALUES ('first')")
    tries: list[int] = []
    found_taken = threading.Event()

    def pause(seconds: float) -> None:
        found_taken.set()
        time.sleep(seconds)

    def wait() -> None:
        tries.append(begin_immediate(waiter, sleep=pause))
        waiter.execute("INSERT INTO t (v) VALUES ('second')")
        waiter.commit()

    thread = threading.Thread(target=wait)
    thread.start()
    assert found_taken.wait(timeout=10)  # the waiter found the lock taken at least once
    holder.commit()
    thread.join(timeout=10)
    assert tries and tries[0] >= 1
    assert [row[0] for row in holder.execute("SELECT v FROM t ORDER BY id")] == ["first", "second"]


def test_a_read_before_the_write_is_under_the_lock_so_no_writer_commits_in_between(
    db: tuple[sqlite3.Connection, sqlite3.Connection],
) -> None:
    holder, waiter = db
    begin_immediate(waiter)
    count = waiter.execute("SELECT count(*) FROM t").fetchone()[0]  # a check before the write
    holder.execute("PRAGMA busy_timeout=0")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        holder.execute("INSERT INTO t (v) VALUES ('meanwhile')")  # sqlite3 begins here and needs the lock
    holder.rollback()
    waiter.execute("INSERT INTO t (v) VALUES (?)", (f"after {count}",))
    waiter.commit()
    assert [row[0] for row in holder.execute("SELECT v FROM t ORDER BY id")] == ["after 0"]


def test_take_begins_the_sessions_transaction_on_sqlite(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'svc.db'}")
    sessions = sessionmaker(engine)
    with sessions.begin() as session:
        take(session)
        raw = session.connection().connection.driver_connection
        assert isinstance(raw, sqlite3.Connection) and raw.in_transaction
        take(session)  # already in a transaction: nothing more to do
        session.execute(text("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY)"))
        assert _busy_timeout(raw) == BUSY_TIMEOUT_MS
    engine.dispose()


def test_take_leaves_other_databases_alone(tmp_path: Path) -> None:
    class NotSqlite:
        name = "postgresql"

    engine = create_engine(f"sqlite:///{tmp_path / 'other.db'}")
    with sessionmaker(engine).begin() as session:
        connection = session.connection()
        connection.dialect = NotSqlite()  # type: ignore[assignment]
        take(session)
        raw = connection.connection.driver_connection
        assert isinstance(raw, sqlite3.Connection) and not raw.in_transaction
    engine.dispose()


class _RestoreFails(sqlite3.Connection):
    """A connection whose busy timeout cannot be set back (as if it had broken meanwhile)."""

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if sql.startswith("PRAGMA busy_timeout=") and sql != "PRAGMA busy_timeout=0":
            raise sqlite3.OperationalError("disk I/O error")
        return super().execute(sql, *args)  # type: ignore[arg-type]


def test_a_connection_whose_busy_timeout_is_not_restored_is_invalidated_not_pooled(tmp_path: Path) -> None:
    path = tmp_path / "flaky.db"
    engine = create_engine(
        "sqlite://", creator=lambda: sqlite3.connect(path, factory=_RestoreFails, check_same_thread=False)
    )
    session = sessionmaker(engine)()
    connection = session.connection()
    with pytest.raises(BusyTimeoutLost):
        take(session)
    assert connection.invalidated
    session.close()
    engine.dispose()


def test_a_group_commit_that_cannot_take_the_lock_fails_each_item_once_without_replaying(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "svc.db"
    engine = make_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"))
    monkeypatch.setattr(write_lock, "LOCK_TIMEOUT_SECONDS", 0.05)
    holder = _connect(path)
    holder.execute("BEGIN IMMEDIATE")
    ran: list[str] = []
    committer = GroupCommitter(sessionmaker(engine), max_batch=8)
    sizes: list[int] = []  # every batch committed, replays included
    commit = committer._commit

    def counted(batch: list[Any]) -> list[Any]:
        sizes.append(len(batch))
        return commit(batch)

    monkeypatch.setattr(committer, "_commit", counted)

    def work(name: str) -> Callable[[Session], str]:
        def run(session: Session) -> str:
            ran.append(name)
            return name

        return run

    async def main() -> list[object]:
        return await asyncio.gather(*(committer.run(work(f"w{i}")) for i in range(5)), return_exceptions=True)

    committer.start()
    try:
        results = asyncio.run(main())
    finally:
        committer.stop()
        holder.rollback()
        holder.close()
        engine.dispose()
    assert ran == []
    assert all(isinstance(result, WriteLockTimeout) for result in results)
    assert sum(sizes) == 5  # each item was tried in one batch only: a replay would add its items again
