"""The destinations API: ``POST /svc_poweruser/destinations/get-all`` (docs/webhooks.md#destinations)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from schemas.base import WireModel


class DestinationAnswer(WireModel):
    resource_id: str
    name: str
    type: str
    state: Literal["CLOSED", "OPEN", "HALF_OPEN"]
    # When the circuit last changed state.
    since: str
    last_error: str | None
    last_error_at: str | None
    in_flight: int
    waiting: int
    max_concurrency: int
    max_per_second: float | None
    # A Retry-After the destination answered holds its calls back until then; null when none does.
    retry_after_until: str | None
    # While OPEN or HALF_OPEN: when the next probe may start.
    next_probe_at: str | None


class DestinationsAnswer(WireModel):
    destinations: list[DestinationAnswer]
    errors: list[str] = Field(default_factory=list)
