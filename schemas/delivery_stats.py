"""``POST /svc_poweruser/custom-webhooks/get-delivery-stats``: a webhook's delivery attempts over the last
hour or day, counted per bucket by status, with the handler's latency percentiles (docs/interface.md)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import ConfigDict, Field

from schemas.base import WireModel
from schemas.examples import webhooks as examples
from schemas.webhooks import WebhookIdRequest


class StatsWindow(StrEnum):
    HOUR = "HOUR"  # 60 buckets of a minute
    DAY = "DAY"  # 48 buckets of 30 minutes


BUCKET_SECONDS = {StatsWindow.HOUR: 60, StatsWindow.DAY: 1800}
WINDOW_SECONDS = {StatsWindow.HOUR: 3600, StatsWindow.DAY: 86_400}


class DeliveryStatsRequest(WebhookIdRequest):
    model_config = ConfigDict(json_schema_extra=examples.DELIVERY_STATS)

    window: StatsWindow = StatsWindow.HOUR


class StatsBucket(WireModel):
    # The bucket's start (UTC); it holds the attempts queued from then for bucketSeconds.
    start: str
    # Attempts by their current status; a status with none is left out.
    counts: dict[str, int]
    # The handler's duration of the attempts that have one, nearest-rank percentiles; null when none has.
    p50_ms: int | None = None
    p99_ms: int | None = None


class DeliveryStatsAnswer(WireModel):
    window: StatsWindow
    bucket_seconds: int
    since: str
    until: str
    total: int
    p50_ms: int | None = None
    p99_ms: int | None = None
    buckets: list[StatsBucket]
    # True when the window held more attempts than one answer reads (MAX_STATS_ROWS): the counts are of the
    # most recent ones only.
    truncated: bool = False
    errors: list[str] = Field(default_factory=list)
