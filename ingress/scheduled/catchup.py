"""catchupWindowSeconds, overlapPolicy and flexibleTimeWindow on a stored event, for the scheduled-events
routes: set them from a request, show them on the record (ingress/scheduled/events.py)."""

from __future__ import annotations

from typing import Any

from schemas.scheduled.catchup import (
    DEFAULT_CATCHUP_WINDOW_SECONDS,
    CatchupFields,
    FlexibleTimeWindow,
    FlexMode,
    OverlapPolicy,
)
from sinks.db.models import ScheduledEvent as EventRow

__all__ = ["catchup_wire", "set_catchup"]


def set_catchup(row: EventRow, body: CatchupFields) -> bool:
    """Sent: replaces the stored value (from the next catch-up or fire on); left out: the stored one stays,
    on /create the default. True if the flexibleTimeWindow changed (the next fire moves with it)."""
    if body.catchup_window_seconds is not None:
        row.catchup_window_seconds = body.catchup_window_seconds
    elif row.catchup_window_seconds is None:
        row.catchup_window_seconds = DEFAULT_CATCHUP_WINDOW_SECONDS
    if body.overlap_policy is not None:
        row.overlap_policy = body.overlap_policy.value
    elif row.overlap_policy is None:
        row.overlap_policy = OverlapPolicy.SKIP.value
    if body.flexible_time_window is None:
        return False
    minutes = body.flexible_time_window.maximum_window_in_minutes
    changed = minutes != row.flex_window_minutes
    row.flex_window_minutes = minutes
    return changed


def catchup_wire(row: EventRow) -> dict[str, Any]:
    return {
        "catchup_window_seconds": row.catchup_window_seconds,
        "overlap_policy": OverlapPolicy(row.overlap_policy),
        "flexible_time_window": (
            FlexibleTimeWindow(mode=FlexMode.FLEXIBLE, maximum_window_in_minutes=row.flex_window_minutes)
            if row.flex_window_minutes
            else FlexibleTimeWindow(mode=FlexMode.OFF)
        ),
    }
