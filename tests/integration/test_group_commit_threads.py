"""Group commit with two threads on PostgreSQL (sinks/db/group_commit.py): a batch waiting inside its
transaction does not hold up another caller's commit, and each caller still gets its own result after its
commit. A real PostgreSQL (the tests' server); no clock is asserted on."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from schemas.settings import Settings
from sinks.db.engine import make_engine, make_sessions
from sinks.db.group_commit import GroupCommitter
from tests.fixtures import postgres

pytestmark = pytest.mark.integration
GUARD_SECONDS = 30.0  # a liveness guard only


@pytest.fixture
def sessions() -> Iterator[sessionmaker[Session]]:
    engine = make_engine(postgres.new_database_url())
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE marks (name text PRIMARY KEY)"))
    yield make_sessions(engine)
    engine.dispose()


def _mark(
    name: str, gate: threading.Event | None = None, entered: threading.Event | None = None
) -> Callable[[Session], str]:
    def work(session: Session) -> str:
        session.execute(text("INSERT INTO marks (name) VALUES (:name)"), {"name": name})
        if entered is not None:
            entered.set()
        if gate is not None:
            assert gate.wait(GUARD_SECONDS), "the gate never opened"
        return name

    return work


def _marks(sessions: sessionmaker[Session]) -> set[str]:
    with sessions() as session:
        return set(session.scalars(text("SELECT name FROM marks")))


def test_a_batch_held_in_its_transaction_does_not_hold_up_the_next(sessions: sessionmaker[Session]) -> None:
    committer = GroupCommitter(sessions, threads=2)
    committer.start()
    gate, entered = threading.Event(), threading.Event()

    async def main() -> tuple[str, str, set[str]]:
        held = asyncio.ensure_future(committer.run(_mark("held", gate, entered)))
        # The first thread runs it: only now can the next caller not join its batch.
        assert await asyncio.to_thread(entered.wait, GUARD_SECONDS), "the held batch never started"
        passed = await asyncio.wait_for(committer.run(_mark("passed")), GUARD_SECONDS)
        committed_meanwhile = _marks(sessions)
        gate.set()
        return await held, passed, committed_meanwhile

    try:
        held, passed, meanwhile = asyncio.run(main())
    finally:
        gate.set()
        committer.stop()
    assert (held, passed) == ("held", "passed")
    assert meanwhile == {"passed"}  # answered after its own commit, while the other was still open
    assert _marks(sessions) == {"held", "passed"}


def test_many_callers_on_two_threads_each_get_their_own_result(sessions: sessionmaker[Session]) -> None:
    committer = GroupCommitter(sessions, threads=2, max_batch=8)
    committer.start()

    async def main() -> list[str]:
        return await asyncio.gather(*(committer.run(_mark(f"n{i}")) for i in range(200)))

    try:
        assert asyncio.run(main()) == [f"n{i}" for i in range(200)]
    finally:
        committer.stop()
    assert _marks(sessions) == {f"n{i}" for i in range(200)}


def test_committers_are_a_setting_on_postgresql_and_one_on_sqlite() -> None:
    url = "postgresql://svc:secret@db.example:5432/svc"  # not connected to
    assert Settings(database_url=url).resolved_db_committers == 1
    assert Settings(database_url=url, db_committers=4).resolved_db_committers == 4
    assert Settings(database_url="sqlite:///x.db", db_committers=4).resolved_db_committers == 1
