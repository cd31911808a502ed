"""Group committers take turns at SQLite's write lock through an advisory lock beside the database file.

Two ``WriterTurns`` objects on one path hold two open file descriptions, which exclude each other as two
processes' would; threads stand in for the processes (the unit tier starts none)."""

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from sinks.db.engine import make_engine, make_sessions
from sinks.db.group_commit import GroupCommitter
from sinks.db.write_lock import WriterTurns, writer_turns

pytestmark = pytest.mark.unit


def test_a_turn_waits_for_the_holder_and_follows_at_once(tmp_path: Path) -> None:
    path = tmp_path / "svc.db.writers"
    holder, waiter = WriterTurns(path), WriterTurns(path)  # as two processes would hold it
    held, release, waited = threading.Event(), threading.Event(), threading.Event()
    order: list[str] = []

    def hold() -> None:
        with holder.turn():
            order.append("holder in")
            held.set()
            release.wait(10)
            order.append("holder out")

    def wait() -> None:
        held.wait(10)
        with waiter.turn():
            order.append("waiter in")
        waited.set()

    threads = [threading.Thread(target=hold), threading.Thread(target=wait)]
    for thread in threads:
        thread.start()
    assert held.wait(10)
    assert not waited.wait(0.3), "the second writer took its turn while the first held it"
    release.set()
    assert waited.wait(10)
    for thread in threads:
        thread.join(10)
    assert order == ["holder in", "holder out", "waiter in"]


def test_the_threads_of_one_process_take_turns_too(tmp_path: Path) -> None:
    turns = WriterTurns(tmp_path / "svc.db.writers")
    inside = 0
    most = 0
    guard = threading.Lock()

    def work() -> None:
        nonlocal inside, most
        for _ in range(200):
            with turns.turn():
                with guard:
                    inside += 1
                    most = max(most, inside)
                with guard:
                    inside -= 1

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert most == 1


def test_a_missing_folder_means_no_turn_not_an_error(tmp_path: Path) -> None:
    turns = WriterTurns(tmp_path / "not yet" / "svc.db.writers")
    with turns.turn():
        pass
    (tmp_path / "not yet").mkdir()
    with turns.turn():
        assert turns.path.exists()


def test_turns_are_for_sqlite_files_only_and_one_per_file(tmp_path: Path) -> None:
    url = make_url(f"sqlite:///{tmp_path / 'svc.db'}")
    first = writer_turns(url)
    assert first is not None and first is writer_turns(url)
    assert first.path == (tmp_path / "svc.db.writers").resolve()
    assert writer_turns(make_url("sqlite://")) is None
    assert writer_turns(make_url("sqlite:///:memory:")) is None
    assert writer_turns(make_url("postgresql://u:p@db/svc")) is None


async def test_two_group_committers_on_one_file_both_commit_everything(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'svc.db'}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE t (committer TEXT, n INTEGER)"))
    committers = [GroupCommitter(make_sessions(engine), name=f"c{index}") for index in range(2)]
    for committer in committers:
        committer.start()
    try:

        def insert(name: str, n: int) -> Callable[[Session], object]:
            return lambda session: session.execute(text("INSERT INTO t VALUES (:c, :n)"), {"c": name, "n": n})

        await asyncio.gather(
            *(
                committer.run(insert(f"c{index}", n))
                for index, committer in enumerate(committers)
                for n in range(300)
            )
        )
    finally:
        for committer in committers:
            committer.stop()
    with engine.connect() as connection:
        counts: dict[str, int] = dict(
            connection.execute(text("SELECT committer, COUNT(*) FROM t GROUP BY committer")).all()
        )
    engine.dispose()
    assert counts == {"c0": 300, "c1": 300}
