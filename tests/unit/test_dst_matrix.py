"""A DST matrix for the pure next-fire function: four zones, both transitions, hourly, daily and weekly rules.

EventBridge semantics: a local time that does not exist (spring forward) is skipped; a local time that occurs
twice (fall back) fires once.
"""

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from core.schedules.aws_cron import parse_aws_cron

pytestmark = pytest.mark.unit

# (zone, local date of the change, kind) — every change here happens on a Sunday.
TRANSITIONS = [
    ("America/New_York", date(2026, 3, 8), "forward"),
    ("America/New_York", date(2026, 11, 1), "back"),
    ("Europe/Berlin", date(2026, 3, 29), "forward"),
    ("Europe/Berlin", date(2026, 10, 25), "back"),
    ("Australia/Sydney", date(2026, 10, 4), "forward"),
    ("Australia/Sydney", date(2026, 4, 5), "back"),
    ("Asia/Kolkata", date(2026, 3, 8), "none"),
    ("Asia/Kolkata", date(2026, 11, 1), "none"),
]
HOURLY, DAILY, WEEKLY = "0 * * * ? *", "30 2 * * ? *", "30 2 ? * SUN *"


def fires_on(expression: str, zone: str, day: date) -> list[datetime]:
    tz = ZoneInfo(zone)
    start = datetime.combine(day, datetime.min.time(), tz).astimezone(UTC) - timedelta(seconds=1)
    end = datetime.combine(day + timedelta(days=1), datetime.min.time(), tz).astimezone(UTC)
    cron = parse_aws_cron(expression)
    found: list[datetime] = []
    moment = start
    while True:
        upcoming = cron.next_after(moment, tz)
        if upcoming is None or upcoming >= end:
            return found
        found.append(upcoming)
        moment = upcoming


@pytest.mark.parametrize(("zone", "day", "kind"), TRANSITIONS)
def test_hourly(zone: str, day: date, kind: str) -> None:
    fires = fires_on(HOURLY, zone, day)
    expected = {"forward": 23, "back": 24, "none": 24}[kind]
    assert len(fires) == expected
    local = [f.astimezone(ZoneInfo(zone)) for f in fires]
    assert all(t.minute == 0 for t in local)
    assert len({t.hour for t in local}) == len(local), "a repeated wall-clock hour fired twice"
    assert fires == sorted(fires)


@pytest.mark.parametrize("expression", [DAILY, WEEKLY])
@pytest.mark.parametrize(("zone", "day", "kind"), TRANSITIONS)
def test_daily_and_weekly_at_0230(expression: str, zone: str, day: date, kind: str) -> None:
    fires = fires_on(expression, zone, day)
    if kind == "forward":
        assert fires == [], "02:30 does not exist on this day and is skipped"
        return
    assert len(fires) == 1
    local = fires[0].astimezone(ZoneInfo(zone))
    assert (local.hour, local.minute) == (2, 30)
    if kind == "back" and zone != "America/New_York":
        # 02:30 occurs twice here: the first occurrence (still on summer time) is the one that fires.
        assert local.fold == 0
        assert fires[0] + timedelta(hours=1) == local.replace(fold=1).astimezone(UTC)


@pytest.mark.parametrize(("zone", "day", "kind"), TRANSITIONS)
def test_the_next_day_is_back_to_normal(zone: str, day: date, kind: str) -> None:
    after = day + timedelta(days=1)
    assert len(fires_on(HOURLY, zone, after)) == 24
    assert len(fires_on(DAILY, zone, after)) == 1
