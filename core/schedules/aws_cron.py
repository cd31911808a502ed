"""AWS EventBridge cron expressions: parse once, then find fire times.

Fire times are found in the wall-clock time of the schedule's timezone and then mapped to UTC,
following EventBridge Scheduler's daylight-saving rules:

* a local time that does not exist (spring-forward gap) does not fire that day;
* a local time that occurs twice (fall-back overlap) fires once, on its first occurrence.
"""

from __future__ import annotations

import calendar
from bisect import bisect_left
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from core.schedules.aws_cron_parse import (
    YEAR_MAX,
    YEAR_MIN,
    CronFields,
    CronSyntaxError,
    DayOfMonthRule,
    DayOfWeekRule,
    parse_fields,
)

__all__ = ["AwsCron", "CronSyntaxError", "parse_aws_cron"]

_MINUTE = timedelta(minutes=1)
_EARLIEST = datetime(YEAR_MIN - 1, 12, 30, tzinfo=UTC)


@dataclass(frozen=True)
class AwsCron:
    """A parsed 6-field AWS cron expression (immutable and hashable)."""

    expression: str
    fields: CronFields

    def next_after(self, after: datetime, tz: ZoneInfo) -> datetime | None:
        """The first fire time strictly after ``after``, as an aware UTC datetime.

        ``after`` must be timezone-aware.  Returns None when the year field has no fire time
        left.
        """
        if after.tzinfo is None:
            raise ValueError("after must be a timezone-aware datetime")
        if after.year > YEAR_MAX:
            return None
        # Clamping keeps datetime(1, 1, 1) and friends from overflowing in the zone conversion;
        # nothing can fire before YEAR_MIN anyway.
        local = max(after, _EARLIEST).astimezone(tz)
        if local.year > YEAR_MAX:
            return None
        cursor = local.replace(second=0, microsecond=0, fold=0) + _MINUTE
        while True:
            candidate = self._first_at_or_after(cursor, tz)
            if candidate is None:
                return None
            fire = candidate.astimezone(UTC)
            # A wall time inside a spring-forward gap does not survive the round trip; such
            # times are skipped.  Inside a fall-back overlap `candidate` (fold=0) is the first
            # occurrence, which is already behind us when `after` lies in the second one.
            if _same_wall_time(fire.astimezone(tz), candidate) and fire > after:
                return fire
            cursor = candidate + _MINUTE

    def _first_at_or_after(self, start: datetime, tz: ZoneInfo) -> datetime | None:
        """Smallest matching wall-clock minute >= ``start`` (compared field by field)."""
        f = self.fields
        for yi in range(bisect_left(f.years, start.year), len(f.years)):
            year = f.years[yi]
            same_year = year == start.year
            for month in f.months[bisect_left(f.months, start.month) if same_year else 0 :]:
                same_month = same_year and month == start.month
                days = _matching_days(f.day_of_month, f.day_of_week, year, month)
                for day in days[bisect_left(days, start.day) if same_month else 0 :]:
                    same_day = same_month and day == start.day
                    for hour in f.hours[bisect_left(f.hours, start.hour) if same_day else 0 :]:
                        same_hour = same_day and hour == start.hour
                        first = bisect_left(f.minutes, start.minute) if same_hour else 0
                        if first < len(f.minutes):
                            return datetime(year, month, day, hour, f.minutes[first], tzinfo=tz)
        return None


def _same_wall_time(a: datetime, b: datetime) -> bool:
    return (a.year, a.month, a.day, a.hour, a.minute) == (b.year, b.month, b.day, b.hour, b.minute)


@lru_cache(maxsize=512)
def parse_aws_cron(expression: str) -> AwsCron:
    """Parse ``minute hour day-of-month month day-of-week year``; raise CronSyntaxError if invalid."""
    normalized = " ".join(expression.split())
    return AwsCron(normalized, parse_fields(normalized))


@lru_cache(maxsize=4096)
def _matching_days(
    dom: DayOfMonthRule | None, dow: DayOfWeekRule | None, year: int, month: int
) -> tuple[int, ...]:
    first_weekday, month_length = calendar.monthrange(year, month)
    days: set[int] = set()
    if dom is not None:
        days.update(d for d in dom.days if d <= month_length)
        if dom.last:
            days.add(month_length)
        if dom.last_weekday:
            days.add(_nearest_weekday(month_length, first_weekday, month_length))
        # A day the month does not have (31W in April) does not fire, like a plain 31.
        days.update(
            _nearest_weekday(d, first_weekday, month_length) for d in dom.nearest_weekday if d <= month_length
        )
    if dow is not None:
        days.update(d for d in range(1, month_length + 1) if _aws_weekday(d, first_weekday) in dow.weekdays)
        for weekday in dow.last_of:
            last = month_length
            while _aws_weekday(last, first_weekday) != weekday:
                last -= 1
            days.add(last)
        for weekday, nth in dow.nth:
            first = 1 + (weekday - _aws_weekday(1, first_weekday)) % 7
            day = first + 7 * (nth - 1)
            if day <= month_length:  # months without a 5th such weekday are skipped
                days.add(day)
    return tuple(sorted(days))


def _aws_weekday(day: int, first_weekday: int) -> int:
    """AWS weekday number (1 = SUN ... 7 = SAT); ``first_weekday`` is Python's (0 = MON)."""
    python_weekday = (first_weekday + day - 1) % 7
    return (python_weekday + 1) % 7 + 1


def _nearest_weekday(day: int, first_weekday: int, month_length: int) -> int:
    """Weekday (MON-FRI) nearest to ``day`` without leaving the month."""
    weekday = _aws_weekday(day, first_weekday)
    if weekday == 7:  # Saturday: Friday before, unless that is in the previous month
        return day + 2 if day == 1 else day - 1
    if weekday == 1:  # Sunday: Monday after, unless that is in the next month
        return day - 2 if day == month_length else day + 1
    return day
