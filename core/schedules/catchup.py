"""Catching up after the scheduler stood still: which fire still runs, and which fires were missed.

Pure: the scheduler's claim (sinks/db/scheduled/missed.py) calls :func:`catch_up` with an event's due fire
and its ``catchupWindowSeconds``. Of the fires that passed while nothing claimed them, only the latest one
inside the catch-up window still runs (late), so a restart never replays a burst; every other one is
*missed* and the scheduler writes it to /runs as MISSED instead of dropping it. At most ``cap`` missed fires
are listed per catch-up (a minutely schedule down for a month has 43,200), oldest first; ``truncated`` says
that later ones were passed over without a row. Fires outside the event's window (startDate, endDate, a
pause) are not fires at all, so they are never missed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from core.schedules.spec import next_fire
from core.schedules.window import FireWindow
from schemas.scheduled.schedules import ScheduleSpec

__all__ = ["MAX_MISSED_PER_CATCH_UP", "CatchUp", "Missed", "catch_up"]

MAX_MISSED_PER_CATCH_UP = 1000
_INSTANT = timedelta(microseconds=1)


@dataclass(frozen=True)
class Missed:
    at: datetime
    # True: inside the catch-up window, but a later fire ran instead of it; False: older than the window.
    superseded: bool


@dataclass(frozen=True)
class CatchUp:
    fire: datetime | None
    """The fire to claim now (or claim ahead, up to the horizon), or None."""
    following: datetime | None
    """The event's next fire after ``fire`` (its new nextFireAt)."""
    missed: list[Missed] = field(default_factory=list)
    truncated: bool = False
    """More fires were missed than ``missed`` lists."""


def catch_up(
    spec: ScheduleSpec,
    *,
    anchor: datetime,
    bounds: FireWindow,
    due: datetime,
    now: datetime,
    window: timedelta,
    horizon: datetime,
    cap: int = MAX_MISSED_PER_CATCH_UP,
) -> CatchUp:
    """``due`` is the event's stored nextFireAt; ``window`` its catch-up window; fires up to ``horizon`` (a
    little after ``now``) are claimed ahead."""
    missed: list[Missed] = []
    truncated = False

    def miss(at: datetime, superseded: bool) -> None:
        nonlocal truncated
        if len(missed) < cap:
            missed.append(Missed(at, superseded))
        else:
            truncated = True

    start = max(due, now - window)
    fire = due if bounds.admits(due) else next_fire(spec, due - _INSTANT, anchor=anchor, window=bounds)
    while fire is not None and fire < start and len(missed) < cap:
        miss(fire, superseded=False)
        fire = next_fire(spec, fire, anchor=anchor, window=bounds)
    if fire is not None and fire < start:
        # Past the cap: jump to the window instead of walking every fire of a long gap.
        truncated = True
        fire = next_fire(spec, start - _INSTANT, anchor=anchor, window=bounds)
    if fire is None or fire > horizon:
        return CatchUp(None, fire, missed, truncated)
    while (following := next_fire(spec, fire, anchor=anchor, window=bounds)) is not None and following <= now:
        miss(fire, superseded=True)
        fire = following
    return CatchUp(fire, following, missed, truncated)
