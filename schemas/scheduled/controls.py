"""Wire models of the scheduler controls: startDate, endDate and actionAfterCompletion on an event
(EventBridge Scheduler's names), ``/pause`` and ``/run-now`` (``{base_url}/clients/scheduled-events/...``).

Beside ``schemas/scheduled/events.py`` rather than in it, which is at the size the project keeps its modules
to; it imports nothing from it, so that module can build its request models on :class:`WindowFields`.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import ConfigDict, Field, field_validator

from schemas.base import RequestModel, WireModel
from schemas.examples import scheduled_controls as examples
from schemas.scheduled.preview import parse_instant

__all__ = [
    "ActionAfterCompletion",
    "PauseAnswer",
    "PauseRequest",
    "RunNowAnswer",
    "RunNowRequest",
    "RunTrigger",
    "WindowFields",
]


class ActionAfterCompletion(StrEnum):
    """What happens to an event once it has nothing left to fire (EventBridge Scheduler's values)."""

    NONE = "NONE"
    DELETE = "DELETE"


class RunTrigger(StrEnum):
    """Why a run exists: a fire of the schedule, a ``/run-now`` or a ``/backfill``."""

    SCHEDULE = "SCHEDULE"
    RUN_NOW = "RUN_NOW"
    BACKFILL = "BACKFILL"


def _instant(value: Any) -> datetime | None:
    return None if value is None else parse_instant(value)


class WindowFields(RequestModel):
    """On /create and /update: the window the event may fire in, and what happens once it has no fire left.
    Left out on /update: the stored value stays."""

    start_date: datetime | None = None
    end_date: datetime | None = None
    action_after_completion: ActionAfterCompletion | None = None

    @field_validator("start_date", "end_date", mode="before")
    @classmethod
    def _with_offset(cls, value: Any) -> datetime | None:
        return _instant(value)


class PauseRequest(RequestModel):
    """``until`` left out or null (the same, as for every optional field) resumes now."""

    model_config = ConfigDict(json_schema_extra=examples.PAUSE_EVENT)

    scheduled_event_id: str = Field(min_length=1, max_length=100)
    until: datetime | None = None

    @field_validator("until", mode="before")
    @classmethod
    def _with_offset(cls, value: Any) -> datetime | None:
        return _instant(value)


class PauseAnswer(WireModel):
    event_id: str
    paused_until: str | None = None
    next_fire_at: str | None = None
    errors: list[str] = Field(default_factory=list)


class RunNowRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.RUN_NOW)

    scheduled_event_id: str = Field(min_length=1, max_length=100)


class RunNowAnswer(WireModel):
    success: bool
    run_id: str
    errors: list[str] = Field(default_factory=list)
