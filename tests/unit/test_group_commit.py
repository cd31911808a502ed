"""Group commit on a real SQLite file: every caller gets its own result after the commit, a failing item
fails alone, and a caller that stops waiting leaves the others unharmed."""

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, create_engine, insert, select
from sqlalchemy.orm import Session, sessionmaker

from sinks.db.group_commit import GroupCommitter

pytestmark = pytest.mark.unit

METADATA = MetaData()
ROWS = Table("rows", METADATA, Column("id", Integer, primary_key=True), Column("name", String, unique=True))


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    engine = create_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    METADATA.create_all(engine)
    return sessionmaker(engine)


@pytest.fixture
def committer(sessions: sessionmaker[Session]) -> Iterator[GroupCommitter]:
    committer = GroupCommitter(sessions, max_batch=8)
    committer.start()
    yield committer
    committer.stop()


def _add(name: str) -> Callable[[Session], str]:
    def work(session: Session) -> str:
        session.execute(insert(ROWS).values(name=name))
        return f"added {name}"

    return work


def _names(sessions: sessionmaker[Session]) -> set[str]:
    with sessions() as session:
        return set(session.scalars(select(ROWS.c.name)))


def test_concurrent_callers_each_get_their_result_once_committed(
    committer: GroupCommitter, sessions: sessionmaker[Session]
) -> None:
    async def one(name: str) -> str:
        result = await committer.run(_add(name))
        assert name in _names(sessions)  # answered only after the commit
        return str(result)

    async def main() -> list[str]:
        return await asyncio.gather(*(one(f"n{i}") for i in range(100)))

    assert asyncio.run(main()) == [f"added n{i}" for i in range(100)]
    assert _names(sessions) == {f"n{i}" for i in range(100)}


def test_a_failing_item_fails_alone(committer: GroupCommitter, sessions: sessionmaker[Session]) -> None:
    async def main() -> list[object]:
        return await asyncio.gather(
            *(committer.run(_add(name)) for name in ["a", "b", "a", "c"]), return_exceptions=True
        )

    results = asyncio.run(main())
    assert results[0] == "added a" and results[1] == "added b" and results[3] == "added c"
    assert "UNIQUE constraint failed" in str(results[2])
    assert _names(sessions) == {"a", "b", "c"}


def test_a_caller_that_stops_waiting_leaves_the_others_unharmed(
    committer: GroupCommitter, sessions: sessionmaker[Session]
) -> None:
    async def main() -> str:
        abandoned = asyncio.ensure_future(committer.run(_add("x")))
        await asyncio.sleep(0)
        abandoned.cancel()
        return str(await committer.run(_add("y")))

    assert asyncio.run(main()) == "added y"
    assert "y" in _names(sessions)
