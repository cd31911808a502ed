"""Retries and dead letters of scheduled runs (retryPolicy, deadLetterConfig): units of work for a
:class:`~sinks.db.group_commit.GroupCommitter` (they take a session and never commit).

A retry is the next attempt of the SAME run row (same runId, same idempotency key, attempt + 1). The run goes
back to QUEUED with ``retry_at`` in the DB, so a worker crash loses nothing: the leader's timer sends the
tick of every retry coming due (:func:`take_due_retries`, compare-and-set on ``dispatched_at`` so one sweep
sends it), the claim refuses it before ``retry_at`` and moves it QUEUED → RUNNING once, as for any run. The
attempts before the current one are kept on the row (``attempts_json``) for /runs.

A dead-letter record is owed from the moment the run is FAILED: ``dead_letter_at`` is set in the same
transaction as the FAILED state (an outbox on the row). The leader's timer claims owed records by pushing
that time forward by a lease, publishes them, then clears them; a worker that dies before clearing leaves
them to be published again once the lease ran out (at least once; consumers drop a runId seen before).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.schedules.retries import Backoff, RetryPolicy, next_attempt_at
from schemas.base import iso_utc
from schemas.records import ScheduledDeadLetter
from schemas.scheduled.events import RunStatus
from schemas.scheduled.retries import RunAttempt
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from sinks.db.scheduled.events import Tick

QUEUED = RunStatus.QUEUED.value
# The dead-letter record carries the last error cut to this many characters (records stay small).
MAX_DEAD_LETTER_ERROR = 2000


@dataclass(frozen=True)
class RetryTiming:
    """What the worker passes with a failed outcome: the backoff settings and its jitter draw in [0, 1)."""

    backoff: Backoff
    draw: float


def policy_of(event: ScheduledEvent) -> RetryPolicy:
    return RetryPolicy(
        maximum_retry_attempts=event.max_retry_attempts or 0,
        maximum_event_age_seconds=event.max_event_age_seconds or 86400,
    )


def earlier_attempts(run: ScheduledEventRun) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(run.attempts_json) if run.attempts_json else []
    return loaded


def _record_attempt(
    run: ScheduledEventRun, ended_at: datetime, error: str | None, retry_at: datetime | None
) -> None:
    entry = RunAttempt(
        attempt_number=run.attempt,
        status=RunStatus.FAILED.value,
        started_at=iso_utc(run.started_at),
        ended_at=iso_utc(ended_at),
        error_message=error,
        retry_at=iso_utc(retry_at),
    )
    attempts = [*earlier_attempts(run), entry.model_dump(by_alias=True, exclude_none=True)]
    run.attempts_json = json.dumps(attempts)


def retry(
    session: Session, run: ScheduledEventRun, now: datetime, error: str | None, timing: RetryTiming
) -> bool:
    """Queue the next attempt of a RUNNING run whose attempt failed retryably, if its event's retryPolicy
    has one left within maximumEventAgeInSeconds; False (nothing changed) otherwise."""
    event = session.get(ScheduledEvent, run.event_id)
    if event is None or event.deleted_at is not None:
        return False
    at = next_attempt_at(
        failed_attempt=run.attempt,
        policy=policy_of(event),
        scheduled_for=run.scheduled_for,
        now=now,
        backoff=timing.backoff,
        draw=timing.draw,
    )
    if at is None:
        return False
    _record_attempt(run, now, error, at)
    run.status, run.attempt, run.retry_at = QUEUED, run.attempt + 1, at
    run.started_at = run.ended_at = run.lease_until = run.dispatched_at = None
    run.duration_ms = None
    run.error_message = error
    return True


def record_lost_attempt(run: ScheduledEventRun, now: datetime, error: str) -> None:
    """The attempt of a worker that died, before the reconciler queues the next one."""
    _record_attempt(run, now, error, None)


def owe_dead_letter(session: Session, run: ScheduledEventRun, now: datetime) -> None:
    """With the FAILED state, in its transaction: the run's dead-letter record is owed if its event wants
    one (a /run-now run too: it failed all the same)."""
    event = session.get(ScheduledEvent, run.event_id)
    if event is not None and event.dead_letter_enabled:
        run.dead_letter_at = now


def take_due_retries(session: Session, now: datetime, horizon: datetime, limit: int) -> list[Tick]:
    """The ticks of retries due by ``horizon``, each sent once: the tick's time is the retry's, so the
    executor waits for it. A tick lost after this is sent again by the reconciler (``dispatched_at``)."""
    due = list(
        session.execute(
            select(
                ScheduledEventRun.id,
                ScheduledEventRun.event_id,
                ScheduledEventRun.company_id,
                ScheduledEventRun.retry_at,
            )
            .where(
                ScheduledEventRun.retry_at <= horizon,
                ScheduledEventRun.status == QUEUED,
                ScheduledEventRun.dispatched_at.is_(None),
            )
            .order_by(ScheduledEventRun.retry_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )
    if not due:
        return []
    sent = set(
        session.scalars(
            update(ScheduledEventRun)
            .where(
                ScheduledEventRun.id.in_([row.id for row in due]),
                ScheduledEventRun.status == QUEUED,
                ScheduledEventRun.dispatched_at.is_(None),
            )
            .values(dispatched_at=now)
            .returning(ScheduledEventRun.id)
            .execution_options(synchronize_session=False)
        )
    )
    return [Tick(row.event_id, row.id, row.company_id, row.retry_at) for row in due if row.id in sent]


@dataclass(frozen=True)
class OwedDeadLetter:
    record: ScheduledDeadLetter
    claimed_until: datetime


def take_dead_letters(session: Session, now: datetime, lease: timedelta, limit: int) -> list[OwedDeadLetter]:
    """Claim owed dead-letter records: their time moves ``lease`` ahead, so no other publisher takes them
    meanwhile, and comes back if this one dies before :func:`clear_dead_letters`."""
    owed = list(
        session.scalars(
            select(ScheduledEventRun)
            .where(ScheduledEventRun.dead_letter_at <= now)
            .order_by(ScheduledEventRun.dead_letter_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )
    if not owed:
        return []
    until = now + lease
    claimed = set(
        session.scalars(
            update(ScheduledEventRun)
            .where(
                ScheduledEventRun.id.in_([run.id for run in owed]),
                ScheduledEventRun.dead_letter_at <= now,
            )
            .values(dead_letter_at=until)
            .returning(ScheduledEventRun.id)
            .execution_options(synchronize_session=False)
        )
    )
    return [
        OwedDeadLetter(
            ScheduledDeadLetter(
                run_id=run.id,
                scheduled_event_id=run.event_id,
                company_id=run.company_id,
                scheduled_time=run.scheduled_for,
                attempts=run.attempt,
                last_error=(run.error_message or "")[:MAX_DEAD_LETTER_ERROR] or None,
                failed_at=run.ended_at or now,
            ),
            until,
        )
        for run in owed
        if run.id in claimed
    ]


def clear_dead_letters(session: Session, published: list[OwedDeadLetter]) -> int:
    """Published: owed no more. Only the claim this publisher holds is cleared (compare-and-set on it)."""
    cleared = 0
    for claimed_until in {owed.claimed_until for owed in published}:
        ids = [owed.record.run_id for owed in published if owed.claimed_until == claimed_until]
        done = session.execute(
            update(ScheduledEventRun)
            .where(ScheduledEventRun.id.in_(ids), ScheduledEventRun.dead_letter_at == claimed_until)
            .values(dead_letter_at=None)
            .execution_options(synchronize_session=False)
        )
        cleared += int(done.rowcount)  # type: ignore[attr-defined]
    return cleared
