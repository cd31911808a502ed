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
from functools import lru_cache
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, insert, select, update
from sqlalchemy.orm import Session

from core.schedules.catchup import CatchUp, catch_up
from core.schedules.spec import next_fire
from core.schedules.window import NO_WINDOW, FireWindow
from schemas.records import ScheduleTick
from schemas.scheduled.controls import ActionAfterCompletion
from schemas.scheduled.events import RunStatus
from schemas.scheduled.schedules import CronSpec, EverySpec, OnceSpec, load_schedule_spec
from sinks import credentials
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from sinks.db.scheduled import missed as scheduled_missed

QUEUED = RunStatus.QUEUED.value
DELETE = ActionAfterCompletion.DELETE.value
Spec = EverySpec | CronSpec | OnceSpec


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


def fire_window(event: ScheduledEvent) -> FireWindow:
    """The event's startDate, endDate, pause and flexibleTimeWindow, as the next-fire function takes them."""
    flex = (event.flex_window_minutes or 0) * 60
    if event.start_date is None and event.end_date is None and event.paused_until is None and not flex:
        return NO_WINDOW
    return FireWindow(
        start_date=event.start_date,
        end_date=event.end_date,
        paused_until=event.paused_until,
        flex_seconds=flex,
        flex_key=event.id,
    )


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

    def record(self) -> ScheduleTick:
        return ScheduleTick(
            event_id=self.event_id,
            run_id=self.run_id,
            company_id=self.company_id,
            scheduled_for=self.scheduled_for,
        )


@lru_cache(maxsize=4096)
def _parsed_spec(spec_json: str) -> Spec:
    """Many events share a schedule; parse each distinct one once (the models are immutable)."""
    return load_schedule_spec(json.loads(spec_json))


def _catch_up(
    event: ScheduledEvent, due: datetime, now: datetime, window: timedelta | None, horizon: datetime
) -> CatchUp:
    """The fire to claim, the next one after it and the fires missed on the way (core/schedules/catchup.py),
    every time from the next-fire function within the event's window (startDate, endDate, a pause). A fire
    up to ``horizon`` (a little after now) is claimed ahead, so its tick waits at the executor."""
    return catch_up(
        _parsed_spec(event.spec_json),
        anchor=event.anchor_at,
        bounds=fire_window(event),
        due=due,
        now=now,
        window=window if window is not None else timedelta(seconds=event.catchup_window_seconds),
        horizon=horizon,
    )


class LostFireRace(RuntimeError):
    """An event's grid moved between the fire round's read and its write (never expected: see claim_due)."""


# Compare-and-set on the grid: of two schedulers overlapping in a rebalance, one advances it.
_EVENTS = cast(Table, ScheduledEvent.__table__)
_ADVANCE = (
    update(_EVENTS)
    .where(_EVENTS.c.id == bindparam("event_id"), _EVENTS.c.next_fire_at == bindparam("due"))
    .values(next_fire_at=bindparam("following"), last_fired_at=bindparam("last_fired"))
)


def _advance(
    session: Session,
    event_id: str,
    due: datetime,
    following: datetime | None,
    last: datetime | None,
    ended: dict[str, Any],
) -> bool:
    """One event's grid moved (compare-and-set), with ``ended``'s columns; False if it had moved already."""
    advanced = session.execute(
        update(ScheduledEvent)
        .where(ScheduledEvent.id == event_id, ScheduledEvent.next_fire_at == due)
        .values(next_fire_at=following, last_fired_at=last, **ended)
        # Not "evaluate": it would visit every object in the session per statement (quadratic).
        .execution_options(synchronize_session=False)
    )
    return bool(advanced.rowcount == 1)  # type: ignore[attr-defined]


def claim_due(
    session: Session,
    now: datetime,
    window: timedelta | None,
    limit: int,
    horizon: datetime | None = None,
) -> list[Tick]:
    """Turn every fire of enabled, live events due by ``horizon`` (default: now) into a QUEUED run row and
    advance the event; at most one fire per event per call. The fires passed over on the way are written as
    MISSED runs (sinks/db/scheduled/missed.py). ``window``: the catch-up window of every event, instead of
    each event's own ``catchupWindowSeconds`` (None). An event with actionAfterCompletion DELETE that
    is left with no fire and none to run now is deleted here (with one to run, its run's end deletes it)."""
    horizon = max(now, horizon or now)
    events = list(
        session.scalars(
            select(ScheduledEvent)
            .where(
                ScheduledEvent.next_fire_at <= horizon,
                ScheduledEvent.enabled.is_(True),
                ScheduledEvent.deleted_at.is_(None),
            )
            .order_by(ScheduledEvent.next_fire_at)
            .limit(limit)
            # PostgreSQL: of two schedulers overlapping in a rebalance, each takes events the other has not
            # locked instead of queueing behind its locks (SQLite has one writer and renders no FOR UPDATE).
            .with_for_update(skip_locked=True)
        )
    )
    caught: list[tuple[ScheduledEvent, CatchUp]] = []
    plain: list[dict[str, Any]] = []
    for event in events:
        due = event.next_fire_at
        if due is None:
            continue
        up = _catch_up(event, due, now, window, horizon)
        last = up.fire or event.last_fired_at
        if up.fire is None and up.following is None and event.action_after_completion == DELETE:
            if _advance(session, event.id, due, up.following, last, {"deleted_at": now, "updated_at": now}):
                caught.append((event, up))
            continue
        plain.append({"event_id": event.id, "due": due, "following": up.following, "last_fired": last})
        caught.append((event, up))
    if plain:
        # One prebuilt executemany moves every event's grid, rather than a statement built and sent per event.
        moved = session.connection().execute(_ADVANCE, plain).rowcount
        if moved != len(plain):
            # The rows are this transaction's (FOR UPDATE on PostgreSQL, SQLite's write lock), so every
            # grid moves; if one did not, nothing of this round stands (it is tried again next round).
            raise LostFireRace(f"{len(plain) - moved} of {len(plain)} events' grids moved meanwhile")
    claimed = [(event, up.fire) for event, up in caught if up.fire is not None]
    scheduled_missed.record_missed(session, caught, now)
    if not claimed:
        return []
    taken = {
        (event_id, scheduled_for)
        for event_id, scheduled_for in session.execute(
            select(ScheduledEventRun.event_id, ScheduledEventRun.scheduled_for).where(
                ScheduledEventRun.event_id.in_([event.id for event, _ in claimed]),
                ScheduledEventRun.scheduled_for.in_({fire for _, fire in claimed}),
            )
        )
    }
    ticks = [
        Tick(event.id, credentials.new_id(), event.company_id, fire)
        for event, fire in claimed
        if (event.id, fire) not in taken
    ]
    if ticks:
        kinds = {event.id: event.action_type for event, _ in claimed}
        rows = [
            {
                "id": tick.run_id,
                "event_id": tick.event_id,
                "company_id": tick.company_id,
                "scheduled_for": tick.scheduled_for,
                "status": QUEUED,
                "attempt": 1,
                "action_type": kinds[tick.event_id],
                "queued_at": now,
                "dispatched_at": now,
            }
            for tick in ticks
        ]
        session.execute(insert(ScheduledEventRun), rows)
    return ticks


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
