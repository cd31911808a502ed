"""Long-lived clients of one ingress process, owned by the app's lifespan."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from ingress.analytics.inline_queries import InlineQueries
from ingress.auth_throttle import AuthThrottle
from ingress.ratelimit import RateLimiter, RowQuota
from ingress.shared_counts import SharedCounts
from ingress.webhooks.trigger_targets import TriggerTargets
from schemas.settings import Settings
from sinks.db.group_commit import GroupCommitter
from sinks.iceberg.masking import Masker
from sinks.iceberg.read_cache import TableReads
from sinks.kafka import Publisher
from sinks.objectstore import ObjectStore
from sinks.telemetry import Spans, off


@dataclass
class Services:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    publisher: Publisher
    limiter: RateLimiter
    webhook_limiter: RateLimiter
    committer: GroupCommitter
    append_quota: RowQuota
    catalog: Any
    masker: Masker
    registry: CollectorRegistry
    store: ObjectStore
    reads: TableReads
    trigger_targets: TriggerTargets
    # Rate limits and failed-authentication counts, shared with the other ingress processes through the DB.
    counts: SharedCounts
    auth_throttle: AuthThrottle
    # Short queries run here while their caller waits (ingress/analytics/inline_queries.py).
    inline: InlineQueries
    # Spans of webhook deliveries, exported when SVC_OTLP_ENDPOINT is set (sinks/telemetry.py).
    spans: Spans = field(default_factory=off)
