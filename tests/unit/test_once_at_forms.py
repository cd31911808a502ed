"""The one form of a ONCE time, ``yyyy-mm-ddThh:mm:ss`` with an optional ``.ffffff``, in ``scheduleSpec`` and
in the ``at(...)`` expression alike.

Every refused form below is one Python's ``datetime.fromisoformat`` takes (the parser used before): a space
or another character instead of ``T``, a date alone, no seconds, the basic and week-date forms, a comma
fraction, more than six fraction digits (silently cut to microseconds)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from core.schedules.spec import (
    ScheduleError,
    parse_schedule_expression,
    stored_timezone,
    to_schedule_expression,
    validate_spec,
    with_timezone,
)
from schemas.scheduled.schedules import (
    OnceSpec,
    dump_schedule_spec,
    load_schedule_spec,
    parse_local_datetime,
)

pytestmark = pytest.mark.unit

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def wall(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, micro: int = 0
) -> datetime:
    """A wall-clock time without a zone, as a ONCE time is."""
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=UTC).replace(tzinfo=None)


NOT_THE_FORM = [
    "2027-01-01 10:00:00",  # a space for the T
    "2027-01-01t10:00:00",  # a lower-case t
    "2027-01-01_10:00:00",  # any other separator
    "2027-01-01",  # a date alone
    "2027-01-01T10",  # an hour alone
    "2027-01-01T10:00",  # no seconds
    "2027-01-01T1000",  # basic-form time
    "20270101T100000",  # basic form
    "2027-W01-5T10:00:00",  # week date
    "2027-01-01T10:00:00,5",  # comma fraction
    "2027-01-01T10:00:00.1234567",  # more digits than a datetime holds
]
WITH_OFFSET = [
    "2027-01-01T10:00:00Z",
    "2027-01-01T10:00:00z",
    "2027-01-01T10:00:00+02:00",
    "2027-01-01T10:00:00-0500",
    "2027-01-01T10:00:00.5Z",
]
NOT_A_TIME = ["2027-02-30T10:00:00", "2027-01-01T24:00:00", "2027-01-01T10:00:60"]
ACCEPTED = {
    "2027-01-01T10:00:00": wall(2027, 1, 1, 10),
    "2027-01-01T10:00:00.5": wall(2027, 1, 1, 10, 0, 0, 500_000),
    "2027-01-01T10:00:00.250": wall(2027, 1, 1, 10, 0, 0, 250_000),
    "2027-01-01T10:00:00.123456": wall(2027, 1, 1, 10, 0, 0, 123_456),
}


def once(at: Any, timezone: str = "Europe/Berlin") -> dict[str, Any]:
    return {"pattern": "ONCE", "once": {"at": at, "timezone": timezone}}


def refusal(at: Any) -> str:
    with pytest.raises(ValidationError) as caught:
        load_schedule_spec(once(at))
    errors = caught.value.errors()
    assert len(errors) == 1 and errors[0]["loc"][-1] == "at", errors
    return str(errors[0]["msg"])


@pytest.mark.parametrize("at", NOT_THE_FORM)
def test_schedule_spec_refuses_forms_the_interface_does_not_show(at: str) -> None:
    message = refusal(at)
    assert "is not an ISO-8601 local datetime: write yyyy-mm-ddThh:mm:ss" in message, message
    assert "e.g. 2027-01-01T09:00:00" in message


@pytest.mark.parametrize("at", WITH_OFFSET)
def test_schedule_spec_refuses_an_offset_and_says_where_the_zone_goes(at: str) -> None:
    message = refusal(at)
    assert "without offset" in message and "put the zone in 'timezone'" in message, message


@pytest.mark.parametrize("at", NOT_A_TIME)
def test_schedule_spec_refuses_a_time_that_does_not_exist(at: str) -> None:
    assert "no such date and time" in refusal(at)


@pytest.mark.parametrize("at", [1_800_000_000, 1.5, True, None, ["2027-01-01T10:00:00"]])
def test_schedule_spec_refuses_what_is_not_a_string(at: Any) -> None:
    assert "ISO-8601" in refusal(at) or "string" in refusal(at)


def test_a_long_refused_value_is_not_echoed_whole() -> None:
    message = refusal("2027-01-01T10:00:00" + "x" * 5000)
    assert len(message) < 300 and "..." in message


@pytest.mark.parametrize(("at", "expected"), ACCEPTED.items())
def test_schedule_spec_accepts_seconds_and_an_optional_fraction(at: str, expected: datetime) -> None:
    parsed = load_schedule_spec(once(at))
    assert isinstance(parsed, OnceSpec)
    assert parsed.once.at == expected and parsed.once.at.tzinfo is None
    # What is stored (the spec's JSON) loads again as the same spec.
    assert load_schedule_spec(dump_schedule_spec(parsed)) == parsed


@pytest.mark.parametrize("at", NOT_THE_FORM + WITH_OFFSET)
def test_the_at_expression_refuses_the_same_forms(at: str) -> None:
    with pytest.raises(ScheduleError, match=r"use at\(yyyy-mm-ddThh:mm:ss\)"):
        parse_schedule_expression(f"at({at})", "Europe/Berlin")


@pytest.mark.parametrize("at", NOT_A_TIME)
def test_the_at_expression_refuses_a_time_that_does_not_exist(at: str) -> None:
    with pytest.raises(ScheduleError, match="not a valid date and time"):
        parse_schedule_expression(f"at({at})", "Europe/Berlin")


@pytest.mark.parametrize(("at", "expected"), ACCEPTED.items())
def test_the_at_expression_accepts_what_schedule_spec_accepts(at: str, expected: datetime) -> None:
    parsed = parse_schedule_expression(f"at({at})", "Europe/Berlin")
    assert parsed == load_schedule_spec(once(at))
    assert isinstance(parsed, OnceSpec) and parsed.once.at == expected


@pytest.mark.parametrize("at", NOT_THE_FORM + WITH_OFFSET + NOT_A_TIME + list(ACCEPTED))
def test_both_forms_agree(at: str) -> None:
    try:
        load_schedule_spec(once(at))
    except ValidationError:
        as_spec = False
    else:
        as_spec = True
    try:
        parse_schedule_expression(f"at({at})", "Europe/Berlin")
    except ScheduleError:
        as_expression = False
    else:
        as_expression = True
    assert as_spec == as_expression == (at in ACCEPTED)


def test_parse_local_datetime_is_the_shared_rule() -> None:
    assert parse_local_datetime("2199-12-31T23:59:59.000001") == wall(2199, 12, 31, 23, 59, 59, 1)
    with pytest.raises(ValueError, match="no such date and time"):
        parse_local_datetime("2028-02-30T00:00:00")
    assert parse_local_datetime("2028-02-29T00:00:00") == wall(2028, 2, 29)


def test_moving_a_once_time_to_another_zone_keeps_it_exactly() -> None:
    spec = load_schedule_spec(once("2027-01-01T10:00:00.250", "Europe/Berlin"))
    moved = with_timezone(spec, "Asia/Tokyo")
    assert isinstance(moved, OnceSpec)
    assert moved.once.at == wall(2027, 1, 1, 10, 0, 0, 250_000) and moved.once.timezone == "Asia/Tokyo"
    # The at(...) form shows whole seconds (as EventBridge writes it); re-reading it would lose the fraction.
    assert to_schedule_expression(spec) == "at(2027-01-01T10:00:00)"
    validate_spec(moved, NOW)
    assert stored_timezone(spec) == "Europe/Berlin" and stored_timezone(moved) == "Asia/Tokyo"


def test_moving_a_cron_keeps_its_expression_and_every_has_no_zone() -> None:
    cron = load_schedule_spec(
        {"pattern": "CRON", "cron": {"expression": "0 9 ? * MON-FRI *", "timezone": "Asia/Kolkata"}}
    )
    moved = with_timezone(cron, "America/New_York")
    assert dump_schedule_spec(moved) == {
        "pattern": "CRON",
        "cron": {"expression": "0 9 ? * MON-FRI *", "timezone": "America/New_York"},
    }
    every = load_schedule_spec({"pattern": "EVERY", "every": {"value": 5, "unit": "MINUTES"}})
    assert with_timezone(every, "Asia/Tokyo") is every and stored_timezone(every) is None
    with pytest.raises(ScheduleError, match="Unknown timezone 'Mars/Base'"):
        with_timezone(cron, "Mars/Base")
