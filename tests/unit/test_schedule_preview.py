"""The pure parts of /preview: fire_times walks next_fire as the scheduler does, times are shown with their
zone's offset, and the request model refuses what it must (``from`` without an offset among them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from core.schedules.preview import check_cron_syntax, fire_times, preview_timezone, show_in_zone
from core.schedules.spec import ScheduleError, next_fire
from schemas.scheduled.preview import SchedulePreviewRequest, parse_instant
from schemas.scheduled.schedules import CronConfig, CronSpec, EveryConfig, EverySpec, OnceConfig, OnceSpec

pytestmark = pytest.mark.unit

BERLIN_HOURLY = CronSpec(pattern="CRON", cron=CronConfig(expression="30 * * * ? *", timezone="Europe/Berlin"))
START = datetime(2026, 3, 28, 23, 0, tzinfo=UTC)  # 00:00 CET on the day of the March change


def test_fire_times_are_next_fire_chained_strictly_after_each_other() -> None:
    times = fire_times(BERLIN_HOURLY, START, anchor=START, count=50)
    chained, moment = [], START
    for _ in range(50):
        moment = next_fire(BERLIN_HOURLY, moment, anchor=START) or moment
        chained.append(moment)
    assert times == chained
    assert len(set(times)) == 50 and times == sorted(times)


def test_the_march_gap_is_skipped_and_shown_with_the_new_offset() -> None:
    shown = [
        show_in_zone(t, "Europe/Berlin") for t in fire_times(BERLIN_HOURLY, START, anchor=START, count=4)
    ]
    assert shown == [
        "2026-03-29T00:30:00+01:00",
        "2026-03-29T01:30:00+01:00",
        "2026-03-29T03:30:00+02:00",
        "2026-03-29T04:30:00+02:00",
    ]


def test_the_october_repeat_fires_once_in_summer_time() -> None:
    start = datetime(2026, 10, 24, 22, 0, tzinfo=UTC)  # 00:00 CEST on the day of the October change
    shown = [
        show_in_zone(t, "Europe/Berlin") for t in fire_times(BERLIN_HOURLY, start, anchor=start, count=4)
    ]
    assert shown == [
        "2026-10-25T00:30:00+02:00",
        "2026-10-25T01:30:00+02:00",
        "2026-10-25T02:30:00+02:00",
        "2026-10-25T03:30:00+01:00",
    ]


def test_every_counts_from_its_anchor_and_keeps_its_fraction() -> None:
    spec = EverySpec(pattern="EVERY", every=EveryConfig(value=15, unit="MINUTES"))
    anchor = datetime(2026, 1, 1, 10, 3, 17, 500000, tzinfo=UTC)
    after = datetime(2026, 3, 29, tzinfo=UTC)
    times = fire_times(spec, after, anchor=anchor, count=3)
    assert [show_in_zone(t, "UTC") for t in times] == [
        "2026-03-29T00:03:17.500000+00:00",
        "2026-03-29T00:18:17.500000+00:00",
        "2026-03-29T00:33:17.500000+00:00",
    ]
    # Before the anchor: the first time is one period after it, never the anchor itself.
    assert fire_times(spec, anchor - timedelta(days=30), anchor=anchor, count=1) == [
        anchor + timedelta(minutes=15)
    ]
    assert fire_times(spec, after, anchor=after, count=1) == [after + timedelta(minutes=15)]


def test_once_gives_its_single_time_or_none() -> None:
    spec = OnceSpec(pattern="ONCE", once=OnceConfig(at="2026-03-29T02:30:00", timezone="Europe/Berlin"))
    (fire,) = fire_times(spec, START, anchor=START, count=10)
    assert show_in_zone(fire, "Europe/Berlin") == "2026-03-29T03:00:00+02:00"  # first instant after the gap
    assert fire_times(spec, fire, anchor=START, count=10) == []


def test_a_cron_that_runs_out_gives_fewer_times() -> None:
    spec = CronSpec(pattern="CRON", cron=CronConfig(expression="0 0 1 1 ? 2027-2028", timezone="UTC"))
    assert len(fire_times(spec, START, anchor=START, count=10)) == 2
    never = CronSpec(pattern="CRON", cron=CronConfig(expression="0 0 30 2 ? *", timezone="UTC"))
    assert fire_times(never, START, anchor=START, count=10) == []


def test_zone_and_cron_syntax() -> None:
    assert preview_timezone(BERLIN_HOURLY) == "Europe/Berlin"
    assert preview_timezone(EverySpec(pattern="EVERY", every=EveryConfig(value=1, unit="HOURS"))) == "UTC"
    check_cron_syntax(BERLIN_HOURLY)
    bad = CronSpec(pattern="CRON", cron=CronConfig(expression="0 12 * * ? * *", timezone="UTC"))
    with pytest.raises(
        ScheduleError, match=r"^Invalid cron expression '0 12 \* \* \? \* \*': expected 6 fields"
    ):
        check_cron_syntax(bad)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-29T02:30:00Z", datetime(2026, 3, 29, 2, 30, tzinfo=UTC)),
        ("2026-03-29T03:30:00+02:00", datetime(2026, 3, 29, 1, 30, tzinfo=UTC)),
        ("2026-03-29T03:30:00.25-01:30", datetime(2026, 3, 29, 5, 0, 0, 250000, tzinfo=UTC)),
    ],
)
def test_instants_with_an_offset_are_accepted(text: str, expected: datetime) -> None:
    assert parse_instant(text) == expected


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("2026-03-29T02:30:00", "has no offset and a local time is refused"),
        ("2026-03-29T02:30Z", "is not an ISO-8601 timestamp"),
        ("2026-03-29 02:30:00Z", "is not an ISO-8601 timestamp"),
        ("2026-03-29", "is not an ISO-8601 timestamp"),
        ("2026-03-29T02:30:00+0200", "is not an ISO-8601 timestamp"),
        ("2026-03-29T02:30:00.1234567Z", "is not an ISO-8601 timestamp"),
        ("2026-03-29T24:00:00Z", "no such date, time or offset"),
        ("2026-03-29T02:30:00+24:00", "no such date, time or offset"),
        ("2200-01-01T00:00:00Z", "must be between the years 1970 and 2199"),
        (1774751400, "must be an ISO-8601 timestamp string"),
    ],
)
def test_other_instants_are_refused(value: Any, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_instant(value)


def test_the_request_takes_one_source_and_defaults() -> None:
    body = SchedulePreviewRequest.model_validate(
        {"cronExpression": "rate(5 minutes)", "count": None, "from": None}
    )
    assert (body.count, body.from_) == (10, None)
    for sources in (
        {},
        {"cronExpression": "rate(5 minutes)", "scheduledEventId": "e"},
        {"scheduleSpec": {"pattern": "EVERY", "every": {"value": 1, "unit": "HOURS"}}, "timezone": "UTC"},
    ):
        with pytest.raises(ValidationError):
            SchedulePreviewRequest.model_validate(sources)
    for count in (0, 101, True, "5"):
        with pytest.raises(ValidationError):
            SchedulePreviewRequest.model_validate({"scheduledEventId": "e", "count": count})
