"""Retries and dead letters in the repository (sinks/db/scheduled/retries.py): a retry is stored with its due
time (it survives a worker: nothing but the DB holds it), its tick is sent once, the claim refuses it before
its time, and a dead-letter record owed with the FAILED state is claimed by one publisher at a time and owed
again if that publisher dies before clearing it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from core.schedules.retries import Backoff
from schemas.scheduled.events import RunStatus
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from sinks.db.scheduled import retries as scheduled_retries
from sinks.db.scheduled import runs as scheduled_runs
from tests.fixtures.stack import Db
from tests.unit.test_scheduled_event_models import EVERY_MINUTE, NOW, add_event, claim

pytestmark = pytest.mark.integration

TIMING = scheduled_retries.RetryTiming(Backoff(base_seconds=10, max_seconds=300), draw=0.5)
LEASE = timedelta(seconds=30)


def running_run(db: Db, retries: int, dead_letter: bool = False) -> str:
    event_id = add_event(db, EVERY_MINUTE, next_fire_at=NOW, anchor=NOW - timedelta(minutes=1))
    with db.sessions.begin() as session:
        session.execute(
            update(ScheduledEvent)
            .where(ScheduledEvent.id == event_id)
            .values(max_retry_attempts=retries, dead_letter_enabled=dead_letter)
        )
    (tick,) = claim(db, NOW)
    with db.sessions.begin() as session:
        (work,) = scheduled_runs.claim_runs(session, [tick.run_id], NOW, NOW + LEASE)
    return work.run_id


def fail(db: Db, run_id: str, attempt: int, at: timedelta) -> bool:
    with db.sessions.begin() as session:
        return scheduled_runs.finish_run(
            session,
            run_id=run_id,
            status=RunStatus.FAILED,
            ended_at=NOW + at,
            response=None,
            error="Handler answered HTTP 503",
            attempt=attempt,
            retry=TIMING,
        )


def run_row(db: Db, run_id: str) -> ScheduledEventRun:
    with db.sessions() as session:
        run = session.get(ScheduledEventRun, run_id)
        assert run is not None
        session.expunge(run)
        return run


def test_a_retry_is_stored_sent_once_and_claimed_only_at_its_time(db: Db) -> None:
    run_id = running_run(db, retries=1)
    assert fail(db, run_id, attempt=1, at=timedelta(seconds=1)) is False  # not an end: a retry is queued
    run = run_row(db, run_id)
    due = NOW + timedelta(seconds=11)
    assert (run.status, run.attempt, run.retry_at, run.dispatched_at) == ("QUEUED", 2, due, None)
    assert run.error_message == "Handler answered HTTP 503"
    with db.sessions.begin() as session:
        assert scheduled_retries.take_due_retries(session, NOW, NOW + timedelta(seconds=5), 100) == []
        # A stale tick of the run (its first one, redelivered) does not start the retry early.
        assert scheduled_runs.claim_runs(session, [run_id], NOW + timedelta(seconds=5)) == []
    with db.sessions.begin() as session:
        (tick,) = scheduled_retries.take_due_retries(session, NOW, due, 100)
    assert (tick.run_id, tick.scheduled_for) == (run_id, due)
    with db.sessions.begin() as session:
        assert scheduled_retries.take_due_retries(session, NOW, due, 100) == []  # sent once
    with db.sessions.begin() as session:
        (work,) = scheduled_runs.claim_runs(session, [run_id, run_id], due, due + LEASE)
        assert scheduled_runs.claim_runs(session, [run_id], due) == []  # claimed once
    assert (work.run_id, work.attempt) == (run_id, 2)
    # The retry policy had one retry: the second failure is final.
    assert fail(db, run_id, attempt=2, at=timedelta(seconds=12)) is True
    run = run_row(db, run_id)
    assert (run.status, run.attempt, run.retry_at) == ("FAILED", 2, None)
    (first,) = scheduled_retries.earlier_attempts(run)
    assert first["attemptNumber"] == 1 and first["status"] == "FAILED"
    assert run.dead_letter_at is None  # this event has no deadLetterConfig


def test_no_retry_policy_fails_at_once(db: Db) -> None:
    run_id = running_run(db, retries=0)
    assert fail(db, run_id, attempt=1, at=timedelta(seconds=1)) is True
    assert run_row(db, run_id).status == "FAILED"


def test_a_dead_letter_is_owed_with_the_failure_and_claimed_by_one_publisher(db: Db) -> None:
    run_id = running_run(db, retries=0, dead_letter=True)
    failed_at = NOW + timedelta(seconds=1)
    fail(db, run_id, attempt=1, at=timedelta(seconds=1))
    assert run_row(db, run_id).dead_letter_at == failed_at
    moment = failed_at + timedelta(seconds=1)
    with db.sessions.begin() as session:
        (owed,) = scheduled_retries.take_dead_letters(session, moment, LEASE, 100)
    record = owed.record
    assert (record.run_id, record.attempts, record.scheduled_time, record.failed_at) == (
        run_id,
        1,
        NOW,
        failed_at,
    )
    assert record.last_error is not None and record.last_error.startswith("Handler answered HTTP 503")
    with db.sessions.begin() as session:
        # Claimed: a second publisher gets nothing while the lease runs.
        assert scheduled_retries.take_dead_letters(session, moment, LEASE, 100) == []
    # The publisher died before clearing: after its lease the record is owed again.
    later = moment + LEASE + timedelta(seconds=1)
    with db.sessions.begin() as session:
        (again,) = scheduled_retries.take_dead_letters(session, later, LEASE, 100)
    with db.sessions.begin() as session:
        # The dead publisher's claim no longer matches: only the current one clears.
        assert scheduled_retries.clear_dead_letters(session, [owed]) == 0
        assert scheduled_retries.clear_dead_letters(session, [again]) == 1
    with db.sessions.begin() as session:
        assert scheduled_retries.take_dead_letters(session, later + LEASE * 2, LEASE, 100) == []
