"""Wire models of ``catchupWindowSeconds`` (how late a missed fire may still run) and ``overlapPolicy``
(what a fire does while an earlier run is in progress) and ``flexibleTimeWindow`` (EventBridge Scheduler's
name: fires spread deterministically within a window) on a scheduled event.

Beside ``schemas/scheduled/events.py`` rather than in it (that module is at the size the project keeps its
modules to); it imports nothing from it, so that module can build its request models on
:class:`CatchupFields`. The range error names the field: ``catchupWindowSeconds: must be between 0 and
86400``.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, field_validator, model_validator

from schemas.base import RequestModel

__all__ = [
    "DEFAULT_CATCHUP_WINDOW_SECONDS",
    "MAX_CATCHUP_WINDOW_SECONDS",
    "MAX_FLEX_WINDOW_MINUTES",
    "CatchupFields",
    "FlexMode",
    "FlexibleTimeWindow",
    "OverlapPolicy",
]

# The default is an hour, the window every event had before the field, so older events behave the same.
DEFAULT_CATCHUP_WINDOW_SECONDS = 3600
MAX_CATCHUP_WINDOW_SECONDS = 86400
MAX_FLEX_WINDOW_MINUTES = 1440


class OverlapPolicy(StrEnum):
    """What a fire does while an earlier run of its event is still in progress (Temporal's names)."""

    SKIP = "SKIP"
    ALLOW = "ALLOW"
    BUFFER_ONE = "BUFFER_ONE"


class FlexMode(StrEnum):
    OFF = "OFF"
    FLEXIBLE = "FLEXIBLE"


class FlexibleTimeWindow(RequestModel):
    """As in EventBridge Scheduler: maximumWindowInMinutes with FLEXIBLE only, and required there."""

    mode: FlexMode
    maximum_window_in_minutes: int | None = Field(None, strict=True)

    @field_validator("maximum_window_in_minutes")
    @classmethod
    def _minutes(cls, value: int | None) -> int | None:
        if value is not None and not 1 <= value <= MAX_FLEX_WINDOW_MINUTES:
            raise ValueError(f"must be between 1 and {MAX_FLEX_WINDOW_MINUTES}")
        return value

    @model_validator(mode="after")
    def _minutes_with_mode(self) -> FlexibleTimeWindow:
        if self.mode is FlexMode.FLEXIBLE and self.maximum_window_in_minutes is None:
            raise ValueError("maximumWindowInMinutes is required when mode is FLEXIBLE")
        if self.mode is FlexMode.OFF and self.maximum_window_in_minutes is not None:
            raise ValueError("maximumWindowInMinutes is only allowed when mode is FLEXIBLE")
        return self


class CatchupFields(RequestModel):
    """On /create and /update; left out (or null) on /update: the stored value stays."""

    catchup_window_seconds: int | None = Field(None, strict=True)
    overlap_policy: OverlapPolicy | None = None
    flexible_time_window: FlexibleTimeWindow | None = None

    @field_validator("catchup_window_seconds")
    @classmethod
    def _window(cls, value: int | None) -> int | None:
        if value is not None and not 0 <= value <= MAX_CATCHUP_WINDOW_SECONDS:
            raise ValueError(f"must be between 0 and {MAX_CATCHUP_WINDOW_SECONDS}")
        return value
