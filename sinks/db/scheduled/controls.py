"""The scheduler controls' side of the run rows: /run-now's run, a pause's withdrawn fires, and the end of an
event whose actionAfterCompletion is DELETE.

Units of work (they take a session and never commit), beside sinks/db/scheduled/runs.py, which calls them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from schemas.scheduled.controls import ActionAfterCompletion
from schemas.scheduled.events import RunStatus
from sinks import credentials
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from sinks.db.scheduled.events import Tick

__all__ = ["add_manual_run", "delete_if_complete", "deletes_when_done", "paused_over", "pending_manual"]

DELETE = ActionAfterCompletion.DELETE.value
_PENDING = (RunStatus.QUEUED.value, RunStatus.RUNNING.value)


def paused_over(run: ScheduledEventRun, event: ScheduledEvent) -> bool:
    """A fire claimed ahead (never started) that a pause set since then covers: it is withdrawn, not run."""
    return (
        not run.manual
        and not run.backfill
        and run.attempt == 1
        and event.paused_until is not None
        and run.scheduled_for < event.paused_until
    )


def deletes_when_done(run: ScheduledEventRun, event: ScheduledEvent) -> bool:
    """Whether this run's end may delete its event: a fire (not /run-now or /backfill) of a DELETE event."""
    return not run.manual and not run.backfill and event.action_after_completion == DELETE


def delete_if_complete(session: Session, event_id: str, now: datetime) -> bool:
    """Soft-delete the event, as /delete does, if its actionAfterCompletion is DELETE and it has no fire
    left (the scheduler set nextFireAt to none when it claimed the last one). True if this call deleted it."""
    done = session.execute(
        update(ScheduledEvent)
        .where(
            ScheduledEvent.id == event_id,
            ScheduledEvent.action_after_completion == DELETE,
            ScheduledEvent.next_fire_at.is_(None),
            ScheduledEvent.deleted_at.is_(None),
        )
        .values(deleted_at=now, updated_at=now)
        .execution_options(synchronize_session=False)
    )
    return bool(done.rowcount == 1)  # type: ignore[attr-defined]


def pending_manual(session: Session, company_id: str, event_id: str) -> int:
    """The event's /run-now runs not yet ended (QUEUED or RUNNING)."""
    return (
        session.scalar(
            select(func.count())
            .select_from(ScheduledEventRun)
            .where(
                ScheduledEventRun.company_id == company_id,
                ScheduledEventRun.event_id == event_id,
                ScheduledEventRun.manual.is_(True),
                ScheduledEventRun.status.in_(_PENDING),
            )
        )
        or 0
    )


def add_manual_run(session: Session, event: ScheduledEvent, now: datetime) -> Tick:
    """A QUEUED /run-now run of ``event`` scheduled for ``now``, exactly as a claimed fire's row is (so the
    same tick, claim and reconciler carry it), marked manual; the event's grid is left as it is."""
    tick = Tick(event.id, credentials.new_id(), event.company_id, now)
    session.execute(
        insert(ScheduledEventRun).values(
            id=tick.run_id,
            event_id=event.id,
            company_id=event.company_id,
            scheduled_for=now,
            status=RunStatus.QUEUED.value,
            attempt=1,
            action_type=event.action_type,
            queued_at=now,
            dispatched_at=now,
            manual=True,
        )
    )
    return tick
