"""The clients the trigger and the replay take as one object.

Transitional: every other route declares each client it uses (``ingress/deps.py``); the trigger's and the
replay's modules take this one until they move to the same narrow dependencies."""

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
from sinks.telemetry import Spans


@dataclass(frozen=True)
class Services:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    publisher: Publisher
    webhook_limiter: RateLimiter
    committer: GroupCommitter
    masker: Masker
    trigger_targets: TriggerTargets
    auth_throttle: AuthThrottle
    # Spans of webhook deliveries, exported when SVC_OTLP_ENDPOINT is set (sinks/telemetry.py).
    spans: Spans
