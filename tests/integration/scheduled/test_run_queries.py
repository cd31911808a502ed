"""A scheduled run's claim finds the runs by their primary key, however many runs are QUEUED.

Without statistics SQLite's planner preferred the status index to the list of run ids, so each claim walked
every QUEUED run (at 10,000 schedules, thousands). Checked with EXPLAIN QUERY PLAN on the statement the
claim really runs; PostgreSQL plans with statistics and is left to its planner."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from schemas.scheduled.events import RunStatus
from sinks.db.group_commit import Gathered, GroupCommitter
from sinks.db.models import ScheduledEventRun
from sinks.db.scheduled import batches
from sinks.db.scheduled import runs as scheduled_runs
from tests.fixtures.query_plans import plans, statements
from tests.fixtures.stack import Db
from tests.unit.test_scheduled_event_models import EVERY_MINUTE, add_event, claim

pytestmark = pytest.mark.integration

BY_ID = "USING INDEX sqlite_autoindex_scheduled_event_runs_1 (id=?)"
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def test_the_claim_of_runs_looks_them_up_by_id(db: Db) -> None:
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner without statistics; PostgreSQL plans with its own")
    with db.sessions.begin() as session, statements(db.engine) as seen:
        ids = [f"{n:032x}" for n in range(20)]
        assert scheduled_runs.claim_runs(session, ids, NOW, NOW + timedelta(seconds=30)) == []
    found = plans(db.engine, seen, "UPDATE scheduled_event_runs")
    assert len(found) == 1
    steps = [step for step in found[0] if "scheduled_event_runs" in step]
    assert steps and all(BY_ID in step for step in steps), found


def fired_runs(db: Db, count: int) -> list[str]:
    """``count`` events fired once at NOW: their runs QUEUED."""
    for _ in range(count):
        add_event(db, EVERY_MINUTE, next_fire_at=NOW, anchor=NOW - timedelta(minutes=1))
    return [tick.run_id for tick in claim(db, NOW)]


def claim_all(db: Db, run_ids: list[str]) -> tuple[list[scheduled_runs.RunWork], list[str]]:
    """The claim of ``run_ids`` and the statements it ran (the commit's aside)."""
    with db.sessions.begin() as session, statements(db.engine) as seen:
        works = scheduled_runs.claim_runs(session, run_ids, NOW, NOW + timedelta(seconds=30))
        session.flush()
    return works, [statement.split()[0] for statement, _ in seen]


def test_a_claim_of_fires_whose_events_are_idle_runs_two_statements(db: Db) -> None:
    """The move to RUNNING, then the runs with their events and whether anything else of theirs is in
    progress; the overlap rule reads no more when nothing is (the common case), and the handler is read
    when the action runs, through the worker's cache."""
    run_ids = fired_runs(db, 5)
    works, ran = claim_all(db, run_ids)
    assert sorted(work.run_id for work in works) == sorted(run_ids)
    assert ran == ["UPDATE", "SELECT"]


def test_a_fire_whose_event_has_a_run_in_progress_is_still_held_back(db: Db) -> None:
    first = fired_runs(db, 1)
    assert [work.run_id for work in claim_all(db, first)[0]] == first
    # The event's next fire, a minute later, while the first run is still RUNNING.
    later = [tick.run_id for tick in claim(db, NOW + timedelta(minutes=1))]
    assert len(later) == 1
    works, ran = claim_all(db, later)
    assert works == []
    assert ran.count("SELECT") == 2  # the overlap rule read the event's runs in progress
    with db.sessions() as session:
        skipped = session.get(ScheduledEventRun, later[0])
        assert skipped is not None and skipped.status == "SKIPPED"
        assert skipped.error_message == (
            f"Skipped: run {first[0]} of this event is still in progress (overlapPolicy SKIP)"
        )


def test_the_in_progress_check_looks_up_the_events_runs_by_event(db: Db) -> None:
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner without statistics; PostgreSQL plans with its own")
    run_ids = fired_runs(db, 3)
    with db.sessions.begin() as session, statements(db.engine) as seen:
        scheduled_runs.claim_runs(session, run_ids, NOW, NOW + timedelta(seconds=30))
    selects = [plan for plan in plans(db.engine, seen, "scheduled_event_runs") if "CORRELATED" in str(plan)]
    assert len(selects) == 1
    inner = selects[0][selects[0].index("CORRELATED SCALAR SUBQUERY 1") + 1 :]
    assert inner and all("(event_id=?)" in step for step in inner), selects


def _ends(run_ids: list[str], attempt: int = 1) -> list[batches.PlainEnd]:
    return [
        batches.PlainEnd(
            run_id=run_id,
            attempt=attempt,
            status=RunStatus.SUCCEEDED,
            started_at=NOW,
            ended_at=NOW + timedelta(milliseconds=1_250 + n),
            response={"n": n},
            error=None,
        )
        for n, run_id in enumerate(run_ids)
    ]


def _runs(db: Db) -> dict[str, ScheduledEventRun]:
    with db.sessions() as session:
        return {run.id: run for run in session.scalars(select(ScheduledEventRun))}


def test_plain_ends_of_a_group_commit_run_as_one_statement(db: Db) -> None:
    """The ends that need no read (not FAILED, nothing to delete) of one group commit: one executemany,
    each run's status, duration and response written for the attempt it names."""
    run_ids = [work.run_id for work in claim_all(db, fired_runs(db, 6))[0]]
    committer = GroupCommitter(db.sessions, name="ends-test")
    committer.start()

    async def finish() -> None:
        ends = [Gathered(batches.finish_plain_runs, end) for end in _ends(run_ids)]
        await asyncio.gather(*(committer.run(end) for end in ends))

    try:
        with statements(db.engine) as seen:
            asyncio.run(finish())
    finally:
        committer.stop()
    updates = [statement for statement, _ in seen if statement.startswith("UPDATE scheduled_event_runs")]
    assert len(updates) < len(run_ids)  # gathered (all six in one unless the committer split the batch)
    runs = _runs(db)
    for n, run_id in enumerate(run_ids):
        run = runs[run_id]
        assert (run.status, run.duration_ms, run.error_message) == ("SUCCEEDED", 1_250 + n, None)
        assert run.response_json == f'{{"n": {n}}}'
        assert run.ended_at is not None


def test_a_plain_end_leaves_a_run_another_attempt_holds(db: Db) -> None:
    """A worker whose lease ran out ends nothing: the run's attempt moved on (or it is no longer RUNNING)."""
    taken, ended, running = (work.run_id for work in claim_all(db, fired_runs(db, 3))[0])
    with db.sessions.begin() as session:
        session.execute(update(ScheduledEventRun).where(ScheduledEventRun.id == taken).values(attempt=2))
        session.execute(
            update(ScheduledEventRun).where(ScheduledEventRun.id == ended).values(status="FAILED")
        )
        batches.finish_plain_runs(session, _ends([taken, ended, running]))
    runs = _runs(db)
    assert (runs[taken].status, runs[taken].attempt, runs[taken].ended_at) == ("RUNNING", 2, None)
    assert runs[ended].status == "FAILED" and runs[ended].response_json is None
    assert runs[running].status == "SUCCEEDED"


def test_a_failed_end_is_not_a_plain_one() -> None:
    with pytest.raises(ValueError, match="finish_run"):
        batches.PlainEnd("r", 1, RunStatus.FAILED, NOW, NOW, None, "boom")


def test_claims_gathered_by_a_group_commit_run_two_statements_and_each_gets_its_runs(db: Db) -> None:
    """Flushes of runs waking together that wait for the same group commit are claimed in one claim's two
    statements; each gets the works of its own runs, a run named twice goes to the first claim."""
    run_ids = fired_runs(db, 6)
    claims = [
        batches.Claim(run_ids[:2], NOW, NOW + timedelta(seconds=30)),
        batches.Claim([run_ids[2], run_ids[1]], NOW + timedelta(milliseconds=3)),
        batches.Claim(run_ids[3:], NOW + timedelta(milliseconds=1), NOW + timedelta(seconds=31)),
    ]
    with db.sessions.begin() as session, statements(db.engine) as seen:
        works = batches.claim_together(session, claims)
        session.flush()
    assert [statement.split()[0] for statement, _ in seen] == ["UPDATE", "SELECT"]
    assert [[work.run_id for work in claimed] for claimed in works] == [
        run_ids[:2],
        [run_ids[2]],
        run_ids[3:],
    ]
    assert {work.started_at for claimed in works for work in claimed} == {NOW + timedelta(milliseconds=3)}
    assert set(_runs(db)[run_id].lease_until for run_id in run_ids) == {NOW + timedelta(seconds=31)}
    assert batches.claim_together(session, []) == []
