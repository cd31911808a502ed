"""Wire models of ``{base_url}/clients/scheduled-events/preview``: a schedule's next fire times.

Kept beside ``schemas/scheduled/events.py`` rather than in it, which is at the size the project keeps its
modules to.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from pydantic import ConfigDict, Field, field_validator, model_validator

from schemas.base import RequestModel, WireModel
from schemas.examples import scheduled_events as examples
from schemas.scheduled.schedules import ONCE_YEAR_MAX, ONCE_YEAR_MIN, ScheduleSpec

__all__ = [
    "DEFAULT_PREVIEW_COUNT",
    "MAX_PREVIEW_COUNT",
    "SchedulePreviewAnswer",
    "SchedulePreviewRequest",
    "parse_instant",
]

DEFAULT_PREVIEW_COUNT, MAX_PREVIEW_COUNT = 10, 100
_SOURCES = {
    "schedule_spec": "scheduleSpec",
    "cron_expression": "cronExpression",
    "scheduled_event_id": "scheduledEventId",
}
# An instant, never a wall-clock time: without an offset one text names two instants across a DST change.
_INSTANT = re.compile(
    r"(?P<local>[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?)"
    r"(?P<offset>Z|[+-][0-9]{2}:[0-9]{2})?"
)
_FORM = "write yyyy-mm-ddThh:mm:ss (optionally .ffffff) then Z or an offset ±hh:mm, e.g. 2027-03-26T12:00:00Z"
_SHOWN_CHARS = 40  # of a refused value, echoed in its message


def parse_instant(value: Any) -> datetime:
    """``from``: an ISO-8601 timestamp with ``Z`` or an offset, as an aware datetime; else ``ValueError``
    with a message for the caller."""
    if not isinstance(value, str):
        raise ValueError(f"must be an ISO-8601 timestamp string: {_FORM}")
    shown = value if len(value) <= _SHOWN_CHARS else value[:_SHOWN_CHARS] + "..."
    match = _INSTANT.fullmatch(value)
    if match is None:
        raise ValueError(f"'{shown}' is not an ISO-8601 timestamp: {_FORM}")
    if match["offset"] is None:
        raise ValueError(
            f"'{shown}' has no offset and a local time is refused: add Z or the offset, e.g. {shown}Z "
            "(the schedule's zone applies to its fire times, not to from)"
        )
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"'{shown}' is not an ISO-8601 timestamp: no such date, time or offset") from None
    # The years a schedule can fire in; it also keeps zone conversions away from datetime's limits.
    if not ONCE_YEAR_MIN <= parsed.year <= ONCE_YEAR_MAX:
        raise ValueError(f"must be between the years {ONCE_YEAR_MIN} and {ONCE_YEAR_MAX}")
    return parsed


class SchedulePreviewRequest(RequestModel):
    """Exactly one source of a schedule (a ``scheduleSpec``, a ``cronExpression`` with ``timezone``, or a
    stored event's ``scheduledEventId``), how many fire times, and after which instant."""

    model_config = ConfigDict(json_schema_extra=examples.PREVIEW_SCHEDULE)

    schedule_spec: ScheduleSpec | None = None
    cron_expression: str | None = Field(None, max_length=300)
    timezone: str | None = Field(None, max_length=100)
    scheduled_event_id: str | None = Field(None, min_length=1, max_length=100)
    count: int = Field(DEFAULT_PREVIEW_COUNT, strict=True, ge=1, le=MAX_PREVIEW_COUNT)
    # Absent: now. ``from`` is a Python keyword, hence the alias.
    from_: datetime | None = Field(None, alias="from")

    @field_validator("count", mode="before")
    @classmethod
    def _null_count(cls, value: Any) -> Any:
        # An optional field sent as null means the same as one left out (interface.md, Conventions).
        return DEFAULT_PREVIEW_COUNT if value is None else value

    @field_validator("from_", mode="before")
    @classmethod
    def _instant(cls, value: Any) -> datetime | None:
        return None if value is None else parse_instant(value)

    @model_validator(mode="after")
    def _one_source(self) -> SchedulePreviewRequest:
        sent = [wire for name, wire in _SOURCES.items() if getattr(self, name) is not None]
        if not sent:
            raise ValueError("send one of scheduleSpec, cronExpression (with timezone) or scheduledEventId")
        if len(sent) > 1:
            named = " and ".join(sent)
            raise ValueError(
                f"send only one of scheduleSpec, cronExpression and scheduledEventId, not {named}"
            )
        if self.timezone is not None and self.cron_expression is None:
            raise ValueError(
                "timezone goes with cronExpression only: scheduleSpec and a stored event carry their own"
            )
        return self


class SchedulePreviewAnswer(WireModel):
    fire_times: list[str]
    timezone: str
    errors: list[str] = Field(default_factory=list)
