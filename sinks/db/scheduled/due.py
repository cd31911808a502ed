"""The scheduler timer's round as one unit of work for a :class:`~sinks.db.group_commit.GroupCommitter`
(it takes a session and never commits): the fires coming due, the retries coming due, the buffered runs
released, and the dead-letter records owed.

The timer runs twice a second on the leader and nearly every round finds nothing, so one prebuilt statement
first asks whether any of the four has work (four indexed EXISTS), and only a kind it finds work for runs its
own query. The probe's conditions are each query's own, or wider (a buffered run may still be blocked), so it
never hides work. New events and outcomes written by any process are seen at the next round.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Table, bindparam, exists, select
from sqlalchemy.orm import Session

from schemas.scheduled.events import RunStatus
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from sinks.db.scheduled import events as scheduled_events
from sinks.db.scheduled import overlap
from sinks.db.scheduled import retries as scheduled_retries
from sinks.db.scheduled.events import Tick
from sinks.db.scheduled.retries import OwedDeadLetter

_EVENTS = cast(Table, ScheduledEvent.__table__)
_RUNS = cast(Table, ScheduledEventRun.__table__)
_QUEUED = RunStatus.QUEUED.value
# Built once: the WHERE clauses of claim_due, take_due_retries, take_released (without its "blocked" test)
# and take_dead_letters.
_PROBE = select(
    exists().where(
        _EVENTS.c.next_fire_at <= bindparam("horizon"),
        _EVENTS.c.enabled.is_(True),
        _EVENTS.c.deleted_at.is_(None),
    ),
    exists().where(
        _RUNS.c.retry_at <= bindparam("horizon"),
        _RUNS.c.status == _QUEUED,
        _RUNS.c.dispatched_at.is_(None),
    ),
    exists().where(_RUNS.c.buffered.is_(True), _RUNS.c.status == _QUEUED),
    exists().where(_RUNS.c.dead_letter_at <= bindparam("now")),
)


@dataclass(frozen=True)
class Due:
    """What a round took: ticks to send (fires, retries, released runs) and dead-letter records to publish."""

    ticks: list[Tick]
    dead_letters: list[OwedDeadLetter]


def take_due(
    session: Session,
    now: datetime,
    horizon: datetime,
    limit: int,
    dead_letter_lease: timedelta,
    dead_letter_limit: int,
) -> Due:
    """Claim the fires due by ``horizon`` (each event's own catch-up window), mark the retries due by
    ``horizon`` dispatched, release the buffered runs whose event has nothing else in progress, and claim
    the dead-letter records owed by ``now``: at most ``limit`` of each kind of tick, ``dead_letter_limit``
    records."""
    horizon = max(now, horizon)
    fires, retries, buffered, letters = (
        session.connection().execute(_PROBE, {"now": now, "horizon": horizon}).one()
    )
    ticks: list[Tick] = []
    if fires:
        ticks += scheduled_events.claim_due(session, now=now, window=None, limit=limit, horizon=horizon)
    if retries:
        ticks += scheduled_retries.take_due_retries(session, now=now, horizon=horizon, limit=limit)
    if buffered:
        # overlapPolicy BUFFER_ONE: a waiting fire starts once its event has nothing else in progress.
        ticks += overlap.take_released(session, now=now, limit=limit)
    owed = (
        scheduled_retries.take_dead_letters(
            session, now=now, lease=dead_letter_lease, limit=dead_letter_limit
        )
        if letters
        else []
    )
    return Due(ticks, owed)
