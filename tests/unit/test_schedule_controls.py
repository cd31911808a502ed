"""Issue 25 (scheduler controls), the pure part: startDate, endDate and a pause inside the next-fire function
that the scheduler, nextFireAt and /preview all call, and the checks whose messages name their field."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from core.schedules.controls import check_dates, check_has_fire, check_pause_until
from core.schedules.preview import fire_times
from core.schedules.spec import ScheduleError, next_fire, parse_schedule_expression
from core.schedules.window import NO_WINDOW, FireWindow
from schemas.scheduled.controls import ActionAfterCompletion, PauseRequest, RunNowRequest
from schemas.scheduled.events import CreateEventRequest, UpdateEventRequest
from schemas.scheduled.schedules import load_schedule_spec

pytestmark = pytest.mark.unit

NOW = datetime(2027, 1, 4, 8, 0, tzinfo=UTC)
HOURLY = parse_schedule_expression("cron(0 * * * ? *)", "UTC")
EVERY_10 = load_schedule_spec({"pattern": "EVERY", "every": {"value": 10, "unit": "MINUTES"}})
ONCE = load_schedule_spec({"pattern": "ONCE", "once": {"at": "2027-01-04T12:00:00", "timezone": "UTC"}})


def at(hour: int, minute: int = 0, day: int = 4) -> datetime:
    return datetime(2027, 1, day, hour, minute, tzinfo=UTC)


def test_no_window_is_the_plain_schedule() -> None:
    assert next_fire(HOURLY, NOW, anchor=NOW) == at(9)
    assert next_fire(HOURLY, NOW, anchor=NOW, window=NO_WINDOW) == at(9)


def test_start_date_is_inclusive_and_nothing_fires_before_it() -> None:
    window = FireWindow(start_date=at(11))
    assert next_fire(HOURLY, NOW, anchor=NOW, window=window) == at(11)
    assert next_fire(HOURLY, at(11), anchor=NOW, window=window) == at(12)  # strictly after, as ever
    between = FireWindow(start_date=at(11, 30))
    assert next_fire(HOURLY, NOW, anchor=NOW, window=between) == at(12)


def test_end_date_is_inclusive_and_nothing_fires_after_it() -> None:
    window = FireWindow(end_date=at(10))
    assert fire_times(HOURLY, NOW, anchor=NOW, count=10, window=window) == [at(9), at(10)]
    assert next_fire(HOURLY, at(10), anchor=NOW, window=window) is None
    assert next_fire(HOURLY, NOW, anchor=NOW, window=FireWindow(end_date=at(8, 59))) is None


def test_an_every_grid_keeps_its_anchor_inside_the_window() -> None:
    anchor = at(7, 3)  # fires at 7:13, 7:23, ... whatever the window
    window = FireWindow(start_date=at(9), end_date=at(9, 40))
    assert fire_times(EVERY_10, NOW, anchor=anchor, count=10, window=window) == [
        at(9, 3),
        at(9, 13),
        at(9, 23),
        at(9, 33),
    ]


def test_a_pause_is_a_lower_bound_that_ends_by_itself() -> None:
    paused = FireWindow(paused_until=at(10, 30))
    assert next_fire(HOURLY, NOW, anchor=NOW, window=paused) == at(11)
    # The first fire at or after the pause's end: one exactly at `until` fires.
    assert next_fire(HOURLY, NOW, anchor=NOW, window=FireWindow(paused_until=at(10))) == at(10)
    # After the pause nothing is different.
    assert next_fire(HOURLY, at(11), anchor=NOW, window=paused) == at(12)
    # The later of startDate and the pause opens the window.
    both = FireWindow(start_date=at(12), paused_until=at(10, 30))
    assert both.opens() == at(12) and next_fire(HOURLY, NOW, anchor=NOW, window=both) == at(12)


def test_a_once_outside_the_window_never_fires() -> None:
    assert next_fire(ONCE, NOW, anchor=NOW, window=FireWindow(end_date=at(11))) is None
    assert next_fire(ONCE, NOW, anchor=NOW, window=FireWindow(start_date=at(13))) is None
    assert next_fire(ONCE, NOW, anchor=NOW, window=FireWindow(paused_until=at(12))) == at(12)
    assert next_fire(ONCE, NOW, anchor=NOW, window=FireWindow(paused_until=at(12, 1))) is None


def test_the_window_follows_the_wall_clock_across_dst() -> None:
    """Berlin jumps from 02:00 to 03:00 on 28 March 2027: a daily 02:30 with startDate on that day."""
    daily = parse_schedule_expression("cron(30 2 * * ? *)", "Europe/Berlin")
    start = datetime(2027, 3, 28, 0, 0, tzinfo=UTC)
    times = fire_times(daily, start - timedelta(days=2), anchor=start, count=2, window=FireWindow(start))
    # 28 March has no 02:30 (the gap): the first fire in the window is 29 March, 02:30 CEST.
    assert times == [datetime(2027, 3, 29, 0, 30, tzinfo=UTC), datetime(2027, 3, 30, 0, 30, tzinfo=UTC)]


def test_admits() -> None:
    window = FireWindow(start_date=at(9), end_date=at(10), paused_until=at(9, 30))
    assert [window.admits(moment) for moment in (at(9), at(9, 30), at(10), at(10, 1))] == [
        False,
        True,
        True,
        False,
    ]


@pytest.mark.parametrize(
    ("start", "end", "end_sent", "message"),
    [
        (at(10), at(9), True, "endDate: must be after startDate"),
        (at(10), at(10), False, "endDate: must be after startDate"),
        (None, at(7), True, "endDate: must be in the future"),
    ],
)
def test_bad_dates_name_the_field(
    start: datetime | None, end: datetime | None, end_sent: bool, message: str
) -> None:
    with pytest.raises(ScheduleError, match=message):
        check_dates(start, end, NOW, end_sent=end_sent)


def test_a_stored_end_date_that_passed_is_history_not_an_error() -> None:
    check_dates(None, at(7), NOW, end_sent=False)
    check_dates(at(1), None, NOW, end_sent=False)  # a startDate in the past is fine


def test_a_pause_must_end_in_the_future() -> None:
    with pytest.raises(ScheduleError, match="until: must be in the future"):
        check_pause_until(NOW, NOW)
    check_pause_until(NOW + timedelta(seconds=1), NOW)


def test_a_window_without_a_fire_is_refused_naming_the_bound_at_fault() -> None:
    assert check_has_fire(HOURLY, NOW, anchor=NOW, window=FireWindow(start_date=at(11))) == at(11)
    with pytest.raises(ScheduleError, match=r"^endDate: the schedule has no fire left"):
        check_has_fire(HOURLY, NOW, anchor=NOW, window=FireWindow(start_date=at(9, 1), end_date=at(9, 59)))
    with pytest.raises(ScheduleError, match=r"^startDate: the schedule has no fire left"):
        check_has_fire(ONCE, NOW, anchor=NOW, window=FireWindow(start_date=at(13)))
    with pytest.raises(ScheduleError, match=r"^until: "):
        check_has_fire(ONCE, NOW, anchor=NOW, window=FireWindow(paused_until=at(13)), field="until")


def _create(**fields: Any) -> CreateEventRequest:
    body = {
        "eventName": "e",
        "cronExpression": "rate(1 hour)",
        "actionType": "INVOKE_TOOL",
        "toolConfig": {"toolExecutionRequest": {"toolId": "t1"}},
    }
    return CreateEventRequest.model_validate(body | fields)


def test_dates_are_instants_with_an_offset() -> None:
    body = _create(startDate="2027-01-04T10:00:00+01:00", endDate="2027-02-01T00:00:00Z")
    assert body.start_date == at(9) and body.end_date == datetime(2027, 2, 1, tzinfo=UTC)
    assert body.action_after_completion is None  # /create stores NONE
    assert _create(actionAfterCompletion="DELETE").action_after_completion is ActionAfterCompletion.DELETE
    for bad in (
        {"startDate": "2027-01-04T10:00:00"},
        {"endDate": 1798761600},
        {"actionAfterCompletion": "X"},
    ):
        with pytest.raises(ValidationError):
            _create(**bad)
    update = UpdateEventRequest.model_validate({"scheduledEventId": "e1", "endDate": "2027-03-01T00:00:00Z"})
    assert update.end_date == datetime(2027, 3, 1, tzinfo=UTC) and update.start_date is None


def test_pause_and_run_now_bodies() -> None:
    assert PauseRequest.model_validate(
        {"scheduledEventId": "e1", "until": "2027-01-04T10:00:00Z"}
    ).until == at(10)
    assert PauseRequest.model_validate({"scheduledEventId": "e1", "until": None}).until is None
    assert PauseRequest.model_validate({"scheduledEventId": "e1"}).until is None
    with pytest.raises(ValidationError, match="has no offset"):
        PauseRequest.model_validate({"scheduledEventId": "e1", "until": "2027-01-04T10:00:00"})
    with pytest.raises(ValidationError):
        RunNowRequest.model_validate({"scheduledEventId": "e1", "until": None})
