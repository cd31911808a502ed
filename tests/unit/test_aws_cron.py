"""AWS EventBridge cron: parsing, errors, fire times, DST, and a cross-check against croniter."""

from __future__ import annotations

import calendar
import dataclasses
import random
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from croniter import croniter

from core.schedules import aws_cron
from core.schedules.aws_cron import AwsCron, CronSyntaxError, parse_aws_cron

pytestmark = pytest.mark.unit

NEW_YORK = "America/New_York"
BERLIN = "Europe/Berlin"
LORD_HOWE = "Australia/Lord_Howe"


def fires(expression: str, tz: str, after: str, count: int) -> list[str]:
    """The next ``count`` fire times after ``after`` (ISO, any offset), as local ISO strings."""
    zone = ZoneInfo(tz)
    cron = parse_aws_cron(expression)
    cursor: datetime | None = datetime.fromisoformat(after)
    out: list[str] = []
    for _ in range(count):
        assert cursor is not None
        cursor = cron.next_after(cursor, zone)
        if cursor is None:
            break
        assert cursor.tzinfo is UTC
        out.append(cursor.astimezone(zone).isoformat())
    return out


# --- parsing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "attribute", "expected"),
    [
        ("* 0 1 * ? *", "minutes", tuple(range(60))),
        ("5,10,7 0 1 * ? *", "minutes", (5, 7, 10)),
        ("10-15 0 1 * ? *", "minutes", (10, 11, 12, 13, 14, 15)),
        ("*/15 0 1 * ? *", "minutes", (0, 15, 30, 45)),
        ("5/20 0 1 * ? *", "minutes", (5, 25, 45)),
        ("10-30/10 0 1 * ? *", "minutes", (10, 20, 30)),
        ("0,30-32,50/5 0 1 * ? *", "minutes", (0, 30, 31, 32, 50, 55)),
        ("0 22-2 1 * ? *", "hours", (0, 1, 2, 22, 23)),
        ("0 20-4/3 1 * ? *", "hours", (2, 20, 23)),
        ("0 0 1 JAN,MAR-MAY ? *", "months", (1, 3, 4, 5)),
        ("0 0 1 jan,Dec ? *", "months", (1, 12)),
        ("0 0 1 NOV-FEB ? *", "months", (1, 2, 11, 12)),
        ("0 0 1 */4 ? *", "months", (1, 5, 9)),
        ("0 0 1 1 ? *", "years", tuple(range(1970, 2200))),
        ("0 0 1 1 ? 2027", "years", (2027,)),
        ("0 0 1 1 ? 2027-2030/2", "years", (2027, 2029)),
        ("0 0 1 1 ? 2030/50", "years", (2030, 2080, 2130, 2180)),
        ("0 0 1 1 ? 2027,2031,2029", "years", (2027, 2029, 2031)),
    ],
)
def test_plain_fields(expression: str, attribute: str, expected: tuple[int, ...]) -> None:
    assert getattr(parse_aws_cron(expression).fields, attribute) == expected


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("*", {"days": tuple(range(1, 32))}),
        ("1,15", {"days": (1, 15)}),
        ("1-31/10", {"days": (1, 11, 21, 31)}),
        ("L", {"last": True}),
        ("l", {"last": True}),
        ("LW", {"last_weekday": True}),
        ("15W", {"nearest_weekday": (15,)}),
        ("1,L,15W", {"days": (1,), "last": True, "nearest_weekday": (15,)}),
    ],
)
def test_day_of_month_field(field: str, expected: dict[str, object]) -> None:
    rule = parse_aws_cron(f"0 0 {field} * ? *").fields.day_of_month
    assert rule is not None
    defaults: dict[str, object] = {"days": (), "last": False, "last_weekday": False, "nearest_weekday": ()}
    assert dataclasses.asdict(rule) == defaults | expected
    assert parse_aws_cron(f"0 0 {field} * ? *").fields.day_of_week is None


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("*", {"weekdays": (1, 2, 3, 4, 5, 6, 7)}),
        ("MON-FRI", {"weekdays": (2, 3, 4, 5, 6)}),
        ("2-6", {"weekdays": (2, 3, 4, 5, 6)}),
        ("FRI-MON", {"weekdays": (1, 2, 6, 7)}),
        ("sun,SAT", {"weekdays": (1, 7)}),
        ("*/2", {"weekdays": (1, 3, 5, 7)}),
        ("L", {"weekdays": (7,)}),
        ("6L", {"last_of": (6,)}),
        ("FRIL", {"last_of": (6,)}),
        ("6#3", {"nth": ((6, 3),)}),
        ("FRI#3,MON#1", {"nth": ((2, 1), (6, 3))}),
        ("1,6L,2#5", {"weekdays": (1,), "last_of": (6,), "nth": ((2, 5),)}),
    ],
)
def test_day_of_week_field(field: str, expected: dict[str, object]) -> None:
    rule = parse_aws_cron(f"0 0 ? * {field} *").fields.day_of_week
    assert rule is not None
    defaults: dict[str, object] = {"weekdays": (), "last_of": (), "nth": ()}
    assert dataclasses.asdict(rule) == defaults | expected


def test_parsed_expression_is_immutable_and_hashable() -> None:
    first = parse_aws_cron("0  12 * * ?  *")
    second = AwsCron("0 12 * * ? *", first.fields)
    assert first.expression == "0 12 * * ? *"
    assert first == second
    assert {first: 1}[second] == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.expression = "x"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("expression", "field", "token", "fragment"),
    [
        ("0 12 * * *", None, None, "expected 6 fields"),
        ("0 12 * * ? * *", None, None, "got 7"),
        ("", None, None, "got 0"),
        ("0 12 * * * *", None, None, "exactly one of day-of-month and day-of-week must be '?'"),
        ("0 12 1 * 2 *", None, None, "exactly one of"),
        ("0 12 ? * ? *", None, None, "exactly one of"),
        ("60 * * * ? *", "minute", "60", "out of range 0-59"),
        ("x * * * ? *", "minute", "x", "expected a number 0-59"),
        ("-5 * * * ? *", "minute", "-5", "missing value"),
        ("1-2-3 * * * ? *", "minute", "1-2-3", "one '-'"),
        ("*/0 * * * ? *", "minute", "*/0", "step"),
        ("*/61 * * * ? *", "minute", "*/61", "step"),
        ("5/ * * * ? *", "minute", "5/", "step"),
        ("1/2/3 * * * ? *", "minute", "1/2/3", "step"),
        ("*/x * * * ? *", "minute", "*/x", "step"),
        ("? * * * ? *", "minute", "?", "'?' is only allowed"),
        ("L * * * ? *", "minute", "L", "'L' is only allowed in day-of-month or day-of-week"),
        ("0 24 * * ? *", "hour", "24", "out of range 0-23"),
        ("0 5W * * ? *", "hour", "5W", "'W' is only allowed in day-of-month"),
        ("0 0 0 * ? *", "day-of-month", "0", "out of range 1-31"),
        ("0 0 32 * ? *", "day-of-month", "32", "out of range 1-31"),
        ("0 0 20-10 * ? *", "day-of-month", "20-10", "range start 20 is after range end 10"),
        ("0 0 1,,2 * ? *", "day-of-month", "1,,2", "empty item"),
        ("0 0 1, * ? *", "day-of-month", "1,", "empty item"),
        ("0 0 1,? * ? *", "day-of-month", "1,?", "'?' must stand alone"),
        ("0 0 3L * ? *", "day-of-month", "3L", "'L' must stand alone"),
        ("0 0 L-2 * ? *", "day-of-month", "L-2", "'L' must stand alone"),
        ("0 0 W * ? *", "day-of-month", "W", "'W' must follow a single day"),
        ("0 0 1-5W * ? *", "day-of-month", "1-5W", "'W' must follow a single day"),
        ("0 0 32W * ? *", "day-of-month", "32W", "out of range 1-31"),
        ("0 0 1#2 * ? *", "day-of-month", "1#2", "'#' is only allowed in day-of-week"),
        ("0 0 1 0 ? *", "month", "0", "out of range 1-12 or a name JAN-DEC"),
        ("0 0 1 13 ? *", "month", "13", "out of range 1-12"),
        ("0 0 1 FOO ? *", "month", "FOO", "unknown name 'FOO'"),
        ("0 0 1 JANUARY ? *", "month", "JANUARY", "unknown name"),
        ("0 0 1 L ? *", "month", "L", "'L' is only allowed"),
        ("0 0 1 2#1 ? *", "month", "2#1", "'#' is only allowed in day-of-week"),
        ("0 0 ? * 0 *", "day-of-week", "0", "out of range 1-7 or a name SUN-SAT"),
        ("0 0 ? * 8 *", "day-of-week", "8", "out of range 1-7"),
        ("0 0 ? * FUN *", "day-of-week", "FUN", "unknown name 'FUN'"),
        ("0 0 ? * 6#6 *", "day-of-week", "6#6", "must be 1 to 5"),
        ("0 0 ? * 6#0 *", "day-of-week", "6#0", "must be 1 to 5"),
        ("0 0 ? * 6# *", "day-of-week", "6#", "must be 1 to 5"),
        ("0 0 ? * #3 *", "day-of-week", "#3", "missing value"),
        ("0 0 ? * 1-3#2 *", "day-of-week", "1-3#2", "single weekday"),
        ("0 0 ? * */2L *", "day-of-week", "*/2L", "single weekday"),
        ("0 0 ? * 8L *", "day-of-week", "8L", "out of range 1-7"),
        ("0 0 ? * 5W *", "day-of-week", "5W", "'W' is only allowed in day-of-month"),
        ("0 0 ? * LW *", "day-of-week", "LW", "'W' is only allowed in day-of-month"),
        ("0 0 1 * ? 1969", "year", "1969", "out of range 1970-2199"),
        ("0 0 1 * ? 2200", "year", "2200", "out of range 1970-2199"),
        ("0 0 1 * ? 2030-2020", "year", "2030-2020", "range start 2030 is after range end 2020"),
        ("0 0 1 * ? */231", "year", "*/231", "step must be a whole number from 1 to 230"),
        ("0 0 1 * ? ?", "year", "?", "'?' is only allowed"),
        ("0 0 1 * ? L", "year", "L", "'L' is only allowed"),
        ("0 0 1 * ? 2027W", "year", "2027W", "'W' is only allowed"),
    ],
)
def test_syntax_errors_name_field_and_token(
    expression: str, field: str | None, token: str | None, fragment: str
) -> None:
    with pytest.raises(CronSyntaxError) as caught:
        parse_aws_cron(expression)
    error = caught.value
    assert isinstance(error, ValueError)
    assert (error.field, error.token) == (field, token)
    assert fragment in str(error)
    if field is not None:
        assert str(error).startswith(f"{field} field: invalid token '{token}'")


# --- fire times ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "after", "expected"),
    [
        # strictly after: a fire time equal to `after` is not returned again
        ("0 12 * * ? *", "2027-01-01T12:00:00+00:00", ["2027-01-02T12:00:00+00:00"]),
        ("0 12 * * ? *", "2027-01-01T11:59:59.999+00:00", ["2027-01-01T12:00:00+00:00"]),
        ("0 12 * * ? *", "2027-01-01T12:00:00.001+00:00", ["2027-01-02T12:00:00+00:00"]),
        # minute/hour roll-over into the next day, month and year
        ("*/20 23 31 DEC ? *", "2027-12-31T23:45:00+00:00", ["2028-12-31T23:00:00+00:00"]),
        (
            "0/25 9-10 ? * MON-FRI *",
            "2027-01-01T10:51:00+00:00",
            [
                "2027-01-04T09:00:00+00:00",
                "2027-01-04T09:25:00+00:00",
                "2027-01-04T09:50:00+00:00",
                "2027-01-04T10:00:00+00:00",
            ],
        ),
        (
            "0 22-1 1 JAN ? 2027",
            "2027-01-01T00:30:00+00:00",
            ["2027-01-01T01:00:00+00:00", "2027-01-01T22:00:00+00:00", "2027-01-01T23:00:00+00:00"],
        ),
        # non-UTC input offset is accepted; output is UTC
        ("0 12 * * ? *", "2027-01-01T13:30:00+02:00", ["2027-01-01T12:00:00+00:00"]),
        # 31st only in 31-day months, 30 FEB never
        (
            "0 0 31 * ? *",
            "2027-04-01T00:00:00+00:00",
            [
                "2027-05-31T00:00:00+00:00",
                "2027-07-31T00:00:00+00:00",
                "2027-08-31T00:00:00+00:00",
                "2027-10-31T00:00:00+00:00",
            ],
        ),
        ("0 0 30 FEB ? *", "2027-01-01T00:00:00+00:00", []),
        # Feb 29 only in leap years (2100 is not one)
        (
            "0 0 29 FEB ? *",
            "2027-01-01T00:00:00+00:00",
            ["2028-02-29T00:00:00+00:00", "2032-02-29T00:00:00+00:00"],
        ),
        ("0 0 29 2 ? *", "2096-03-01T00:00:00+00:00", ["2104-02-29T00:00:00+00:00"]),
        # L: last day of the month, leap and non-leap February
        (
            "0 0 L * ? *",
            "2027-01-31T00:00:00+00:00",
            ["2027-02-28T00:00:00+00:00", "2027-03-31T00:00:00+00:00", "2027-04-30T00:00:00+00:00"],
        ),
        (
            "0 0 L FEB ? *",
            "2027-01-01T00:00:00+00:00",
            ["2027-02-28T00:00:00+00:00", "2028-02-29T00:00:00+00:00", "2029-02-28T00:00:00+00:00"],
        ),
        # W: 2027-05-01 is a Saturday -> Monday 3rd (never April); 2027-08-01 a Sunday -> Monday 2nd
        (
            "0 0 1W MAY,AUG ? 2027",
            "2027-01-01T00:00:00+00:00",
            ["2027-05-03T00:00:00+00:00", "2027-08-02T00:00:00+00:00"],
        ),
        # 15th: Saturday 2027-05-15 -> Friday 14th; Sunday 2027-08-15 -> Monday 16th; weekday stays
        (
            "0 0 15W MAY,JUN,AUG ? 2027",
            "2027-01-01T00:00:00+00:00",
            ["2027-05-14T00:00:00+00:00", "2027-06-15T00:00:00+00:00", "2027-08-16T00:00:00+00:00"],
        ),
        # 31st Sunday (2027-10-31) -> Friday 29th (never November); 30W in 30-day April 2028
        # (30th a Sunday) -> Friday 28th; 31W in a 30-day month does not fire
        ("0 0 31W OCT,NOV ? 2027", "2027-01-01T00:00:00+00:00", ["2027-10-29T00:00:00+00:00"]),
        ("0 0 30W APR ? 2028", "2028-01-01T00:00:00+00:00", ["2028-04-28T00:00:00+00:00"]),
        # LW: last weekday; 2027-07-31 Saturday -> 30th, 2027-10-31 Sunday -> 29th
        (
            "0 0 LW JUL,SEP,OCT ? 2027",
            "2027-01-01T00:00:00+00:00",
            ["2027-07-30T00:00:00+00:00", "2027-09-30T00:00:00+00:00", "2027-10-29T00:00:00+00:00"],
        ),
        # weekday names and numbers (1 = SUN)
        (
            "0 8 ? * SUN *",
            "2027-01-01T00:00:00+00:00",
            ["2027-01-03T08:00:00+00:00", "2027-01-10T08:00:00+00:00"],
        ),
        (
            "0 8 ? * 1 *",
            "2027-01-01T00:00:00+00:00",
            ["2027-01-03T08:00:00+00:00", "2027-01-10T08:00:00+00:00"],
        ),
        (
            "0 8 ? * L *",
            "2027-01-01T00:00:00+00:00",
            ["2027-01-02T08:00:00+00:00", "2027-01-09T08:00:00+00:00"],
        ),
        # #: third Friday; fifth Monday skips months that have only four
        (
            "0 0 ? * 6#3 *",
            "2027-01-01T00:00:00+00:00",
            ["2027-01-15T00:00:00+00:00", "2027-02-19T00:00:00+00:00", "2027-03-19T00:00:00+00:00"],
        ),
        (
            "0 0 ? * MON#5 *",
            "2027-01-01T00:00:00+00:00",
            [
                "2027-03-29T00:00:00+00:00",
                "2027-05-31T00:00:00+00:00",
                "2027-08-30T00:00:00+00:00",
                "2027-11-29T00:00:00+00:00",
            ],
        ),
        ("0 0 ? FEB 2#5 *", "2027-01-01T00:00:00+00:00", ["2044-02-29T00:00:00+00:00"]),
        # 6L: last Friday
        (
            "0 18 ? * 6L *",
            "2027-01-01T00:00:00+00:00",
            ["2027-01-29T18:00:00+00:00", "2027-02-26T18:00:00+00:00", "2027-03-26T18:00:00+00:00"],
        ),
        # year field: ranges, steps, lists and exhaustion
        (
            "0 0 1 1 ? 2027-2029",
            "2026-06-01T00:00:00+00:00",
            ["2027-01-01T00:00:00+00:00", "2028-01-01T00:00:00+00:00", "2029-01-01T00:00:00+00:00"],
        ),
        (
            "0 0 1 1 ? 2030/5",
            "2031-01-01T00:00:00+00:00",
            ["2035-01-01T00:00:00+00:00", "2040-01-01T00:00:00+00:00"],
        ),
        ("0 0 1 1 ? 2027,2031", "2027-01-01T00:00:00+00:00", ["2031-01-01T00:00:00+00:00"]),
        ("0 0 1 1 ? 2027", "2027-01-01T00:00:00+00:00", []),
        ("0 0 1 1 ? 2020-2025", "2027-01-01T00:00:00+00:00", []),
        ("59 23 31 12 ? 2199", "2199-12-31T23:58:00+00:00", ["2199-12-31T23:59:00+00:00"]),
        ("* * * * ? *", "2199-12-31T23:59:00+00:00", []),
        ("* * * * ? *", "9999-12-31T23:59:00+00:00", []),
        ("* * * * ? *", "1960-01-01T00:00:00+00:00", ["1970-01-01T00:00:00+00:00"]),
        ("* * * * ? *", "0001-01-01T00:00:00+00:00", ["1970-01-01T00:00:00+00:00"]),
    ],
)
def test_next_after_utc(expression: str, after: str, expected: list[str]) -> None:
    assert fires(expression, "UTC", after, max(len(expected), 1)) == expected


def test_next_after_requires_aware_datetime() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        parse_aws_cron("0 12 * * ? *").next_after(datetime(2027, 1, 1), ZoneInfo("UTC"))  # noqa: DTZ001


def test_evaluated_in_local_wall_clock() -> None:
    assert fires("0 9 ? * MON-FRI *", "Asia/Tokyo", "2027-01-04T00:00:00+00:00", 2) == [
        "2027-01-05T09:00:00+09:00",
        "2027-01-06T09:00:00+09:00",
    ]


# --- daylight-saving time ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "tz", "after", "expected"),
    [
        # spring forward: 02:00 -> 03:00 on 2027-03-14; 02:30 does not exist and is skipped
        (
            "30 2 * * ? *",
            NEW_YORK,
            "2027-03-13T00:00:00-05:00",
            ["2027-03-13T02:30:00-05:00", "2027-03-15T02:30:00-04:00"],
        ),
        (
            "0/30 1-3 14 MAR ? 2027",
            NEW_YORK,
            "2027-03-14T00:00:00-05:00",
            [
                "2027-03-14T01:00:00-05:00",
                "2027-03-14T01:30:00-05:00",
                "2027-03-14T03:00:00-04:00",
                "2027-03-14T03:30:00-04:00",
            ],
        ),
        # fall back: 01:00-01:59 happens twice on 2027-11-07; each time fires on the first pass only
        (
            "30 1 * * ? *",
            NEW_YORK,
            "2027-11-06T00:00:00-04:00",
            ["2027-11-06T01:30:00-04:00", "2027-11-07T01:30:00-04:00", "2027-11-08T01:30:00-05:00"],
        ),
        (
            "0/20 1-2 7 NOV ? 2027",
            NEW_YORK,
            "2027-11-07T00:00:00-04:00",
            [
                "2027-11-07T01:00:00-04:00",
                "2027-11-07T01:20:00-04:00",
                "2027-11-07T01:40:00-04:00",
                "2027-11-07T02:00:00-05:00",
                "2027-11-07T02:20:00-05:00",
                "2027-11-07T02:40:00-05:00",
            ],
        ),
        # starting inside the second pass of the repeated hour
        (
            "0/20 1-2 7 NOV ? 2027",
            NEW_YORK,
            "2027-11-07T01:05:00-05:00",
            ["2027-11-07T02:00:00-05:00", "2027-11-07T02:20:00-05:00"],
        ),
        (
            "15 * 7 NOV ? 2027",
            NEW_YORK,
            "2027-11-07T01:20:00-04:00",
            ["2027-11-07T02:15:00-05:00", "2027-11-07T03:15:00-05:00"],
        ),
        # Berlin: 02:00 -> 03:00 on 2027-03-28, 03:00 -> 02:00 on 2027-10-31
        (
            "30 2 * * ? *",
            BERLIN,
            "2027-03-27T00:00:00+01:00",
            ["2027-03-27T02:30:00+01:00", "2027-03-29T02:30:00+02:00"],
        ),
        (
            "30 2 * * ? *",
            BERLIN,
            "2027-10-30T00:00:00+02:00",
            ["2027-10-30T02:30:00+02:00", "2027-10-31T02:30:00+02:00", "2027-11-01T02:30:00+01:00"],
        ),
        (
            "0 * 31 OCT ? 2027",
            BERLIN,
            "2027-10-31T01:30:00+02:00",
            ["2027-10-31T02:00:00+02:00", "2027-10-31T03:00:00+01:00"],
        ),
        # Lord Howe moves by 30 minutes: 02:00 -> 02:30 on 2027-10-03, 02:00 -> 01:30 on 2027-04-04
        (
            "15 2 * * ? *",
            LORD_HOWE,
            "2027-10-02T00:00:00+10:30",
            ["2027-10-02T02:15:00+10:30", "2027-10-04T02:15:00+11:00"],
        ),
        (
            "0/15 2 3 OCT ? 2027",
            LORD_HOWE,
            "2027-10-03T00:00:00+10:30",
            ["2027-10-03T02:30:00+11:00", "2027-10-03T02:45:00+11:00"],
        ),
        (
            "45 1 * * ? *",
            LORD_HOWE,
            "2027-04-03T00:00:00+11:00",
            ["2027-04-03T01:45:00+11:00", "2027-04-04T01:45:00+11:00", "2027-04-05T01:45:00+10:30"],
        ),
        # a schedule whose only times fall in the gap never fires
        ("30 2 ? MAR 1#2 2027", NEW_YORK, "2027-01-01T00:00:00-05:00", []),
    ],
)
def test_daylight_saving(expression: str, tz: str, after: str, expected: list[str]) -> None:
    assert fires(expression, tz, after, max(len(expected), 1)) == expected


# --- properties ----------------------------------------------------------------------------


def _random_field(rng: random.Random, lo: int, hi: int, names: list[str] | None) -> tuple[str, str]:
    """A random field in AWS form and in croniter form (croniter numbers weekdays from 0)."""
    shift = 1 if names is not None and names[0] == "SUN" else 0

    def value(number: int, *, allow_name: bool = True) -> tuple[str, str]:
        if names is not None and allow_name and rng.random() < 0.3:
            name = names[number - lo]
            return name, name
        return str(number), str(number - shift)

    kind = rng.choice(["star", "one", "list", "range", "star_step", "start_step", "range_step"])
    a, b = sorted(rng.sample(range(lo, hi + 1), 2))
    step = rng.randint(1, max(1, (hi - lo) // 2))
    if kind == "star":
        return "*", "*"
    if kind == "one":
        return value(a)
    if kind == "list":
        picks = [value(v) for v in rng.sample(range(lo, hi + 1), 3)]
        return ",".join(p[0] for p in picks), ",".join(p[1] for p in picks)
    if kind == "range":
        (aw1, cr1), (aw2, cr2) = value(a), value(b)
        return f"{aw1}-{aw2}", f"{cr1}-{cr2}"
    if kind == "star_step":
        return f"*/{step}", f"*/{step}"
    if kind == "start_step":
        return f"{a}/{step}", f"{a - shift}/{step}"
    return f"{a}-{b}/{step}", f"{a - shift}-{b - shift}/{step}"


_MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
_DAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]


@pytest.mark.parametrize("tz", ["UTC", "Asia/Kolkata"])
def test_matches_croniter_on_plain_fields(tz: str) -> None:
    rng = random.Random(20270101)  # noqa: S311 -- reproducible test data, not security
    zone = ZoneInfo(tz)
    for _ in range(300):
        minute = _random_field(rng, 0, 59, None)
        hour = _random_field(rng, 0, 23, None)
        month = _random_field(rng, 1, 12, _MONTH_NAMES)
        if rng.random() < 0.5:
            dom, dow = _random_field(rng, 1, 31, None), ("?", "*")
        else:
            dom, dow = ("?", "*"), _random_field(rng, 1, 7, _DAY_NAMES)
        aws = f"{minute[0]} {hour[0]} {dom[0]} {month[0]} {dow[0]} *"
        classic = f"{minute[1]} {hour[1]} {dom[1]} {month[1]} {dow[1]}"
        start = datetime(2027, 1, 1, tzinfo=UTC) + timedelta(minutes=rng.randrange(3 * 366 * 24 * 60))
        reference = croniter(classic, start.astimezone(zone))
        cron = parse_aws_cron(aws)
        ours = start
        for _ in range(5):
            expected = reference.get_next(datetime)
            got = cron.next_after(ours, zone)
            assert got == expected, f"{aws} vs {classic} after {ours.isoformat()}"
            assert got is not None
            ours = got


def _weekdays_of(year: int, month: int) -> list[date]:
    length = calendar.monthrange(year, month)[1]
    return [date(year, month, d) for d in range(1, length + 1)]


def _oracle(dom: str, dow: str, year: int, month: int) -> set[date]:
    """Day rules written from their definitions, independently of the evaluator."""
    days = _weekdays_of(year, month)
    workdays = [d for d in days if d.weekday() < 5]
    aws_weekday = {d: (d.weekday() + 1) % 7 + 1 for d in days}
    if dom == "L":
        return {days[-1]}
    if dom == "LW":
        return {workdays[-1]}
    if dom.endswith("W"):
        target = int(dom[:-1])
        if target > len(days):
            return set()
        return {min(workdays, key=lambda d: abs(d.day - target))}
    if dow.endswith("L"):
        return {[d for d in days if aws_weekday[d] == int(dow[:-1])][-1]}
    weekday, nth = (int(part) for part in dow.split("#"))
    matching = [d for d in days if aws_weekday[d] == weekday]
    return {matching[nth - 1]} if nth <= len(matching) else set()


def test_special_day_rules_match_their_definitions() -> None:
    rules = [("L", "?"), ("LW", "?")]
    rules += [(f"{d}W", "?") for d in range(1, 32)]
    rules += [("?", f"{w}L") for w in range(1, 8)]
    rules += [("?", f"{w}#{n}") for w in range(1, 8) for n in range(1, 6)]
    for dom, dow in rules:
        cron = parse_aws_cron(f"0 0 {dom} * {dow} 2027-2029")
        got: set[date] = set()
        cursor = cron.next_after(datetime(2026, 12, 31, tzinfo=UTC), ZoneInfo("UTC"))
        while cursor is not None:
            got.add(cursor.date())
            cursor = cron.next_after(cursor, ZoneInfo("UTC"))
        expected = set().union(*(_oracle(dom, dow, y, m) for y in (2027, 2028, 2029) for m in range(1, 13)))
        assert got == expected, (dom, dow)


@pytest.mark.parametrize(
    "expression",
    ["0 0 29 FEB ? *", "0 0 ? * 2#5 *", "0 0 ? FEB 2#5 *", "0 0 30 FEB ? *", "30 2 ? MAR 1#2 *"],
)
def test_rare_expressions_examine_few_months(expression: str) -> None:
    """The search visits only the months the expression allows, once each: even an expression that never
    fires (30 FEB) costs one cheap calendar computation per remaining year, not a walk over every minute."""
    cron = parse_aws_cron(expression)
    zone = ZoneInfo(NEW_YORK)
    after = datetime(2027, 3, 1, tzinfo=UTC)
    aws_cron._matching_days.cache_clear()  # cold: the per-month day cache would hide the search
    cron.next_after(after, zone)
    assert aws_cron._matching_days.cache_info().misses <= 200
