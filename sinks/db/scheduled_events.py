"""Scheduled events and their runs. Every query on behalf of a caller is scoped by company.

The scheduler's writes are units of work for a :class:`~sinks.db.group_commit.GroupCommitter`: they take a
session and never commit. A fire is claimed by inserting the run row for (event, scheduled time); the
unique constraint on that pair means a second claim of the same fire (another worker, a restart, a
replayed timer) can never produce a second run. Run status moves are compare-and-set on the status.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from schemas.scheduled_events import RunStatus
from schemas.schedules import load_schedule_spec
from sinks import credentials
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from streams.schedules.spec import next_fire

QUEUED, RUNNING = RunStatus.QUEUED.value, RunStatus.RUNNING.value
# A run whose worker died mid-action is tried again up to this many attempts in all, then failed.
MAX_ATTEMPTS = 3
LOST_WORKER = "The worker running this event stopped before it finished"


def get(session: Session, company_id: str, event_id: str) -> ScheduledEvent | None:
    """A live (not deleted) event of the company; another company's event reads as missing."""
    return session.scalar(
        select(ScheduledEvent).where(
            ScheduledEvent.company_id == company_id,
            ScheduledEvent.id == event_id,
            ScheduledEvent.deleted_at.is_(None),
        )
    )


def list_live(session: Session, company_id: str) -> list[ScheduledEvent]:
    return list(
        session.scalars(
            select(ScheduledEvent)
            .where(ScheduledEvent.company_id == company_id, ScheduledEvent.deleted_at.is_(None))
            .order_by(ScheduledEvent.created_at, ScheduledEvent.id)
        )
    )


def first_fire(spec_json: str, anchor: datetime, now: datetime) -> datetime | None:
    return next_fire(load_schedule_spec(json.loads(spec_json)), now, anchor=anchor)


def add(session: Session, event: ScheduledEvent) -> ScheduledEvent:
    session.add(event)
    session.flush()
    return event


def new_id() -> str:
    return credentials.new_id()


def set_next_fire(
    session: Session, company_id: str, event_id: str, next_fire_at: datetime | None, anchor_at: datetime
) -> None:
    """Move an event's grid (operators and tests: make a fire due now instead of waiting for it)."""
    session.execute(
        update(ScheduledEvent)
        .where(ScheduledEvent.company_id == company_id, ScheduledEvent.id == event_id)
        .values(next_fire_at=next_fire_at, anchor_at=anchor_at)
    )


@dataclass(frozen=True)
class Tick:
    """What the tick record carries: enough to find the run row, nothing the row does not already hold."""

    event_id: str
    run_id: str
    company_id: str
    scheduled_for: datetime

    def payload(self) -> dict[str, str]:
        return {
            "eventId": self.event_id,
            "runId": self.run_id,
            "companyId": self.company_id,
            "scheduledFor": self.scheduled_for.isoformat(),
        }


def _fire_to_run(
    event: ScheduledEvent, due: datetime, now: datetime, window: timedelta
) -> tuple[datetime | None, datetime | None]:
    """(the fire to run now or None, the next fire after it). Of the fires missed while nothing ran, only
    the latest one inside the catch-up window runs: a restart never replays a burst."""
    spec = load_schedule_spec(json.loads(event.spec_json))
    anchor = event.anchor_at
    start = max(due, now - window)
    fire: datetime | None = (
        due if due >= start else next_fire(spec, start - timedelta(microseconds=1), anchor=anchor)
    )
    if fire is None or fire > now:
        return None, fire
    while (following := next_fire(spec, fire, anchor=anchor)) is not None and following <= now:
        fire = following
    return fire, following


def claim_due(session: Session, now: datetime, window: timedelta, limit: int) -> list[Tick]:
    """Turn every due fire of enabled, live events into a QUEUED run row and advance the event."""
    events = list(
        session.scalars(
            select(ScheduledEvent)
            .where(
                ScheduledEvent.next_fire_at <= now,
                ScheduledEvent.enabled.is_(True),
                ScheduledEvent.deleted_at.is_(None),
            )
            .order_by(ScheduledEvent.next_fire_at)
            .limit(limit)
        )
    )
    ticks: list[Tick] = []
    for event in events:
        due = event.next_fire_at
        if due is None:
            continue
        fire, following = _fire_to_run(event, due, now, window)
        advanced = session.execute(
            update(ScheduledEvent)
            .where(ScheduledEvent.id == event.id, ScheduledEvent.next_fire_at == due)
            .values(next_fire_at=following, last_fired_at=fire or event.last_fired_at)
        )
        if advanced.rowcount != 1 or fire is None:  # type: ignore[attr-defined]
            continue
        taken = session.scalar(
            select(ScheduledEventRun.id).where(
                ScheduledEventRun.event_id == event.id, ScheduledEventRun.scheduled_for == fire
            )
        )
        if taken is not None:
            continue
        run = ScheduledEventRun(
            id=credentials.new_id(),
            event_id=event.id,
            company_id=event.company_id,
            scheduled_for=fire,
            status=QUEUED,
            attempt=1,
            action_type=event.action_type,
            queued_at=now,
            dispatched_at=now,
        )
        session.add(run)
        ticks.append(Tick(event.id, run.id, event.company_id, fire))
    session.flush()
    return ticks


@dataclass(frozen=True)
class RunWork:
    """A claimed run with everything its action needs."""

    run_id: str
    event_id: str
    company_id: str
    owner_id: str
    scheduled_for: datetime
    attempt: int
    action_type: str
    config: dict[str, Any]
    started_at: datetime


def claim_run(session: Session, run_id: str, now: datetime) -> RunWork | None:
    """QUEUED → RUNNING; None when the run was already taken. A run of an event disabled or deleted since
    its tick is SKIPPED here, so that such an event never acts."""
    moved = session.execute(
        update(ScheduledEventRun)
        .where(ScheduledEventRun.id == run_id, ScheduledEventRun.status == QUEUED)
        .values(status=RUNNING, started_at=now)
    )
    if moved.rowcount != 1:  # type: ignore[attr-defined]
        return None
    run = session.get(ScheduledEventRun, run_id)
    event = session.get(ScheduledEvent, run.event_id) if run is not None else None
    if run is None or event is None:
        return None
    if event.deleted_at is not None or not event.enabled:
        state = "deleted" if event.deleted_at is not None else "disabled"
        run.status, run.ended_at, run.duration_ms = RunStatus.SKIPPED.value, now, 0
        run.error_message = f"The event was {state} before this run started"
        return None
    return RunWork(
        run_id=run.id,
        event_id=event.id,
        company_id=event.company_id,
        owner_id=event.owner_id,
        scheduled_for=run.scheduled_for,
        attempt=run.attempt,
        action_type=event.action_type,
        config=json.loads(event.config_json),
        started_at=now,
    )


def finish_run(
    session: Session, run_id: str, status: RunStatus, ended_at: datetime, response: Any, error: str | None
) -> bool:
    """RUNNING → a final status; False if the reconciler already gave the run to another attempt."""
    run = session.get(ScheduledEventRun, run_id)
    if run is None or run.status != RUNNING:
        return False
    started = run.started_at or ended_at
    run.status = status.value
    run.ended_at = ended_at
    run.duration_ms = max(0, int((ended_at - started).total_seconds() * 1000))
    run.response_json = json.dumps(response) if response is not None else None
    run.error_message = error
    return True


def _tick(run: ScheduledEventRun) -> Tick:
    return Tick(run.event_id, run.id, run.company_id, run.scheduled_for)


def take_lost(session: Session, now: datetime, grace: timedelta, limit: int) -> list[Tick]:
    """QUEUED runs whose tick nobody took within ``grace``: hand them out again (the claim dedups)."""
    runs = list(
        session.scalars(
            select(ScheduledEventRun)
            .where(ScheduledEventRun.status == QUEUED, ScheduledEventRun.dispatched_at < now - grace)
            .order_by(ScheduledEventRun.dispatched_at)
            .limit(limit)
        )
    )
    for run in runs:
        run.dispatched_at = now
    return [_tick(run) for run in runs]


def take_abandoned(session: Session, now: datetime, grace: timedelta, limit: int) -> list[Tick]:
    """RUNNING runs older than ``grace`` lost their worker: queue the next attempt, or fail the last."""
    runs = list(
        session.scalars(
            select(ScheduledEventRun)
            .where(ScheduledEventRun.status == RUNNING, ScheduledEventRun.started_at < now - grace)
            .order_by(ScheduledEventRun.started_at)
            .limit(limit)
        )
    )
    again: list[Tick] = []
    for run in runs:
        if run.attempt >= MAX_ATTEMPTS:
            run.status, run.ended_at, run.error_message = RunStatus.FAILED.value, now, LOST_WORKER
            continue
        run.status, run.attempt, run.started_at, run.dispatched_at = QUEUED, run.attempt + 1, None, now
        again.append(_tick(run))
    return again


def list_runs(
    session: Session, company_id: str, event_id: str, page: int, size: int, status: RunStatus | None
) -> tuple[list[ScheduledEventRun], int]:
    """Newest scheduled time first, and the number of runs that match."""
    where = [ScheduledEventRun.company_id == company_id, ScheduledEventRun.event_id == event_id]
    if status is not None:
        where.append(ScheduledEventRun.status == status.value)
    total = session.scalar(select(func.count()).select_from(ScheduledEventRun).where(*where)) or 0
    rows = session.scalars(
        select(ScheduledEventRun)
        .where(*where)
        .order_by(ScheduledEventRun.scheduled_for.desc(), ScheduledEventRun.id)
        .offset(page * size)
        .limit(size)
    )
    return list(rows), total
