"""The scheduler's timer round in one unit of work (sinks/db/scheduled/due.py) and the reconciler's
(sweeps.take_stray): a probe decides which queries run, and it never hides work of any kind."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event, func, select, update
from sqlalchemy.engine import Connection

from schemas.scheduled.events import RunStatus
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from sinks.db.scheduled import due as scheduled_due
from sinks.db.scheduled import events as scheduled_events
from sinks.db.scheduled import sweeps
from tests.fixtures.query_plans import statements
from tests.fixtures.stack import Db
from tests.unit.test_scheduled_event_models import EVERY_MINUTE, NOW, add_event, claim

pytestmark = pytest.mark.integration

LEASE = timedelta(seconds=30)
LATER = NOW + timedelta(seconds=1)


def round_at(db: Db) -> scheduled_due.Due:
    with db.sessions.begin() as session:
        return scheduled_due.take_due(
            session, now=LATER, horizon=LATER, limit=100, dead_letter_lease=LEASE, dead_letter_limit=100
        )


def runs(db: Db, count: int) -> list[str]:
    """``count`` events fired once at NOW: their runs are QUEUED and dispatched; the next fires are a
    minute later."""
    for _ in range(count):
        add_event(db, EVERY_MINUTE, next_fire_at=NOW, anchor=NOW - timedelta(minutes=1))
    return [tick.run_id for tick in claim(db, NOW)]


def set_run(db: Db, run_id: str, **values: object) -> None:
    with db.sessions.begin() as session:
        session.execute(update(ScheduledEventRun).where(ScheduledEventRun.id == run_id).values(**values))


def test_a_round_with_nothing_due_takes_nothing(db: Db) -> None:
    runs(db, 2)  # dispatched, not yet lost; the events' next fires are a minute away
    due = round_at(db)
    assert due.ticks == [] and due.dead_letters == []


def test_a_round_takes_every_kind_of_work_at_once(db: Db) -> None:
    retry, buffered, failed, _untouched = runs(db, 4)
    set_run(db, retry, retry_at=LATER, dispatched_at=None)
    set_run(db, buffered, buffered=True, dispatched_at=None)
    set_run(db, failed, status=RunStatus.FAILED.value, ended_at=NOW, dead_letter_at=NOW, error_message="boom")
    fresh = add_event(db, EVERY_MINUTE, next_fire_at=LATER, anchor=LATER - timedelta(minutes=1))

    due = round_at(db)

    assert sorted(tick.run_id for tick in due.ticks if tick.event_id != fresh) == sorted([retry, buffered])
    assert [tick.event_id for tick in due.ticks if tick.event_id == fresh] == [fresh]
    assert [owed.record.run_id for owed in due.dead_letters] == [failed]
    assert due.dead_letters[0].claimed_until == LATER + LEASE
    again = round_at(db)  # each was taken once: dispatched, released, fired, claimed
    assert again.ticks == [] and again.dead_letters == []


def test_a_buffered_run_still_blocked_is_left_waiting(db: Db) -> None:
    first, waiting = runs(db, 2)
    with db.sessions.begin() as session:
        event_id = session.get(ScheduledEventRun, first).event_id  # type: ignore[union-attr]
    set_run(db, first, status=RunStatus.RUNNING.value, started_at=NOW, lease_until=LATER + LEASE)
    later_fire = NOW + timedelta(minutes=1)
    set_run(db, waiting, event_id=event_id, scheduled_for=later_fire, buffered=True, dispatched_at=None)
    assert round_at(db).ticks == []  # the probe saw a buffered run; the release query finds it blocked
    set_run(db, first, status=RunStatus.SUCCEEDED.value, ended_at=LATER)
    assert [tick.run_id for tick in round_at(db).ticks] == [waiting]


def test_the_reconcilers_round_takes_lost_and_abandoned_runs_and_only_them(db: Db) -> None:
    lost, abandoned, mine, fine = runs(db, 4)
    for run_id in (abandoned, mine):
        set_run(db, run_id, status=RunStatus.RUNNING.value, started_at=NOW, lease_until=NOW)
    set_run(db, fine, status=RunStatus.RUNNING.value, started_at=NOW, lease_until=NOW + timedelta(hours=1))
    later = NOW + timedelta(minutes=5)
    with db.sessions.begin() as session:
        nothing = sweeps.take_stray(
            session, now=NOW, queued_grace=LEASE, judged=NOW, running_grace=LEASE, limit=10
        )
    assert nothing == ([], [])
    with db.sessions.begin() as session:
        found_lost, found_abandoned = sweeps.take_stray(
            session,
            now=later,
            queued_grace=LEASE,
            judged=later,
            running_grace=LEASE,
            limit=10,
            acting=frozenset({mine}),
        )
    assert [tick.run_id for tick in found_lost] == [lost]
    assert [tick.run_id for tick in found_abandoned] == [abandoned]


def _grids(db: Db, event_ids: list[str]) -> dict[str, object]:
    with db.sessions() as session:
        rows = session.execute(
            select(ScheduledEvent.id, ScheduledEvent.next_fire_at).where(ScheduledEvent.id.in_(event_ids))
        )
        return {event_id: next_fire for event_id, next_fire in rows}


def test_the_round_moves_the_grids_of_its_events_in_one_statement(db: Db) -> None:
    events = [
        add_event(db, EVERY_MINUTE, next_fire_at=LATER, anchor=LATER - timedelta(minutes=1)) for _ in range(5)
    ]
    with statements(db.engine) as seen:
        due = round_at(db)
    assert sorted(tick.event_id for tick in due.ticks) == sorted(events)
    moved = [s for s, _ in seen if s.startswith("UPDATE scheduled_events")]
    assert len(moved) == 1
    assert set(_grids(db, events).values()) == {LATER + timedelta(minutes=1)}
    assert round_at(db).ticks == []


def test_a_grid_moved_meanwhile_undoes_the_whole_round(db: Db) -> None:
    """Never expected (the round's events are locked, or SQLite's write lock is held), but if an event's
    grid moved between the round's read and its write, nothing of the round stands: no run, no grid moved."""
    if db.engine.dialect.name != "sqlite":
        pytest.skip("PostgreSQL's row locks keep another writer out; the check is the same code")
    events = [
        add_event(db, EVERY_MINUTE, next_fire_at=LATER, anchor=LATER - timedelta(minutes=1)) for _ in range(3)
    ]
    elsewhere = LATER + timedelta(minutes=5)
    before = _grids(db, events)

    def move_one(conn: Connection, _cursor: Any, statement: str, *_rest: Any) -> None:
        if statement.startswith("UPDATE scheduled_events") and not moving:
            moving.append(True)
            conn.execute(
                update(ScheduledEvent).where(ScheduledEvent.id == events[1]).values(next_fire_at=elsewhere)
            )

    moving: list[bool] = []
    event.listen(db.engine, "before_cursor_execute", move_one)
    try:
        with pytest.raises(scheduled_events.LostFireRace):
            round_at(db)
    finally:
        event.remove(db.engine, "before_cursor_execute", move_one)
    assert moving
    assert _grids(db, events) == before
    with db.sessions() as session:
        assert session.scalar(select(func.count()).select_from(ScheduledEventRun)) == 0
