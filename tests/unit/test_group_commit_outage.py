"""Group commit while the database cannot be reached, on a real SQLite file whose directory is missing (the
driver's "unable to open database file") until the test creates it: the ingress's committer fails every
caller of a batch at once and stays fast while the database is away; a worker's committer waits and commits
each unit once the database is back; a committer stopped during an outage leaves nobody waiting."""

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session, sessionmaker

from sinks.db.availability import Backoff, DatabaseUnreachable, OutageClock, unreachable
from sinks.db.group_commit import GroupCommitter

pytestmark = pytest.mark.unit


@pytest.fixture
def missing_dir(tmp_path: Path) -> Path:
    return tmp_path / "not yet"


@pytest.fixture
def sessions(missing_dir: Path) -> Iterator[sessionmaker[Session]]:
    engine = create_engine(f"sqlite:///{missing_dir / 'db.sqlite'}")
    yield sessionmaker(engine)
    engine.dispose()


def _add(name: str, ran: list[str]) -> Callable[[Session], str]:
    def work(session: Session) -> str:
        session.execute(text("CREATE TABLE IF NOT EXISTS rows (name TEXT PRIMARY KEY)"))
        session.execute(text("INSERT INTO rows VALUES (:name)"), {"name": name})
        ran.append(name)
        return name

    return work


def _rows(sessions: sessionmaker[Session]) -> list[str]:
    with sessions() as session:
        return sorted(session.scalars(text("SELECT name FROM rows")))


def test_without_retry_every_caller_of_a_batch_fails_at_once_and_later_batches_fail_untried(
    sessions: sessionmaker[Session], missing_dir: Path
) -> None:
    committer = GroupCommitter(sessions, max_batch=8, fail_fast_seconds=0.3)
    tried: list[int] = []
    commit_once = committer._commit_once

    def counted(batch: list[object]) -> object:
        tried.append(len(batch))
        return commit_once(batch)  # type: ignore[arg-type]

    committer._commit_once = counted  # type: ignore[assignment,method-assign]
    ran: list[str] = []

    async def burst(prefix: str) -> list[BaseException | str]:
        calls = (committer.run(_add(f"{prefix}{n}", ran)) for n in range(20))
        return await asyncio.gather(*calls, return_exceptions=True)

    committer.start()
    try:
        first = asyncio.run(burst("a"))
        assert all(isinstance(result, Exception) and unreachable(result) for result in first)
        assert sum(tried) == 20  # never replayed item by item
        # The first batch found the database away; the batches right after it failed without trying.
        assert sum(not isinstance(result, DatabaseUnreachable) for result in first) == tried[0]
        assert len(tried) > 1
        missing_dir.mkdir()
        deadline = time.monotonic() + 10
        committed = 0
        while True:  # within fail_fast_seconds a batch still fails untried; then it commits
            results = asyncio.run(burst(f"b{len(tried)}-"))
            # A burst can straddle the end of fail_fast_seconds (a slow machine): its first batches fail
            # untried and the later ones commit, but no caller ever sees any other outcome.
            assert all(isinstance(result, str | DatabaseUnreachable) for result in results), results
            committed += sum(isinstance(result, str) for result in results)
            if all(isinstance(result, str) for result in results):
                break
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        committer.stop()
    assert not any(name.startswith("a") for name in ran)
    assert len(_rows(sessions)) == committed >= 20


def test_with_retry_each_unit_waits_and_commits_once_the_database_is_back(
    sessions: sessionmaker[Session], missing_dir: Path
) -> None:
    outages = OutageClock(margin=0.0, horizon=60.0)
    committer = GroupCommitter(
        sessions, max_batch=8, retry=Backoff(first=0.01, longest=0.05), outages=outages
    )
    ran: list[str] = []

    async def main() -> list[str]:
        calls = [asyncio.ensure_future(committer.run(_add(f"n{n}", ran))) for n in range(30)]
        await asyncio.sleep(0.3)
        assert not any(call.done() for call in calls)  # waiting, not failed
        assert outages.lag() > 0
        await asyncio.to_thread(missing_dir.mkdir)
        return await asyncio.gather(*calls)

    committer.start()
    try:
        results = asyncio.run(main())
    finally:
        committer.stop()
    assert results == [f"n{n}" for n in range(30)]
    assert _rows(sessions) == sorted(f"n{n}" for n in range(30))
    assert outages.lag() >= 0.3  # the outage it waited out is remembered


def test_a_committer_stopped_while_the_database_is_away_fails_its_callers(
    sessions: sessionmaker[Session],
) -> None:
    committer = GroupCommitter(sessions, retry=Backoff(first=0.01, longest=0.05))
    ran: list[str] = []
    outcome: list[BaseException | str] = []

    async def main() -> None:
        waiting = asyncio.gather(
            *(committer.run(_add(f"n{n}", ran)) for n in range(5)), return_exceptions=True
        )
        await asyncio.sleep(0.2)
        stopper = threading.Thread(target=committer.stop)
        stopper.start()
        outcome.extend(await asyncio.wait_for(waiting, timeout=10))
        await asyncio.to_thread(stopper.join, 10)
        assert not stopper.is_alive()

    committer.start()
    asyncio.run(main())
    assert len(outcome) == 5
    assert all(isinstance(result, Exception) and unreachable(result) for result in outcome)
    assert ran == []
