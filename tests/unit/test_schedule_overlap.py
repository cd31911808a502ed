"""Issue 25 (overlapPolicy) in the repository, on a real SQLite DB: a fire starting while an earlier run of
its event is in progress is SKIPPED (SKIP, the default), started (ALLOW), or kept waiting, one at most,
and released once nothing else of the event is in progress (BUFFER_ONE)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from schemas.scheduled.events import RunStatus
from sinks.db.models import ScheduledEventRun
from sinks.db.scheduled import overlap, runs
from tests.fixtures.stack import Db
from tests.unit.test_schedule_control_claims import EVERY_MINUTE, add_event, event

pytestmark = pytest.mark.unit

NOW = datetime(2027, 1, 1, 12, 0, tzinfo=UTC)
MINUTE = timedelta(minutes=1)


def add_run(
    db: Db, event_id: str, at: datetime, status: str, manual: bool = False, backfill: bool = False
) -> str:
    company_id = event(db, event_id).company_id
    run_id = f"r{int(at.timestamp())}{'m' if manual else ''}"
    with db.sessions.begin() as session:
        session.add(
            ScheduledEventRun(
                id=run_id,
                event_id=event_id,
                company_id=company_id,
                scheduled_for=at,
                status=status,
                attempt=1,
                action_type="INVOKE_TOOL",
                queued_at=at,
                dispatched_at=at,
                started_at=at if status == "RUNNING" else None,
                manual=manual,
                backfill=backfill,
            )
        )
    return run_id


def start(db: Db, run_id: str) -> list[runs.RunWork]:
    with db.sessions.begin() as session:
        return runs.claim_runs(session, [run_id], NOW)


def run(db: Db, run_id: str) -> ScheduledEventRun:
    with db.sessions() as session:
        row = session.get(ScheduledEventRun, run_id)
        assert row is not None
        session.expunge(row)
        return row


def release(db: Db) -> list[str]:
    with db.sessions.begin() as session:
        return [tick.run_id for tick in overlap.take_released(session, NOW, 100)]


def test_skip_is_the_default_and_records_the_reason(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, NOW + MINUTE)
    assert event(db, event_id).overlap_policy == "SKIP"
    busy = add_run(db, event_id, NOW - MINUTE, "RUNNING")
    fire = add_run(db, event_id, NOW, "QUEUED")
    assert start(db, fire) == []
    skipped = run(db, fire)
    assert skipped.status == RunStatus.SKIPPED.value
    assert (
        skipped.error_message
        == f"Skipped: run {busy} of this event is still in progress (overlapPolicy SKIP)"
    )


def test_a_fire_with_nothing_in_progress_starts(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, NOW + MINUTE)
    add_run(db, event_id, NOW - MINUTE, "SUCCEEDED")
    fire = add_run(db, event_id, NOW, "QUEUED")
    assert [work.run_id for work in start(db, fire)] == [fire]


def test_allow_starts_the_fire_beside_the_running_one(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, NOW + MINUTE, overlap_policy="ALLOW")
    add_run(db, event_id, NOW - MINUTE, "RUNNING")
    fire = add_run(db, event_id, NOW, "QUEUED")
    assert [work.run_id for work in start(db, fire)] == [fire]


def test_a_run_now_run_is_never_held_back(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, NOW + MINUTE)
    add_run(db, event_id, NOW - MINUTE, "RUNNING")
    manual = add_run(db, event_id, NOW, "QUEUED", manual=True)
    assert [work.run_id for work in start(db, manual)] == [manual]


def test_buffer_one_keeps_one_fire_waiting_and_starts_it_when_the_running_one_ends(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, NOW + MINUTE, overlap_policy="BUFFER_ONE")
    busy = add_run(db, event_id, NOW - 2 * MINUTE, "RUNNING")
    waiting = add_run(db, event_id, NOW - MINUTE, "QUEUED")
    further = add_run(db, event_id, NOW, "QUEUED")
    assert start(db, waiting) == []
    held = run(db, waiting)
    assert (held.status, held.buffered, held.started_at) == ("QUEUED", True, None)
    assert start(db, further) == []
    assert run(db, further).error_message == "Skipped: a fire is already waiting (overlapPolicy BUFFER_ONE)"
    # A re-sent tick of the waiting fire keeps it waiting, and nothing is released while the run goes on.
    assert start(db, waiting) == [] and run(db, waiting).buffered
    assert release(db) == []
    with db.sessions.begin() as session:
        assert runs.finish_run(
            session, busy, RunStatus.SUCCEEDED, NOW, None, None, started_at=NOW - 2 * MINUTE
        )
    assert release(db) == [waiting]
    assert release(db) == []  # released once
    assert [work.run_id for work in start(db, waiting)] == [waiting]


def test_backfill_runs_go_one_at_a_time_whatever_the_policy(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, NOW + MINUTE, overlap_policy="ALLOW")
    first = add_run(db, event_id, NOW - 3 * MINUTE, "QUEUED", backfill=True)
    second = add_run(db, event_id, NOW - 2 * MINUTE, "QUEUED", backfill=True)
    third = add_run(db, event_id, NOW - MINUTE, "QUEUED", backfill=True)
    with db.sessions.begin() as session:
        works = runs.claim_runs(session, [first, second, third], NOW)
    assert [work.run_id for work in works] == [first]
    assert run(db, second).buffered and run(db, third).buffered  # never skipped
    assert release(db) == []
    with db.sessions.begin() as session:
        runs.finish_run(session, first, RunStatus.SUCCEEDED, NOW, None, None, started_at=NOW)
    assert release(db) == [second]  # the earlier one only
