"""Wire models of ``/backfill`` (``{base_url}/clients/scheduled-events/backfill``): run an event's past fire
times in a range once each."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import ConfigDict, Field, field_validator

from schemas.base import RequestModel, WireModel
from schemas.scheduled.preview import parse_instant

__all__ = ["MAX_BACKFILL_FIRES", "BackfillAnswer", "BackfillRequest"]

MAX_BACKFILL_FIRES = 1000


class BackfillRequest(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "scheduledEventId": "019c416858a273c5891627ba8885b5f8",
                    "from": "2027-03-01T00:00:00+01:00",
                    "to": "2027-03-02T00:00:00+01:00",
                }
            ]
        }
    )

    scheduled_event_id: str = Field(min_length=1, max_length=100)
    # ``from`` is a Python keyword, hence the alias.
    from_: datetime = Field(alias="from")
    to: datetime

    @field_validator("from_", "to", mode="before")
    @classmethod
    def _with_offset(cls, value: Any) -> datetime:
        return parse_instant(value)


class BackfillAnswer(WireModel):
    scheduled: int
    errors: list[str] = Field(default_factory=list)
