"""Deleting scheduled runs past their retention: runs of a fire time and an end before the cutoff, once
they ended (a dead letter still owed keeps its run until it is published). Each statement walks the runs'
history index of one event, so it costs what it deletes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Select, delete, or_, select
from sqlalchemy.orm import Session

from schemas.scheduled.events import RunStatus
from sinks.db.models import ScheduledEvent, ScheduledEventRun

_ENDED = (RunStatus.SUCCEEDED.value, RunStatus.FAILED.value, RunStatus.SKIPPED.value, RunStatus.MISSED.value)


def events_of(session: Session, company_id: str) -> list[str]:
    """Every event of the company, deleted ones included (their runs are history too)."""
    return list(
        session.scalars(
            select(ScheduledEvent.id)
            .where(ScheduledEvent.company_id == company_id)
            .order_by(ScheduledEvent.id)
        )
    )


def _expired(company_id: str, event_id: str, cutoff: datetime) -> Select[Any]:
    runs = ScheduledEventRun
    return (
        select(runs.id)
        .where(
            runs.company_id == company_id,
            runs.event_id == event_id,
            runs.scheduled_for < cutoff,
            runs.status.in_(_ENDED),
            runs.dead_letter_at.is_(None),
            or_(runs.ended_at.is_(None), runs.ended_at < cutoff),
        )
        .order_by(runs.scheduled_for)
    )


def any_expired(session: Session, company_id: str, event_id: str, cutoff: datetime) -> bool:
    """A read, so the sweep takes no write lock for an event with nothing to delete."""
    return session.scalar(_expired(company_id, event_id, cutoff).limit(1)) is not None


def delete_expired(session: Session, company_id: str, event_id: str, cutoff: datetime, limit: int) -> int:
    """Up to ``limit`` of the event's ended runs before ``cutoff``, oldest first; how many went."""
    due = _expired(company_id, event_id, cutoff).limit(limit).scalar_subquery()
    result = session.execute(
        delete(ScheduledEventRun)
        .where(ScheduledEventRun.id.in_(due))
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]
