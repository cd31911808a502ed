"""ScheduleSpec wire models and schedule math: next fire time, EventBridge forms, validation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from core.schedules.spec import (
    ScheduleError,
    next_fire,
    parse_schedule_expression,
    to_schedule_expression,
    validate_spec,
)
from schemas.scheduled.schedules import (
    CronSpec,
    EverySpec,
    OnceSpec,
    ScheduleSpec,
    dump_schedule_spec,
    load_schedule_spec,
)

pytestmark = pytest.mark.unit

NOW = datetime(2027, 6, 1, 12, 0, tzinfo=UTC)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def spec(data: dict[str, Any]) -> ScheduleSpec:
    return load_schedule_spec(data)


EVERY_5_MIN = {"pattern": "EVERY", "every": {"value": 5, "unit": "MINUTES"}}
CRON_NOON_BERLIN = {"pattern": "CRON", "cron": {"expression": "0 12 * * ? *", "timezone": "Europe/Berlin"}}
ONCE_NEW_YORK = {"pattern": "ONCE", "once": {"at": "2027-07-04T09:00:00", "timezone": "America/New_York"}}


# --- wire models ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "model"),
    [(EVERY_5_MIN, EverySpec), (CRON_NOON_BERLIN, CronSpec), (ONCE_NEW_YORK, OnceSpec)],
)
def test_round_trip_keeps_exact_shape(data: dict[str, Any], model: type) -> None:
    parsed = spec(data)
    assert isinstance(parsed, model)
    assert dump_schedule_spec(parsed) == data


@pytest.mark.parametrize(
    "data",
    [
        {"pattern": "EVERY", "every": {"value": 1, "unit": "HOURS"}},
        {"pattern": "EVERY", "every": {"value": 1_000_000, "unit": "DAYS"}},
        {"pattern": "CRON", "cron": {"expression": "not checked here", "timezone": "UTC"}},
        {"pattern": "ONCE", "once": {"at": "2027-07-04T09:00:00", "timezone": "Asia/Kathmandu"}},
    ],
)
def test_valid_specs(data: dict[str, Any]) -> None:
    assert dump_schedule_spec(spec(data)) == data


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"every": {"value": 5, "unit": "MINUTES"}}, "pattern"),
        ({"pattern": "WEEKLY"}, "WEEKLY"),
        ({"pattern": "every", "every": {"value": 5, "unit": "MINUTES"}}, "every"),
        ({"pattern": "EVERY", "cron": CRON_NOON_BERLIN["cron"]}, "every"),
        ({**EVERY_5_MIN, "cron": CRON_NOON_BERLIN["cron"]}, "Extra inputs are not permitted"),
        ({**CRON_NOON_BERLIN, "once": ONCE_NEW_YORK["once"]}, "Extra inputs are not permitted"),
        ({"pattern": "EVERY", "every": {"value": 5, "unit": "MINUTES", "x": 1}}, "Extra inputs"),
        ({"pattern": "EVERY", "every": {"value": 0, "unit": "MINUTES"}}, "greater than 0"),
        ({"pattern": "EVERY", "every": {"value": -5, "unit": "MINUTES"}}, "greater than 0"),
        ({"pattern": "EVERY", "every": {"value": 1_000_001, "unit": "MINUTES"}}, "less than or equal"),
        ({"pattern": "EVERY", "every": {"value": "5", "unit": "MINUTES"}}, "valid integer"),
        ({"pattern": "EVERY", "every": {"value": 5.5, "unit": "MINUTES"}}, "valid integer"),
        ({"pattern": "EVERY", "every": {"value": True, "unit": "MINUTES"}}, "valid integer"),
        ({"pattern": "EVERY", "every": {"value": 5, "unit": "minutes"}}, "MINUTES"),
        ({"pattern": "EVERY", "every": {"value": 5, "unit": "WEEKS"}}, "MINUTES"),
        ({"pattern": "EVERY", "every": {"value": 5}}, "unit"),
        ({"pattern": "CRON", "cron": {"expression": "0 12 * * ? *"}}, "timezone"),
        ({"pattern": "CRON", "cron": {"expression": "", "timezone": "UTC"}}, "expression"),
        ({"pattern": "CRON", "cron": {"expression": "0 12 * * ? *", "timezone": "Mars/Base"}}, "Mars/Base"),
        ({"pattern": "CRON", "cron": {"expression": "0 12 * * ? *", "timezone": "utc"}}, "Unknown timezone"),
        ({"pattern": "CRON", "cron": {"expression": "0 12 * * ? *", "timezone": "America"}}, "Unknown"),
        ({"pattern": "CRON", "cron": {"expression": "0 12 * * ? *", "timezone": "localtime"}}, "Unknown"),
        ({"pattern": "CRON", "cron": {"expression": "0 12 * * ? *", "timezone": "../etc"}}, "Unknown"),
        (
            {"pattern": "ONCE", "once": {"at": "2027-07-04T09:00:00+02:00", "timezone": "UTC"}},
            "without offset",
        ),
        ({"pattern": "ONCE", "once": {"at": "2027-07-04T09:00:00Z", "timezone": "UTC"}}, "without offset"),
        ({"pattern": "ONCE", "once": {"at": 1_800_000_000, "timezone": "UTC"}}, "ISO-8601"),
        ({"pattern": "ONCE", "once": {"at": "next tuesday", "timezone": "UTC"}}, "ISO-8601"),
        ({"pattern": "ONCE", "once": {"at": "9999-12-31T23:00:00", "timezone": "UTC"}}, "between the years"),
        ({"pattern": "ONCE", "once": {"at": "1969-12-31T23:00:00", "timezone": "UTC"}}, "between the years"),
        ({"pattern": "ONCE", "once": {"at": "2027-02-30T09:00:00", "timezone": "UTC"}}, "ISO-8601"),
        (
            {"pattern": "ONCE", "once": {"at": "2027-07-04T09:00:00", "timezone": "Nowhere"}},
            "Unknown timezone",
        ),
    ],
)
def test_invalid_specs(data: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValidationError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        spec(data)


def test_models_are_frozen() -> None:
    parsed = spec(EVERY_5_MIN)
    assert isinstance(parsed, EverySpec)
    with pytest.raises(ValidationError):
        parsed.every = parsed.every  # type: ignore[misc]


# --- next_fire -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "unit", "anchor", "after", "expected"),
    [
        (15, "MINUTES", "2027-01-01T10:00:00Z", "2027-01-01T10:00:00Z", "2027-01-01T10:15:00Z"),
        (15, "MINUTES", "2027-01-01T10:00:00Z", "2027-01-01T10:07:31Z", "2027-01-01T10:15:00Z"),
        (15, "MINUTES", "2027-01-01T10:00:00Z", "2027-01-01T10:15:00Z", "2027-01-01T10:30:00Z"),
        (15, "MINUTES", "2027-01-01T10:00:00Z", "2027-01-01T10:14:59.999Z", "2027-01-01T10:15:00Z"),
        # anchor keeps its seconds: the grid is anchor + k * interval, not wall-clock minutes
        (15, "MINUTES", "2027-01-01T10:03:17Z", "2027-01-01T13:00:00Z", "2027-01-01T13:03:17Z"),
        # `after` before the anchor (event not live yet): one interval after the anchor
        (15, "MINUTES", "2027-01-01T10:00:00Z", "2026-12-31T00:00:00Z", "2027-01-01T10:15:00Z"),
        (2, "HOURS", "2027-01-01T10:00:00Z", "2027-01-03T09:59:00Z", "2027-01-03T10:00:00Z"),
        (2, "HOURS", "2027-01-01T10:00:00+01:00", "2027-01-01T10:00:00Z", "2027-01-01T11:00:00Z"),
        # DAYS are 24-hour steps, untouched by daylight-saving changes anywhere
        (1, "DAYS", "2027-03-13T12:00:00Z", "2027-03-14T12:00:00Z", "2027-03-15T12:00:00Z"),
        (7, "DAYS", "2027-01-01T00:00:00Z", "2027-03-30T00:00:00Z", "2027-04-02T00:00:00Z"),
        # an interval that would leave datetime's range never fires
        (1_000_000, "DAYS", "9000-01-01T00:00:00Z", "9000-01-02T00:00:00Z", None),
    ],
)
def test_every_is_anchored(value: int, unit: str, anchor: str, after: str, expected: str | None) -> None:
    every = spec({"pattern": "EVERY", "every": {"value": value, "unit": unit}})
    got = next_fire(every, utc(after), anchor=utc(anchor))
    assert got == (utc(expected) if expected else None)
    assert got is None or got.tzinfo is UTC


def test_cron_uses_its_timezone() -> None:
    got = next_fire(spec(CRON_NOON_BERLIN), utc("2027-01-01T12:00:00Z"), anchor=NOW)
    assert got == utc("2027-01-02T11:00:00Z")
    summer = next_fire(spec(CRON_NOON_BERLIN), utc("2027-07-01T12:00:00Z"), anchor=NOW)
    assert summer == utc("2027-07-02T10:00:00Z")


def test_cron_exhausted_returns_none() -> None:
    cron = spec({"pattern": "CRON", "cron": {"expression": "0 0 1 1 ? 2027", "timezone": "UTC"}})
    assert next_fire(cron, utc("2027-01-01T00:00:00Z"), anchor=NOW) is None


@pytest.mark.parametrize(
    ("at", "tz", "after", "expected"),
    [
        ("2027-07-04T09:00:00", "America/New_York", "2027-07-01T00:00:00Z", "2027-07-04T13:00:00Z"),
        ("2027-07-04T09:00:00", "America/New_York", "2027-07-04T12:59:59Z", "2027-07-04T13:00:00Z"),
        ("2027-07-04T09:00:00", "America/New_York", "2027-07-04T13:00:00Z", None),
        ("2027-07-04T09:00:00", "America/New_York", "2028-01-01T00:00:00Z", None),
        # spring-forward gap: fires at the first instant after the gap
        ("2027-03-14T02:30:00", "America/New_York", "2027-01-01T00:00:00Z", "2027-03-14T07:00:00Z"),
        ("2027-03-28T02:30:00", "Europe/Berlin", "2027-01-01T00:00:00Z", "2027-03-28T01:00:00Z"),
        ("2027-10-03T02:15:00", "Australia/Lord_Howe", "2027-01-01T00:00:00Z", "2027-10-02T15:30:00Z"),
        # fall-back overlap: the first occurrence
        ("2027-11-07T01:30:00", "America/New_York", "2027-01-01T00:00:00Z", "2027-11-07T05:30:00Z"),
        ("2027-10-31T02:30:00", "Europe/Berlin", "2027-01-01T00:00:00Z", "2027-10-31T00:30:00Z"),
        ("2027-04-04T01:45:00", "Australia/Lord_Howe", "2027-01-01T00:00:00Z", "2027-04-03T14:45:00Z"),
    ],
)
def test_once(at: str, tz: str, after: str, expected: str | None) -> None:
    once = spec({"pattern": "ONCE", "once": {"at": at, "timezone": tz}})
    assert next_fire(once, utc(after), anchor=NOW) == (utc(expected) if expected else None)


@pytest.mark.parametrize("naive", ["after", "anchor"])
def test_next_fire_requires_aware_datetimes(naive: str) -> None:
    times = {"after": NOW, "anchor": NOW, naive: NOW.replace(tzinfo=None)}
    with pytest.raises(ValueError, match=f"{naive} must be a timezone-aware datetime"):
        next_fire(spec(EVERY_5_MIN), times["after"], anchor=times["anchor"])


# --- EventBridge expressions ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "timezone", "expected"),
    [
        ("cron(0 12 * * ? *)", "Europe/Berlin", CRON_NOON_BERLIN),
        ("  cron( 0  12 * * ?  * ) ", "Europe/Berlin", CRON_NOON_BERLIN),
        ("CRON(0 12 * * ? *)", "Europe/Berlin", CRON_NOON_BERLIN),
        ("0 12 * * ? *", "Europe/Berlin", CRON_NOON_BERLIN),
        (
            "cron(0 12 * * ? *)",
            None,
            {"pattern": "CRON", "cron": {"expression": "0 12 * * ? *", "timezone": "UTC"}},
        ),
        (
            "cron(0 12 * * ? *)",
            " ",
            {"pattern": "CRON", "cron": {"expression": "0 12 * * ? *", "timezone": "UTC"}},
        ),
        ("rate(5 minutes)", None, EVERY_5_MIN),
        ("rate(5 minutes)", "Europe/Berlin", EVERY_5_MIN),
        ("rate(5 minutes)", "Not/AZone", EVERY_5_MIN),
        ("rate(1 minute)", None, {"pattern": "EVERY", "every": {"value": 1, "unit": "MINUTES"}}),
        ("rate(1 hour)", None, {"pattern": "EVERY", "every": {"value": 1, "unit": "HOURS"}}),
        ("rate(12 hours)", None, {"pattern": "EVERY", "every": {"value": 12, "unit": "HOURS"}}),
        ("rate(1 day)", None, {"pattern": "EVERY", "every": {"value": 1, "unit": "DAYS"}}),
        ("rate(2 days)", None, {"pattern": "EVERY", "every": {"value": 2, "unit": "DAYS"}}),
        ("rate( 2  Days )", None, {"pattern": "EVERY", "every": {"value": 2, "unit": "DAYS"}}),
        ("at(2027-07-04T09:00:00)", "America/New_York", ONCE_NEW_YORK),
        (
            "at(2027-07-04T09:00:00)",
            None,
            {"pattern": "ONCE", "once": {"at": "2027-07-04T09:00:00", "timezone": "UTC"}},
        ),
    ],
)
def test_parse_schedule_expression(expression: str, timezone: str | None, expected: dict[str, Any]) -> None:
    assert dump_schedule_spec(parse_schedule_expression(expression, timezone)) == expected


@pytest.mark.parametrize(
    ("expression", "timezone", "fragment"),
    [
        ("cron(0 12 * * *)", "UTC", "Invalid cron expression '0 12 * * *': expected 6 fields"),
        ("cron(0 12 * * * *)", "UTC", "exactly one of day-of-month and day-of-week must be '?'"),
        ("cron(0 25 * * ? *)", "UTC", "hour field: invalid token '25'"),
        ("cron()", "UTC", "expected 6 fields"),
        ("cron(0 12 * * ? *)", "Mars/Base", "Unknown timezone 'Mars/Base'"),
        ("rate(1 minutes)", None, "write rate(1 minute)"),
        ("rate(5 minute)", None, "write rate(5 minutes)"),
        ("rate(1 hours)", None, "write rate(1 hour)"),
        ("rate(2 day)", None, "write rate(2 days)"),
        ("rate(0 minutes)", None, "positive integer"),
        ("rate(-5 minutes)", None, "Invalid rate expression"),
        ("rate(5 weeks)", None, "Invalid rate expression"),
        ("rate(five minutes)", None, "Invalid rate expression"),
        ("rate(5)", None, "Invalid rate expression"),
        ("rate(1000001 minutes)", None, "too large"),
        ("at(2027-07-04T09:00)", "UTC", "use at(yyyy-mm-ddThh:mm:ss)"),
        ("at(2027-07-04T09:00:00Z)", "UTC", "use at(yyyy-mm-ddThh:mm:ss)"),
        ("at(2027-07-04T09:00:00+02:00)", "UTC", "use at(yyyy-mm-ddThh:mm:ss)"),
        ("at(2027-02-30T09:00:00)", "UTC", "not a valid date and time"),
        ("at(2027-07-04T09:00:00)", "Nowhere", "Unknown timezone 'Nowhere'"),
        ("every(5 minutes)", None, "use cron(...), rate(...) or at(...)"),
        ("5 minutes", None, "use cron(...), rate(...) or at(...)"),
        ("", None, "use cron(...), rate(...) or at(...)"),
    ],
)
def test_parse_schedule_expression_errors(expression: str, timezone: str | None, fragment: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        parse_schedule_expression(expression, timezone)
    assert fragment in str(caught.value)


@pytest.mark.parametrize(
    "expression",
    [
        "cron(0 12 * * ? *)",
        "cron(0/15 9-17 ? * MON-FRI 2027-2030)",
        "cron(0 0 L * ? *)",
        "cron(0 0 ? * 6#3 *)",
        "rate(1 minute)",
        "rate(5 minutes)",
        "rate(1 hour)",
        "rate(3 hours)",
        "rate(1 day)",
        "rate(30 days)",
        "at(2027-07-04T09:00:00)",
    ],
)
def test_expression_round_trip(expression: str) -> None:
    parsed = parse_schedule_expression(expression, "Europe/Berlin")
    assert to_schedule_expression(parsed) == expression
    assert parse_schedule_expression(to_schedule_expression(parsed), "Europe/Berlin") == parsed


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (EVERY_5_MIN, "rate(5 minutes)"),
        ({"pattern": "EVERY", "every": {"value": 1, "unit": "DAYS"}}, "rate(1 day)"),
        (CRON_NOON_BERLIN, "cron(0 12 * * ? *)"),
        (ONCE_NEW_YORK, "at(2027-07-04T09:00:00)"),
        (
            {"pattern": "ONCE", "once": {"at": "2027-07-04T09:00:00.250", "timezone": "UTC"}},
            "at(2027-07-04T09:00:00)",
        ),
    ],
)
def test_to_schedule_expression(data: dict[str, Any], expected: str) -> None:
    assert to_schedule_expression(spec(data)) == expected


# --- validate_spec -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        EVERY_5_MIN,
        CRON_NOON_BERLIN,
        ONCE_NEW_YORK,
        {"pattern": "CRON", "cron": {"expression": "0 0 1 1 ? 2028", "timezone": "UTC"}},
        {"pattern": "ONCE", "once": {"at": "2027-06-01T12:00:01", "timezone": "UTC"}},
        # in the spring-forward gap: accepted, fires right after the gap
        {"pattern": "ONCE", "once": {"at": "2028-03-12T02:30:00", "timezone": "America/New_York"}},
    ],
)
def test_validate_accepts(data: dict[str, Any]) -> None:
    validate_spec(spec(data), NOW)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"pattern": "ONCE", "once": {"at": "2027-06-01T12:00:00", "timezone": "UTC"}},
            "Scheduled time must be in the future: 2027-06-01T12:00:00 in UTC has already passed",
        ),
        (
            {"pattern": "ONCE", "once": {"at": "2027-06-01T13:30:00", "timezone": "Europe/Berlin"}},
            "Scheduled time must be in the future: 2027-06-01T13:30:00 in Europe/Berlin has already passed",
        ),
        (
            {"pattern": "CRON", "cron": {"expression": "0 12 * *", "timezone": "UTC"}},
            "Invalid cron expression '0 12 * *': expected 6 fields",
        ),
        (
            {"pattern": "CRON", "cron": {"expression": "0 12 ? JAN 9 *", "timezone": "UTC"}},
            "Invalid cron expression '0 12 ? JAN 9 *': day-of-week field: invalid token '9'",
        ),
        (
            {"pattern": "CRON", "cron": {"expression": "0 0 1 1 ? 2020-2026", "timezone": "UTC"}},
            "Cron expression '0 0 1 1 ? 2020-2026' will never fire: "
            "it has no time after 2027-06-01T12:00:00Z",
        ),
        (
            {"pattern": "CRON", "cron": {"expression": "0 0 30 FEB ? *", "timezone": "UTC"}},
            "Cron expression '0 0 30 FEB ? *' will never fire",
        ),
    ],
)
def test_validate_rejects(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        validate_spec(spec(data), NOW)
    assert str(caught.value).startswith(message)


def test_validate_requires_aware_now() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        validate_spec(spec(EVERY_5_MIN), NOW.replace(tzinfo=None))


def test_once_validation_matches_next_fire() -> None:
    once = spec({"pattern": "ONCE", "once": {"at": "2027-06-01T12:05:00", "timezone": "UTC"}})
    for offset in (timedelta(minutes=-1), timedelta(minutes=5), timedelta(minutes=6)):
        now = NOW + offset
        try:
            validate_spec(once, now)
        except ScheduleError:
            assert next_fire(once, now, anchor=now) is None
        else:
            assert next_fire(once, now, anchor=now) is not None
