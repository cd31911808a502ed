"""Gathered work in a group commit: the items of one kind in a batch run in one call, each caller still gets
its own result, and an item whose batch fails is replayed alone."""

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, create_engine, insert, select
from sqlalchemy.orm import Session, sessionmaker

from sinks.db.group_commit import Gathered, GroupCommitter, _run_items

pytestmark = pytest.mark.unit

METADATA = MetaData()
ROWS = Table("rows", METADATA, Column("id", Integer, primary_key=True), Column("name", String, unique=True))
CALLS: list[list[str]] = []


def add_all(session: Session, names: list[str]) -> list[str]:
    CALLS.append(list(names))
    session.execute(insert(ROWS), [{"name": name} for name in names])  # one executemany
    return [f"added {name}" for name in names]


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    engine = create_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    METADATA.create_all(engine)
    CALLS.clear()
    return sessionmaker(engine)


@pytest.fixture
def committer(sessions: sessionmaker[Session]) -> Iterator[GroupCommitter]:
    committer = GroupCommitter(sessions, max_batch=64)
    committer.start()
    yield committer
    committer.stop()


def _names(sessions: sessionmaker[Session]) -> set[str]:
    with sessions() as session:
        return set(session.scalars(select(ROWS.c.name)))


def test_items_of_a_kind_run_in_one_call_in_their_order_among_plain_work(
    sessions: sessionmaker[Session],
) -> None:
    order: list[str] = []

    def plain(session: Session) -> str:
        order.append("plain")
        return "plain"

    def first_kind(session: Session, names: list[str]) -> list[str]:
        order.append(f"gathered {names}")
        return [name.upper() for name in names]

    works: list[Callable[[Session], object]] = [
        plain,
        Gathered(first_kind, "a"),
        plain,
        Gathered(first_kind, "b"),
    ]
    with sessions.begin() as session:
        assert _run_items(session, works) == ["plain", "A", "plain", "B"]
    assert order == ["plain", "gathered ['a', 'b']", "plain"]


def test_concurrent_gathered_callers_each_get_their_result_once_committed(
    committer: GroupCommitter, sessions: sessionmaker[Session]
) -> None:
    async def one(name: str) -> str:
        result = await committer.run(Gathered(add_all, name))
        assert name in _names(sessions)  # answered only after the commit
        return result

    async def main() -> list[str]:
        return await asyncio.gather(*(one(f"n{i}") for i in range(100)))

    assert asyncio.run(main()) == [f"added n{i}" for i in range(100)]
    assert _names(sessions) == {f"n{i}" for i in range(100)}
    assert len(CALLS) < 100  # batched: fewer calls than items


def test_a_failing_gathered_item_fails_alone(
    committer: GroupCommitter, sessions: sessionmaker[Session]
) -> None:
    async def main() -> list[object]:
        await committer.run(Gathered(add_all, "taken"))
        names = ["x1", "taken", "x2"]  # "taken" breaks the unique name: its batch fails, then replays
        return await asyncio.gather(
            *(committer.run(Gathered(add_all, name)) for name in names), return_exceptions=True
        )

    first, failed, last = asyncio.run(main())
    assert (first, last) == ("added x1", "added x2")
    assert isinstance(failed, Exception)
    assert _names(sessions) == {"taken", "x1", "x2"}
