"""Wire models for ScheduleSpec, the tagged union on ``pattern`` (EVERY, CRON, ONCE).

Only the nested object that matches ``pattern`` may be present; anything else is rejected
(``extra="forbid"``).  The cron expression itself is checked by the cron parser in
``core.schedules``, not here, so that this package stays free of project imports.
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import datetime
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

__all__ = [
    "LOCAL_DATETIME_FORM",
    "MAX_EVERY_VALUE",
    "ONCE_YEAR_MAX",
    "ONCE_YEAR_MIN",
    "CronConfig",
    "CronSpec",
    "EveryConfig",
    "EverySpec",
    "EveryUnit",
    "OnceConfig",
    "OnceSpec",
    "ScheduleSpec",
    "dump_schedule_spec",
    "is_local_datetime_form",
    "load_schedule_spec",
    "parse_local_datetime",
    "validate_timezone_name",
]

EveryUnit = Literal["MINUTES", "HOURS", "DAYS"]

# Large enough for any real schedule, small enough that anchor + k * interval stays far from
# datetime's year-9999 ceiling for the lifetime of an event.
MAX_EVERY_VALUE = 1_000_000

ONCE_YEAR_MIN, ONCE_YEAR_MAX = 1970, 2199

LOCAL_DATETIME_FORM = "yyyy-mm-ddThh:mm:ss"
# The one shape a ONCE time may take, in scheduleSpec and in at(...) alike: ISO-8601's extended calendar
# form with an upper-case 'T', seconds required, an optional '.' fraction of at most the six digits a
# datetime holds. Python's fromisoformat also takes a space or any other separator, a date alone, an hour
# alone, the basic and week-date forms and a comma fraction; none of them is what the interface shows.
_LOCAL_DATETIME = re.compile(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})T(?P<time>[0-9]{2}:[0-9]{2}:[0-9]{2})"
    r"(?:\.(?P<fraction>[0-9]{1,6}))?"
)
_OFFSET = re.compile(r"[Zz]|[+-][0-9]{2}(?::?[0-9]{2}(?::?[0-9]{2}(?:\.[0-9]+)?)?)?")
_SHOWN_CHARS = 40  # of a refused value, echoed in its message
_WITH_OFFSET = (
    "at must be a local datetime without offset (e.g. 2027-01-01T09:00:00); put the zone in 'timezone'"
)

# Names that resolve on some hosts but do not name a real IANA zone: "localtime" follows the
# host's clock, and "Factory" is a placeholder zone.
_NOT_IANA = frozenset({"localtime", "Factory", "posixrules"})


@lru_cache(maxsize=1024)
def _zone_exists(name: str) -> bool:
    if name in _NOT_IANA:
        return False
    try:
        zoneinfo.ZoneInfo(name)
    except (ValueError, KeyError, OSError):
        # ValueError: malformed key; KeyError: ZoneInfoNotFoundError; OSError: a directory.
        return False
    return True


def validate_timezone_name(name: str) -> str:
    """Return ``name`` if it is a known IANA timezone, else raise ``ValueError``."""
    if not _zone_exists(name):
        raise ValueError(f"Unknown timezone '{name}': use an IANA name such as 'Europe/Berlin' or 'UTC'")
    return name


def is_local_datetime_form(text: str) -> bool:
    """Whether ``text`` has the shape of a ONCE time (the date itself may still not exist)."""
    return _LOCAL_DATETIME.fullmatch(text) is not None


def parse_local_datetime(text: str) -> datetime:
    """A ONCE time (``yyyy-mm-ddThh:mm:ss`` with an optional ``.ffffff``) as a naive datetime, or
    ``ValueError`` with a message for the API caller."""
    match = _LOCAL_DATETIME.fullmatch(text)
    shown = text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "..."
    if match is None:
        prefix = _LOCAL_DATETIME.match(text)
        if prefix is not None and _OFFSET.fullmatch(text[prefix.end() :]):
            raise ValueError(_WITH_OFFSET)
        raise ValueError(
            f"'{shown}' is not an ISO-8601 local datetime: write {LOCAL_DATETIME_FORM}, optionally with a "
            "fraction of a second (.ffffff), e.g. 2027-01-01T09:00:00"
        )
    try:
        parsed = datetime.fromisoformat(f"{match['date']}T{match['time']}")
    except ValueError:
        raise ValueError(f"'{shown}' is not an ISO-8601 local datetime: no such date and time") from None
    fraction = match["fraction"]
    return parsed.replace(microsecond=int(fraction.ljust(6, "0"))) if fraction else parsed


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EveryConfig(_Wire):
    value: int = Field(strict=True, gt=0, le=MAX_EVERY_VALUE)
    unit: EveryUnit


class CronConfig(_Wire):
    expression: str = Field(min_length=1)
    timezone: str

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        return validate_timezone_name(value)


class OnceConfig(_Wire):
    at: datetime
    timezone: str

    @field_validator("at", mode="before")
    @classmethod
    def _local_iso_datetime(cls, value: Any) -> Any:
        # Parsing the string here keeps pydantic's lax datetime coercion (unix timestamps, for
        # one) out of a field whose meaning is "wall-clock time in `timezone`".
        if isinstance(value, str):
            return parse_local_datetime(value)
        if isinstance(value, datetime):
            return value
        raise ValueError("at must be an ISO-8601 local datetime string such as 2027-01-01T09:00:00")

    @field_validator("at")
    @classmethod
    def _no_offset(cls, value: datetime) -> datetime:
        if value.tzinfo is not None:
            raise ValueError(_WITH_OFFSET)
        # The same window as the cron year field; it also keeps zone conversions away from
        # datetime's limits.
        if not ONCE_YEAR_MIN <= value.year <= ONCE_YEAR_MAX:
            raise ValueError(f"at must be between the years {ONCE_YEAR_MIN} and {ONCE_YEAR_MAX}")
        return value

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        return validate_timezone_name(value)


class EverySpec(_Wire):
    pattern: Literal["EVERY"]
    every: EveryConfig


class CronSpec(_Wire):
    pattern: Literal["CRON"]
    cron: CronConfig


class OnceSpec(_Wire):
    pattern: Literal["ONCE"]
    once: OnceConfig


ScheduleSpec = Annotated[EverySpec | CronSpec | OnceSpec, Field(discriminator="pattern")]

_ADAPTER: TypeAdapter[EverySpec | CronSpec | OnceSpec] = TypeAdapter(ScheduleSpec)


def load_schedule_spec(data: Any) -> EverySpec | CronSpec | OnceSpec:
    """Validate a wire object (already-decoded JSON) into a ScheduleSpec model."""
    return _ADAPTER.validate_python(data)


def dump_schedule_spec(spec: EverySpec | CronSpec | OnceSpec) -> dict[str, Any]:
    """The spec's JSON shape: ``pattern`` plus the one nested object that matches it."""
    dumped: dict[str, Any] = _ADAPTER.dump_python(spec, mode="json")
    return dumped
