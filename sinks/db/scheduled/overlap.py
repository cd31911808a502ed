"""overlapPolicy (Temporal's names): what a fire does while an earlier run of the same event is in progress.

A fire's run is judged when it is claimed to start (``claim_runs``), not when it is claimed ahead, so a run
that ends in the seconds between the two blocks nothing. In progress: RUNNING, or QUEUED for an earlier
time (a fire not started yet, or a run waiting for its retry). SKIP (the default) records the fire SKIPPED
with the reason; ALLOW starts it; BUFFER_ONE keeps one fire waiting (QUEUED, ``buffered``) and the leader's
timer sends its tick once nothing of the event is in progress (:func:`take_released`); further fires are
SKIPPED. A /run-now run was asked for by name and is never held back (it does block later fires). A
/backfill run is never skipped: it waits (buffered, however many) until everything earlier of its event has
ended, so a backfill's runs go one at a time in scheduled order.

Units of work (they take a session and never commit).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, or_, select
from sqlalchemy.orm import Session, aliased

from schemas.scheduled.catchup import OverlapPolicy
from schemas.scheduled.events import RunStatus
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from sinks.db.scheduled.events import Tick

__all__ = ["hold_back", "others_in_progress", "take_released"]

QUEUED, RUNNING = RunStatus.QUEUED.value, RunStatus.RUNNING.value
Ready = tuple[ScheduledEventRun, ScheduledEvent, dict[str, Any]]


@dataclass
class _Other:
    id: str
    event_id: str
    status: str
    scheduled_for: datetime
    buffered: bool


def _judged(run: ScheduledEventRun, event: ScheduledEvent) -> bool:
    # A backfill's runs go one after another whatever the policy: "in order" means each starts once the
    # one before it ended.
    allowed = event.overlap_policy == OverlapPolicy.ALLOW.value
    return not run.manual and run.attempt == 1 and (run.backfill or not allowed)


def others_in_progress(starting: list[str]) -> ColumnElement[bool]:
    """For a run a query reads: whether its event has a run in progress besides ``starting``. Read with the
    runs being claimed, it spares :func:`hold_back` its query for every event that has none."""
    other = aliased(ScheduledEventRun)
    return exists().where(
        other.event_id == ScheduledEventRun.event_id,
        other.status.in_((QUEUED, RUNNING)),
        other.id.not_in(starting),
    )


def _in_progress(session: Session, event_ids: set[str], starting: set[str]) -> list[_Other]:
    """The runs of ``event_ids`` in progress, besides ``starting``."""
    rows = session.execute(
        select(
            ScheduledEventRun.id,
            ScheduledEventRun.event_id,
            ScheduledEventRun.status,
            ScheduledEventRun.scheduled_for,
            ScheduledEventRun.buffered,
        ).where(
            ScheduledEventRun.event_id.in_(event_ids),
            ScheduledEventRun.status.in_((QUEUED, RUNNING)),
            ScheduledEventRun.id.not_in(starting),
        )
    )
    return [_Other(*row) for row in rows]


def hold_back(session: Session, ready: list[Ready], now: datetime, may_be_busy: set[str]) -> list[Ready]:
    """Of runs just moved to RUNNING, those that may start; the others are SKIPPED or buffered here.
    ``may_be_busy``: the events that may have another run in progress (:func:`others_in_progress`)."""
    judged = [item for item in ready if _judged(item[0], item[1])]
    if not judged:
        return ready
    event_ids = {run.event_id for run, _, _ in judged} & may_be_busy
    starting = {run.id for run, _, _ in ready}
    others = _in_progress(session, event_ids, starting) if event_ids else []
    # Two fires of one event starting in the same batch: the earlier one goes first.
    started: dict[str, str] = {}
    kept: list[Ready] = []
    for item in sorted(ready, key=lambda item: item[0].scheduled_for):
        run, event, _ = item
        if not _judged(run, event):
            started.setdefault(run.event_id, run.id)
            kept.append(item)
            continue
        busy = [
            other.id
            for other in others
            if other.event_id == run.event_id
            and (other.status == RUNNING or other.scheduled_for < run.scheduled_for)
        ]
        if run.event_id in started:
            busy.append(started[run.event_id])
        if not busy:
            started[run.event_id] = run.id
            kept.append(item)
            continue
        waiting = any(o.event_id == run.event_id and o.buffered for o in others)
        if run.backfill or (event.overlap_policy == OverlapPolicy.BUFFER_ONE.value and not waiting):
            run.status, run.started_at, run.lease_until, run.dispatched_at = QUEUED, None, None, now
            run.buffered = True
            others.append(_Other(run.id, run.event_id, QUEUED, run.scheduled_for, True))
            continue
        run.status, run.ended_at, run.duration_ms = RunStatus.SKIPPED.value, now, 0
        reason = (
            "a fire is already waiting" if waiting else f"run {busy[0]} of this event is still in progress"
        )
        run.error_message = f"Skipped: {reason} (overlapPolicy {event.overlap_policy})"
    return kept


def take_released(session: Session, now: datetime, limit: int) -> list[Tick]:
    """Buffered runs whose event has nothing else in progress: no longer buffered, their ticks sent."""
    other = aliased(ScheduledEventRun)
    blocked = exists().where(
        other.event_id == ScheduledEventRun.event_id,
        other.id != ScheduledEventRun.id,
        or_(
            other.status == RUNNING,
            and_(other.status == QUEUED, other.scheduled_for < ScheduledEventRun.scheduled_for),
        ),
    )
    runs = list(
        session.scalars(
            select(ScheduledEventRun)
            .where(ScheduledEventRun.buffered.is_(True), ScheduledEventRun.status == QUEUED, ~blocked)
            .order_by(ScheduledEventRun.scheduled_for)
            .limit(limit)
        )
    )
    for run in runs:
        run.buffered, run.dispatched_at = False, now
    return [Tick(run.event_id, run.id, run.company_id, run.scheduled_for) for run in runs]
