"""MISSED runs: the fires the scheduler passed over while it stood still, written to /runs.

A unit of work for :func:`sinks.db.scheduled.events.claim_due` (it takes a session and never commits). The
fires come from :func:`core.schedules.catchup.catch_up`, at most ``MAX_MISSED_PER_CATCH_UP`` per event per
catch-up; a row already there for the same (event, scheduled time) (a /run-now or a backfill at that time)
is left as it is, so the unique pair never breaks the claim.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from core.schedules.catchup import MAX_MISSED_PER_CATCH_UP, CatchUp, Missed
from core.schedules.controls import shown
from schemas.scheduled.events import RunStatus
from sinks import credentials
from sinks.db.models import ScheduledEvent, ScheduledEventRun

__all__ = ["missed_message", "record_missed"]

MISSED = RunStatus.MISSED.value


def missed_message(missed: Missed, window_seconds: int, *, last: bool, truncated: bool, now: datetime) -> str:
    if missed.superseded:
        text = (
            "Missed: a later fire inside the catch-up window ran instead (only the latest missed fire runs)"
        )
    else:
        text = (
            "Missed: the scheduler did not start it within the event's catch-up window "
            f"(catchupWindowSeconds {window_seconds})"
        )
    if last and truncated:
        text += (
            f"; at most {MAX_MISSED_PER_CATCH_UP} missed fires are recorded per catch-up, so the fires after "
            f"this one up to {shown(now)} were missed too without a run each"
        )
    return text


def record_missed(session: Session, caught: list[tuple[ScheduledEvent, CatchUp]], now: datetime) -> int:
    """Insert a MISSED run per missed fire of each event; returns how many were written."""
    caught = [(event, up) for event, up in caught if up.missed]
    if not caught:
        return 0
    times = {m.at for _, up in caught for m in up.missed}
    taken = {
        (event_id, at)
        for event_id, at in session.execute(
            select(ScheduledEventRun.event_id, ScheduledEventRun.scheduled_for).where(
                ScheduledEventRun.event_id.in_([event.id for event, _ in caught]),
                ScheduledEventRun.scheduled_for >= min(times),
                ScheduledEventRun.scheduled_for <= max(times),
            )
        )
    }
    rows = []
    for event, up in caught:
        for index, missed in enumerate(up.missed):
            if (event.id, missed.at) in taken:
                continue
            last = index == len(up.missed) - 1
            message = missed_message(
                missed, event.catchup_window_seconds, last=last, truncated=up.truncated, now=now
            )
            rows.append(
                {
                    "id": credentials.new_id(),
                    "event_id": event.id,
                    "company_id": event.company_id,
                    "scheduled_for": missed.at,
                    "status": MISSED,
                    "attempt": 1,
                    "action_type": event.action_type,
                    "queued_at": now,
                    "ended_at": now,
                    "error_message": message,
                }
            )
    if rows:
        session.execute(insert(ScheduledEventRun), rows)
    return len(rows)
