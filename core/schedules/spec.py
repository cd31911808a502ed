"""Schedule math over ScheduleSpec: next fire time, EventBridge expressions, validation."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from pydantic import ValidationError

from core.schedules.aws_cron import CronSyntaxError, parse_aws_cron
from core.schedules.window import NO_WINDOW, FireWindow
from schemas.scheduled.schedules import (
    CronConfig,
    CronSpec,
    EveryConfig,
    EverySpec,
    EveryUnit,
    OnceConfig,
    OnceSpec,
    ScheduleSpec,
    is_local_datetime_form,
    parse_local_datetime,
    validate_timezone_name,
)

__all__ = [
    "DEFAULT_TIMEZONE",
    "ScheduleError",
    "next_fire",
    "parse_schedule_expression",
    "resolve_local_time",
    "stored_timezone",
    "to_schedule_expression",
    "validate_spec",
    "with_timezone",
]

# EventBridge Scheduler evaluates cron() and at() in UTC when no timezone is given.
DEFAULT_TIMEZONE = "UTC"

_UNIT_DELTA: dict[EveryUnit, timedelta] = {
    "MINUTES": timedelta(minutes=1),
    "HOURS": timedelta(hours=1),
    # A day is 24 hours, whatever the calendar does (EventBridge's rate(n days) is the same).
    "DAYS": timedelta(days=1),
}
_RATE_UNITS: dict[str, EveryUnit] = {
    "minute": "MINUTES",
    "minutes": "MINUTES",
    "hour": "HOURS",
    "hours": "HOURS",
    "day": "DAYS",
    "days": "DAYS",
}
_RATE_WORDS: dict[EveryUnit, str] = {"MINUTES": "minute", "HOURS": "hour", "DAYS": "day"}

# The smallest step a datetime takes.
_INSTANT = timedelta(microseconds=1)

_EXPRESSION = re.compile(r"(?P<kind>[A-Za-z]+)\((?P<body>.*)\)", re.DOTALL)
_RATE_BODY = re.compile(r"(?P<value>[0-9]+)\s+(?P<unit>[A-Za-z]+)")


class ScheduleError(ValueError):
    """A schedule that cannot be accepted; the message is meant for the API caller."""


def next_fire(
    spec: ScheduleSpec, after: datetime, *, anchor: datetime, window: FireWindow = NO_WINDOW
) -> datetime | None:
    """The first fire time strictly after ``after`` (aware UTC) inside ``window``, or None if there is none.

    ``anchor`` (aware) is when the event was created or last re-scheduled; EVERY schedules
    fire at ``anchor + k * interval`` for k >= 1.  CRON and ONCE ignore it.  ``window`` (startDate,
    endDate, a pause) only drops fires: an EVERY grid keeps its anchor, a cron its wall clock. Its
    flexibleTimeWindow moves each fire later (``window.offset``); the bounds apply to the moved times.
    """
    _require_aware(after=after, anchor=anchor)
    opens = window.opens()
    if opens is not None and opens > after:
        # Strictly after the instant before ``opens``: a fire exactly at startDate or at a pause's end counts.
        after = opens - _INSTANT
    fire = (
        _next_flexible(spec, after, anchor, window)
        if window.flex_seconds
        else _next_fire(spec, after, anchor)
    )
    if fire is not None and window.end_date is not None and fire > window.end_date:
        return None
    return fire


def _next_flexible(
    spec: ScheduleSpec, after: datetime, anchor: datetime, window: FireWindow
) -> datetime | None:
    """The earliest moved fire strictly after ``after``. A schedule's fire up to the window before ``after``
    may land after it, and with a window wider than the interval moved fires need not keep their order:
    the smallest moved time is searched, over the schedule's fires from there on until one is past it."""
    nominal = _next_fire(spec, after - timedelta(seconds=window.flex_seconds), anchor)
    best: datetime | None = None
    while nominal is not None and (best is None or nominal < best):
        moved = nominal + window.offset(nominal)
        if moved > after and (best is None or moved < best):
            best = moved
        nominal = _next_fire(spec, nominal, anchor)
    return best


def _next_fire(spec: ScheduleSpec, after: datetime, anchor: datetime) -> datetime | None:
    if isinstance(spec, EverySpec):
        interval = spec.every.value * _UNIT_DELTA[spec.every.unit]
        steps = max((after - anchor) // interval + 1, 1)
        try:
            return (anchor + steps * interval).astimezone(UTC)
        except OverflowError:
            return None
    if isinstance(spec, CronSpec):
        return parse_aws_cron(spec.cron.expression).next_after(after, ZoneInfo(spec.cron.timezone))
    fire = resolve_local_time(spec.once.at, ZoneInfo(spec.once.timezone))
    return fire if fire > after else None


def resolve_local_time(local: datetime, tz: ZoneInfo) -> datetime:
    """Map a naive wall-clock time in ``tz`` to an aware UTC instant.

    A time repeated by a fall-back change means its first occurrence.  A time skipped by a
    spring-forward change means the first instant after the gap (02:30 on the day New York
    jumps from 02:00 to 03:00 resolves to 03:00), so a one-time event is never lost.
    """
    first = local.replace(tzinfo=tz, fold=0).astimezone(UTC)
    if first.astimezone(tz).replace(tzinfo=None) == local.replace(fold=0):
        return first
    # In a gap, fold=0 reads the time with the offset from before the change and fold=1 with
    # the offset from after it; the change itself lies between the two readings.
    lo = local.replace(tzinfo=tz, fold=1).astimezone(UTC)
    hi = first
    offset_after = hi.astimezone(tz).utcoffset()
    while hi - lo > timedelta(seconds=1):
        mid = lo + (hi - lo) / 2
        if mid.astimezone(tz).utcoffset() == offset_after:
            hi = mid
        else:
            lo = mid
    return hi.replace(microsecond=0)


def parse_schedule_expression(expression: str, timezone: str | None) -> ScheduleSpec:
    """Turn an EventBridge schedule expression plus a timezone into a ScheduleSpec.

    Accepts ``cron(<6 fields>)``, ``rate(<n> <unit>)``, ``at(yyyy-mm-ddThh:mm:ss)`` (the same local
    datetime rule as ``scheduleSpec.once.at``, so an optional ``.ffffff`` too) and a bare 6-field cron
    expression.  ``timezone`` defaults to UTC for cron and at, and is ignored for
    rate, which is timezone-independent.
    """
    text = expression.strip()
    match = _EXPRESSION.fullmatch(text)
    if match is None:
        if len(text.split()) == 6:
            return _cron_spec(text, timezone)
        raise ScheduleError(
            f"Invalid schedule expression '{expression}': use cron(...), rate(...) or at(...)"
        )
    kind, body = match["kind"].lower(), match["body"].strip()
    if kind == "cron":
        return _cron_spec(body, timezone)
    if kind == "rate":
        return _rate_spec(body)
    if kind == "at":
        return _once_spec(body, timezone)
    raise ScheduleError(f"Invalid schedule expression '{expression}': use cron(...), rate(...) or at(...)")


def to_schedule_expression(spec: ScheduleSpec) -> str:
    """The EventBridge expression for ``spec`` (the timezone is carried separately)."""
    if isinstance(spec, EverySpec):
        value, word = spec.every.value, _RATE_WORDS[spec.every.unit]
        return f"rate({value} {word if value == 1 else word + 's'})"
    if isinstance(spec, CronSpec):
        return f"cron({spec.cron.expression})"
    return f"at({spec.once.at.isoformat(timespec='seconds')})"


def stored_timezone(spec: ScheduleSpec) -> str | None:
    """The timezone a spec is evaluated in; None for EVERY, which counts elapsed time."""
    if isinstance(spec, CronSpec):
        return spec.cron.timezone
    if isinstance(spec, OnceSpec):
        return spec.once.timezone
    return None


def with_timezone(spec: ScheduleSpec, timezone: str) -> ScheduleSpec:
    """``spec`` moved to the wall clock of ``timezone``, its expression or time kept exactly; EVERY is
    returned as it is."""
    if isinstance(spec, EverySpec):
        return spec
    zone = _zone(timezone)
    if isinstance(spec, CronSpec):
        return CronSpec(pattern="CRON", cron=CronConfig(expression=spec.cron.expression, timezone=zone))
    return OnceSpec(pattern="ONCE", once=OnceConfig(at=spec.once.at, timezone=zone))


def validate_spec(spec: ScheduleSpec, now: datetime) -> None:
    """Reject a schedule that cannot fire: bad cron syntax, a past ONCE, an exhausted CRON."""
    _require_aware(now=now)
    if isinstance(spec, CronSpec):
        try:
            cron = parse_aws_cron(spec.cron.expression)
        except CronSyntaxError as exc:
            raise ScheduleError(f"Invalid cron expression '{spec.cron.expression}': {exc}") from None
        if cron.next_after(now, ZoneInfo(spec.cron.timezone)) is None:
            raise ScheduleError(
                f"Cron expression '{spec.cron.expression}' will never fire: "
                f"it has no time after {now.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"
            )
    elif isinstance(spec, OnceSpec):
        fire = resolve_local_time(spec.once.at, ZoneInfo(spec.once.timezone))
        if fire <= now:
            raise ScheduleError(
                f"Scheduled time must be in the future: {spec.once.at.isoformat(timespec='seconds')} "
                f"in {spec.once.timezone} has already passed"
            )


def _cron_spec(body: str, timezone: str | None) -> CronSpec:
    expression = " ".join(body.split())
    try:
        parse_aws_cron(expression)
    except CronSyntaxError as exc:
        raise ScheduleError(f"Invalid cron expression '{expression}': {exc}") from None
    return CronSpec(pattern="CRON", cron=CronConfig(expression=expression, timezone=_zone(timezone)))


def _rate_spec(body: str) -> EverySpec:
    match = _RATE_BODY.fullmatch(body)
    unit = _RATE_UNITS.get(match["unit"].lower()) if match else None
    if match is None or unit is None:
        raise ScheduleError(
            f"Invalid rate expression 'rate({body})': use rate(<value> minutes|hours|days), "
            "e.g. rate(5 minutes)"
        )
    value, word = int(match["value"]), match["unit"].lower()
    if value < 1:
        raise ScheduleError(f"Invalid rate expression 'rate({body})': the value must be a positive integer")
    # As in EventBridge: rate(1 hour) and rate(2 hours), never rate(1 hours) or rate(2 hour).
    singular = not word.endswith("s")
    if singular != (value == 1):
        expected = _RATE_WORDS[unit] if value == 1 else _RATE_WORDS[unit] + "s"
        raise ScheduleError(
            f"Invalid rate expression 'rate({body})': write rate({value} {expected}) "
            "(singular unit for 1, plural otherwise)"
        )
    try:
        return EverySpec(pattern="EVERY", every=EveryConfig(value=value, unit=unit))
    except ValidationError:
        raise ScheduleError(f"Invalid rate expression 'rate({body})': the value is too large") from None


def _once_spec(body: str, timezone: str | None) -> OnceSpec:
    if not is_local_datetime_form(body):
        raise ScheduleError(
            f"Invalid at expression 'at({body})': use at(yyyy-mm-ddThh:mm:ss) in local time, "
            "e.g. at(2027-01-01T09:00:00), and give the zone as the timezone"
        )
    try:
        at = parse_local_datetime(body)
    except ValueError:
        raise ScheduleError(f"Invalid at expression 'at({body})': not a valid date and time") from None
    return OnceSpec(pattern="ONCE", once=OnceConfig(at=at, timezone=_zone(timezone)))


def _zone(timezone: str | None) -> str:
    if timezone is None or not timezone.strip():
        return DEFAULT_TIMEZONE
    try:
        return validate_timezone_name(timezone.strip())
    except ValueError as exc:
        raise ScheduleError(str(exc)) from None


def _require_aware(**values: datetime) -> None:
    for name, value in values.items():
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"{name} must be a timezone-aware datetime")
