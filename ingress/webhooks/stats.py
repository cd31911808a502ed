"""``POST /svc_poweruser/custom-webhooks/get-delivery-stats``: a webhook's attempts of the last hour (per
minute) or day (per half hour) by status, and the handler's latency p50 and p99; ``READ`` or higher, as the
history. The database counts the window's attempts per bucket and status (at most MAX_STATS_ROWS of them,
the newest) from the per-status history index alone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi import APIRouter

from core.webhooks.stats import buckets, percentile
from ingress.deps import DbSession, PoweruserCaller
from ingress.webhooks.manage import _visible
from schemas.base import iso_utc
from schemas.delivery_stats import (
    BUCKET_SECONDS,
    WINDOW_SECONDS,
    DeliveryStatsAnswer,
    DeliveryStatsRequest,
    StatsBucket,
)
from schemas.enums import AccessLevel
from sinks.db.webhooks import executions

router = APIRouter(prefix="/svc_poweruser/custom-webhooks", tags=["custom webhooks"])
MAX_STATS_ROWS = 100_000


@router.post("/get-delivery-stats", response_model=DeliveryStatsAnswer, response_model_by_alias=True)
def get_delivery_stats(
    body: DeliveryStatsRequest, caller: PoweruserCaller, session: DbSession
) -> DeliveryStatsAnswer:
    visible = _visible(session, caller, body.webhook_id, AccessLevel.READ)
    until = datetime.now(UTC)
    since = until - timedelta(seconds=WINDOW_SECONDS[body.window])
    step = BUCKET_SECONDS[body.window]
    groups, truncated = executions.attempt_groups(
        session, caller.company_id, visible.webhook.id, since, step, MAX_STATS_ROWS
    )
    found = buckets(groups, since, until, step)
    durations = [duration for bucket in found for duration in bucket.durations]
    return DeliveryStatsAnswer(
        window=body.window,
        bucket_seconds=step,
        since=iso_utc(since) or "",
        until=iso_utc(until) or "",
        total=sum(sum(bucket.counts.values()) for bucket in found),
        p50_ms=percentile(durations, 0.5),
        p99_ms=percentile(durations, 0.99),
        buckets=[
            StatsBucket(
                start=iso_utc(bucket.start) or "",
                counts=dict(sorted(bucket.counts.items())),
                p50_ms=percentile(bucket.durations, 0.5),
                p99_ms=percentile(bucket.durations, 0.99),
            )
            for bucket in found
        ],
        truncated=truncated,
    )
