"""Upcoming fire times of a schedule, for ``/clients/scheduled-events/preview``.

Nothing here computes a fire time itself: every time comes from :func:`core.schedules.spec.next_fire`, the
function the scheduler fires by, called the way the scheduler calls it (each time strictly after the one
before), so a preview shows DST gaps, repeats and EVERY grids exactly as they will fire.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from core.schedules.aws_cron import CronSyntaxError, parse_aws_cron
from core.schedules.spec import DEFAULT_TIMEZONE, ScheduleError, next_fire, stored_timezone
from core.schedules.window import NO_WINDOW, FireWindow
from schemas.scheduled.schedules import CronSpec, EverySpec, OnceSpec

__all__ = ["check_cron_syntax", "fire_times", "preview_timezone", "show_in_zone"]

Spec = EverySpec | CronSpec | OnceSpec


def fire_times(
    spec: Spec, after: datetime, *, anchor: datetime, count: int, window: FireWindow = NO_WINDOW
) -> list[datetime]:
    """Up to ``count`` fire times strictly after ``after`` (aware UTC) inside ``window`` (a stored event's
    startDate, endDate and pause), in order; fewer when the schedule runs out (a ONCE time, a cron year
    field, endDate)."""
    times: list[datetime] = []
    moment = after
    while len(times) < count:
        fire = next_fire(spec, moment, anchor=anchor, window=window)
        if fire is None:
            break
        times.append(fire)
        moment = fire
    return times


def preview_timezone(spec: Spec) -> str:
    """The zone the times are shown in: the schedule's own; UTC for EVERY, which counts elapsed time."""
    return stored_timezone(spec) or DEFAULT_TIMEZONE


def show_in_zone(moment: datetime, timezone: str) -> str:
    """ISO-8601 with the zone's offset at that instant (``2026-03-29T03:30:00+02:00``). Whole seconds unless
    the time has a fraction (an EVERY grid keeps its anchor's), which is then shown to the microsecond, so
    the text names the exact instant and can be sent back as ``from`` to page on."""
    return moment.astimezone(ZoneInfo(timezone)).isoformat()


def check_cron_syntax(spec: Spec) -> None:
    """Refuse a CRON spec whose expression does not parse (the message /create gives). Unlike /create's
    check, a schedule with no time left is not an error here: its preview is simply empty."""
    if isinstance(spec, CronSpec):
        try:
            parse_aws_cron(spec.cron.expression)
        except CronSyntaxError as exc:
            raise ScheduleError(f"Invalid cron expression '{spec.cron.expression}': {exc}") from None
