"""Checks of a schedule's controls (startDate, endDate, a pause's ``until``), each message naming its field.

Pure: the routes call these with the stored or sent values and turn a :class:`ScheduleError` into a 400.
"""

from __future__ import annotations

from datetime import UTC, datetime

from core.schedules.spec import ScheduleError, next_fire
from core.schedules.window import FireWindow
from schemas.scheduled.schedules import ScheduleSpec

__all__ = ["check_dates", "check_has_fire", "check_pause_until", "shown"]


def shown(moment: datetime) -> str:
    """An instant in a message: UTC with ``Z``, to the second."""
    return f"{moment.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"


def check_dates(start: datetime | None, end: datetime | None, now: datetime, *, end_sent: bool) -> None:
    """endDate after startDate; an endDate that is sent must still be ahead (one already stored and passed
    is the schedule's history, not an error)."""
    if start is not None and end is not None and end <= start:
        raise ScheduleError(f"endDate: must be after startDate ({shown(end)} is not after {shown(start)})")
    if end_sent and end is not None and end <= now:
        raise ScheduleError(f"endDate: must be in the future ({shown(end)} has already passed)")


def check_pause_until(until: datetime, now: datetime) -> None:
    if until <= now:
        raise ScheduleError(f"until: must be in the future ({shown(until)} has already passed)")


def check_has_fire(
    spec: ScheduleSpec, now: datetime, *, anchor: datetime, window: FireWindow, field: str | None = None
) -> datetime:
    """The first fire after ``now`` inside ``window``, so that a saved event always has one ahead. When
    there is none the message names ``field`` or, without it, the bound at fault: endDate when the schedule
    does fire after the window opens but only past endDate, else startDate."""
    fire = next_fire(spec, now, anchor=anchor, window=window)
    if fire is not None:
        return fire
    if field is None:
        open_ended = FireWindow(start_date=window.start_date, paused_until=window.paused_until)
        cut_by_end = next_fire(spec, now, anchor=anchor, window=open_ended) is not None
        field = "endDate" if cut_by_end else "startDate"
    end = shown(window.end_date) if window.end_date is not None else "its end"
    raise ScheduleError(f"{field}: the schedule has no fire left between {_opening(window, now)} and {end}")


def _opening(window: FireWindow, now: datetime) -> str:
    opens = window.opens()
    return shown(opens if opens is not None and opens > now else now)
