"""The clients the public trigger uses, as one object built at start.

The trigger is served ahead of FastAPI's router (``trigger_fast_path.py``), outside dependency injection, so
it takes what it uses in one object instead of one dependency per client; every other route declares each
client it uses (``ingress/deps.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from ingress.auth_throttle import AuthThrottle
from ingress.ratelimit import RateLimiter
from ingress.webhooks.trigger_targets import TriggerTargets
from schemas.settings import Settings
from sinks.db.group_commit import GroupCommitter
from sinks.iceberg.masking import Masker
from sinks.kafka import Publisher
from sinks.objectstore import ObjectStore
from sinks.telemetry import Spans


@dataclass(frozen=True)
class TriggerClients:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    publisher: Publisher
    webhook_limiter: RateLimiter
    committer: GroupCommitter
    masker: Masker
    trigger_targets: TriggerTargets
    auth_throttle: AuthThrottle
    # Where a request body over SVC_INLINE_BODY_BYTES is kept (sinks/webhook_bodies.py).
    store: ObjectStore
    # Spans of webhook deliveries, exported when SVC_OTLP_ENDPOINT is set (sinks/telemetry.py).
    spans: Spans
