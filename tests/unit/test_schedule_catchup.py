"""Issue 25 (missed runs): the pure catch-up rule, and the scheduler's claim writing MISSED runs on a real
SQLite DB. Of the fires that passed while nothing claimed them, the latest inside the event's catch-up window
runs late; every other one is a MISSED run (at most MAX_MISSED_PER_CATCH_UP per catch-up, with a note)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from core.schedules.catchup import MAX_MISSED_PER_CATCH_UP, catch_up
from core.schedules.window import NO_WINDOW, FireWindow
from schemas.scheduled.events import RunStatus
from schemas.scheduled.schedules import load_schedule_spec
from sinks.db.models import ScheduledEventRun
from sinks.db.scheduled import events
from tests.fixtures.stack import Db
from tests.unit.test_schedule_control_claims import EVERY_MINUTE, add_event, event

pytestmark = pytest.mark.unit

NOW = datetime(2027, 1, 1, 12, 0, tzinfo=UTC)
SPEC = load_schedule_spec(EVERY_MINUTE)
ANCHOR = NOW - timedelta(days=40)
MINUTE = timedelta(minutes=1)


def test_a_fire_on_time_misses_nothing() -> None:
    result = catch_up(SPEC, anchor=ANCHOR, bounds=NO_WINDOW, due=NOW, now=NOW, window=MINUTE, horizon=NOW)
    assert (result.fire, result.following, result.missed, result.truncated) == (NOW, NOW + MINUTE, [], False)


def test_fires_outside_the_window_are_missed_and_the_latest_inside_runs() -> None:
    result = catch_up(
        SPEC, anchor=ANCHOR, bounds=NO_WINDOW, due=NOW - 10 * MINUTE, now=NOW, window=3 * MINUTE, horizon=NOW
    )
    assert result.fire == NOW and result.following == NOW + MINUTE
    outside = [m.at for m in result.missed if not m.superseded]
    inside = [m.at for m in result.missed if m.superseded]
    assert outside == [NOW - k * MINUTE for k in range(10, 3, -1)]
    assert inside == [NOW - k * MINUTE for k in (3, 2, 1)]
    assert not result.truncated


def test_a_window_of_zero_runs_nothing_late() -> None:
    result = catch_up(
        SPEC,
        anchor=ANCHOR,
        bounds=NO_WINDOW,
        due=NOW - 2 * MINUTE,
        now=NOW - timedelta(seconds=1),
        window=timedelta(0),
        horizon=NOW,
    )
    # The fire at NOW is not late yet: it is claimed ahead, within the horizon.
    assert result.fire == NOW
    assert [m.at for m in result.missed] == [NOW - 2 * MINUTE, NOW - MINUTE]


def test_a_month_down_lists_at_most_the_cap_and_says_so() -> None:
    result = catch_up(
        SPEC,
        anchor=ANCHOR,
        bounds=NO_WINDOW,
        due=NOW - timedelta(days=30),
        now=NOW,
        window=timedelta(hours=1),
        horizon=NOW,
    )
    assert len(result.missed) == MAX_MISSED_PER_CATCH_UP and result.truncated
    assert result.missed[0].at == NOW - timedelta(days=30)
    assert result.fire == NOW


def test_fires_a_pause_covered_are_not_missed() -> None:
    bounds = FireWindow(paused_until=NOW - 2 * MINUTE)
    result = catch_up(
        SPEC, anchor=ANCHOR, bounds=bounds, due=NOW - 10 * MINUTE, now=NOW, window=timedelta(0), horizon=NOW
    )
    assert [m.at for m in result.missed] == [NOW - 2 * MINUTE, NOW - MINUTE]


def test_a_once_event_older_than_its_window_is_missed_not_dropped() -> None:
    once = load_schedule_spec({"pattern": "ONCE", "once": {"at": "2027-01-01T09:00:00", "timezone": "UTC"}})
    due = NOW - timedelta(hours=3)
    result = catch_up(
        once, anchor=ANCHOR, bounds=NO_WINDOW, due=due, now=NOW, window=timedelta(hours=1), horizon=NOW
    )
    assert (result.fire, result.following) == (None, None)
    assert [(m.at, m.superseded) for m in result.missed] == [(due, False)]


def runs_of(db: Db, event_id: str) -> list[ScheduledEventRun]:
    with db.sessions() as session:
        rows = list(
            session.scalars(
                select(ScheduledEventRun)
                .where(ScheduledEventRun.event_id == event_id)
                .order_by(ScheduledEventRun.scheduled_for)
            )
        )
        session.expunge_all()
        return rows


def claim(db: Db, now: datetime) -> list[events.Tick]:
    with db.sessions.begin() as session:
        return events.claim_due(session, now, None, 100)


def test_the_claim_writes_missed_runs_with_the_events_own_window(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, NOW - 5 * MINUTE, anchor_at=ANCHOR, catchup_window_seconds=120)
    (tick,) = claim(db, NOW)
    assert tick.scheduled_for == NOW
    rows = runs_of(db, event_id)
    missed = [r for r in rows if r.status == RunStatus.MISSED.value]
    assert [r.scheduled_for for r in missed] == [NOW - k * MINUTE for k in (5, 4, 3, 2, 1)]
    assert "catchupWindowSeconds 120" in (missed[0].error_message or "")
    assert "a later fire" in (missed[-1].error_message or "")
    assert all(r.ended_at == NOW and r.started_at is None for r in missed)
    assert [r.status for r in rows if r.scheduled_for == NOW] == [RunStatus.QUEUED.value]
    assert event(db, event_id).next_fire_at == NOW + MINUTE
    # The grid moved on: claiming again writes nothing twice.
    assert claim(db, NOW) == [] and len(runs_of(db, event_id)) == 6


def test_a_long_gap_writes_the_cap_and_a_note_on_the_last(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, NOW - timedelta(days=30), anchor_at=ANCHOR)
    claim(db, NOW)
    rows = runs_of(db, event_id)
    missed = [r for r in rows if r.status == RunStatus.MISSED.value]
    assert len(missed) == MAX_MISSED_PER_CATCH_UP
    assert f"at most {MAX_MISSED_PER_CATCH_UP} missed fires" in (missed[-1].error_message or "")
    assert f"at most {MAX_MISSED_PER_CATCH_UP}" not in (missed[0].error_message or "")
    assert len(rows) == MAX_MISSED_PER_CATCH_UP + 1


def test_a_missed_fire_leaves_an_existing_run_at_that_time_alone(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, NOW - 3 * MINUTE, anchor_at=ANCHOR, catchup_window_seconds=0)
    row = event(db, event_id)
    with db.sessions.begin() as session:
        session.add(
            ScheduledEventRun(
                id="manual1",
                event_id=event_id,
                company_id=row.company_id,
                scheduled_for=NOW - 2 * MINUTE,
                status="SUCCEEDED",
                attempt=1,
                action_type="INVOKE_TOOL",
                queued_at=NOW,
                manual=True,
            )
        )
    claim(db, NOW)
    statuses = {r.scheduled_for: r.status for r in runs_of(db, event_id)}
    assert statuses == {
        NOW - 3 * MINUTE: "MISSED",
        NOW - 2 * MINUTE: "SUCCEEDED",
        NOW - MINUTE: "MISSED",
        NOW: "QUEUED",
    }
