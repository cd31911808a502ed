"""Issue 25 (flexibleTimeWindow): each fire moves later by a deterministic offset within the window, inside
the next-fire function the scheduler, nextFireAt and /preview share; the scheduler claims the moved times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from core.schedules.preview import fire_times
from core.schedules.spec import next_fire
from core.schedules.window import NO_WINDOW, FireWindow
from schemas.scheduled.catchup import FlexibleTimeWindow
from schemas.scheduled.schedules import load_schedule_spec
from sinks.db.scheduled import events
from tests.fixtures.stack import Db
from tests.unit.test_schedule_control_claims import EVERY_MINUTE, add_event, event

pytestmark = pytest.mark.unit

NOW = datetime(2027, 1, 1, 12, 0, tzinfo=UTC)
SPEC = load_schedule_spec(EVERY_MINUTE)
MINUTE = timedelta(minutes=1)
FLEX = FireWindow(flex_seconds=600, flex_key="event-1")


def test_the_offset_is_fixed_by_event_and_time_and_within_the_window() -> None:
    offsets = [FLEX.offset(NOW + k * MINUTE) for k in range(200)]
    assert offsets == [FLEX.offset(NOW + k * MINUTE) for k in range(200)]
    assert all(timedelta(0) <= o < timedelta(minutes=10) and o.microseconds == 0 for o in offsets)
    assert len(set(offsets)) > 100  # spread, not one offset for all
    other = FireWindow(flex_seconds=600, flex_key="event-2")
    assert [other.offset(NOW + k * MINUTE) for k in range(20)] != offsets[:20]
    assert NO_WINDOW.offset(NOW) == timedelta(0)


def test_successive_fires_are_every_moved_fire_once_in_order() -> None:
    nominal = [NOW + k * MINUTE for k in range(1, 400)]
    moved = sorted(n + FLEX.offset(n) for n in nominal)
    times = fire_times(SPEC, NOW, anchor=NOW, count=200, window=FLEX)
    assert times == moved[:200]
    assert next_fire(SPEC, NOW, anchor=NOW, window=NO_WINDOW) == NOW + MINUTE  # OFF: as before


def test_a_window_wider_than_the_interval_still_loses_and_doubles_nothing() -> None:
    hourly = load_schedule_spec({"pattern": "CRON", "cron": {"expression": "0 * * * ? *", "timezone": "UTC"}})
    wide = FireWindow(flex_seconds=3 * 3600, flex_key="wide")
    start = NOW + timedelta(minutes=30)
    # Fires of up to three hours before ``start`` may be moved past it.
    nominal = [NOW + timedelta(hours=k) for k in range(-3, 100)]
    moved = sorted(m for m in (n + wide.offset(n) for n in nominal) if m > start)
    assert fire_times(hourly, start, anchor=NOW, count=50, window=wide) == moved[:50]


def test_end_date_bounds_the_moved_times() -> None:
    first = next_fire(SPEC, NOW, anchor=NOW, window=FLEX)
    assert first is not None
    bounded = FireWindow(end_date=first - timedelta(seconds=1), flex_seconds=600, flex_key="event-1")
    following = next_fire(SPEC, NOW, anchor=NOW, window=bounded)
    assert following is None or following < first


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"mode": "FLEXIBLE"}, "maximumWindowInMinutes is required when mode is FLEXIBLE"),
        ({"mode": "OFF", "maximumWindowInMinutes": 5}, "maximumWindowInMinutes is only allowed"),
        ({"mode": "FLEXIBLE", "maximumWindowInMinutes": 0}, "must be between 1 and 1440"),
        ({"mode": "FLEXIBLE", "maximumWindowInMinutes": 1441}, "must be between 1 and 1440"),
        ({"mode": "SOMETIMES"}, "Input should be 'OFF' or 'FLEXIBLE'"),
    ],
)
def test_flexible_time_window_is_validated(body: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        FlexibleTimeWindow.model_validate(body)


def test_the_scheduler_claims_the_moved_fire_and_moves_the_next(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, None, anchor_at=NOW, flex_window_minutes=10)
    row = event(db, event_id)
    window = events.fire_window(row)
    assert (window.flex_seconds, window.flex_key) == (600, event_id)
    first = next_fire(SPEC, NOW, anchor=NOW, window=window)
    assert first is not None
    with db.sessions.begin() as session:
        events.set_next_fire(session, row.company_id, event_id, first, NOW)
    with db.sessions.begin() as session:
        ticks = events.claim_due(session, first, None, 100)
    assert [tick.scheduled_for for tick in ticks] == [first]
    assert event(db, event_id).next_fire_at == next_fire(SPEC, first, anchor=NOW, window=window)
