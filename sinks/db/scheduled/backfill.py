"""``/backfill``'s side of the run rows: one QUEUED run per past fire time of a range, marked backfill.

A unit of work (it takes a session and never commits). The unique (event, scheduled time) pair the scheduler's
exactly-once rests on makes a second backfill of the same range create nothing: a time that already has a
run keeps it, except a MISSED one (core/schedules/catchup.py), which becomes this backfill's run (the same
row, so the pair stays unique): filling a gap is what a backfill is for.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from schemas.scheduled.events import RunStatus
from sinks import credentials
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from sinks.db.scheduled.events import Tick

__all__ = ["add_backfill_runs"]

QUEUED, MISSED = RunStatus.QUEUED.value, RunStatus.MISSED.value


def add_backfill_runs(
    session: Session, event: ScheduledEvent, times: list[datetime], now: datetime
) -> list[Tick]:
    """The ticks of the runs created (or taken over from MISSED), in scheduled order."""
    if not times:
        return []
    existing = {
        run.scheduled_for: run
        for run in session.scalars(
            select(ScheduledEventRun).where(
                ScheduledEventRun.event_id == event.id,
                ScheduledEventRun.scheduled_for >= min(times),
                ScheduledEventRun.scheduled_for <= max(times),
            )
        )
    }
    ticks: list[Tick] = []
    rows = []
    for at in sorted(times):
        run = existing.get(at)
        if run is not None:
            if run.status != MISSED:
                continue
            run.status, run.backfill, run.queued_at, run.dispatched_at = QUEUED, True, now, now
            run.ended_at, run.error_message = None, None
            ticks.append(Tick(event.id, run.id, event.company_id, at))
            continue
        tick = Tick(event.id, credentials.new_id(), event.company_id, at)
        rows.append(
            {
                "id": tick.run_id,
                "event_id": event.id,
                "company_id": event.company_id,
                "scheduled_for": at,
                "status": QUEUED,
                "attempt": 1,
                "action_type": event.action_type,
                "queued_at": now,
                "dispatched_at": now,
                "backfill": True,
            }
        )
        ticks.append(tick)
    if rows:
        session.execute(insert(ScheduledEventRun), rows)
    return ticks
