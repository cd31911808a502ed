"""startDate, endDate, actionAfterCompletion and a pause on a stored event, for the scheduled-events routes
(ingress/scheduled/events.py and scheduled_controls.py): set them from a request, compute the next
fire within them, show them on the record."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from core.schedules.controls import check_dates, check_has_fire
from core.schedules.spec import ScheduleError
from ingress.errors import ApiError
from schemas.base import iso_utc
from schemas.scheduled.controls import ActionAfterCompletion, WindowFields
from schemas.scheduled.schedules import CronSpec, EverySpec, OnceSpec
from sinks.db.models import ScheduledEvent as EventRow
from sinks.db.scheduled.events import fire_window

__all__ = ["first_fire_in_window", "set_window", "window_wire"]

Spec = EverySpec | CronSpec | OnceSpec


def set_window(row: EventRow, body: WindowFields, now: datetime) -> bool:
    """Store the dates and actionAfterCompletion the request sends (a field left out keeps its value; on
    /create the row starts with none). True if a date changed, so the next fire has to be computed again."""
    start = body.start_date if body.start_date is not None else row.start_date
    end = body.end_date if body.end_date is not None else row.end_date
    try:
        check_dates(start, end, now, end_sent=body.end_date is not None)
    except ScheduleError as exc:
        raise ApiError(400, str(exc)) from None
    if body.action_after_completion is not None:
        row.action_after_completion = body.action_after_completion.value
    changed = (start, end) != (row.start_date, row.end_date)
    row.start_date = start.astimezone(UTC) if start is not None else None
    row.end_date = end.astimezone(UTC) if end is not None else None
    return changed


def first_fire_in_window(row: EventRow, spec: Spec, now: datetime, field: str | None = None) -> datetime:
    """The event's first fire after ``now`` within its dates and pause; a window with none left is 400
    naming ``field`` or the date at fault."""
    try:
        return check_has_fire(spec, now, anchor=row.anchor_at, window=fire_window(row), field=field)
    except ScheduleError as exc:
        raise ApiError(400, str(exc)) from None


def window_wire(row: EventRow) -> dict[str, Any]:
    """The record's fields for the controls. ``pausedUntil`` only while the pause lasts: a pause that ended
    bounds nothing any more."""
    paused = row.paused_until
    if paused is not None and paused <= datetime.now(UTC):
        paused = None
    return {
        "start_date": iso_utc(row.start_date),
        "end_date": iso_utc(row.end_date),
        "action_after_completion": ActionAfterCompletion(row.action_after_completion or "NONE"),
        "paused_until": iso_utc(paused),
    }
