"""Long-lived clients of one ingress process, owned by the app's lifespan."""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from ingress.ratelimit import RateLimiter
from schemas.settings import Settings
from sinks.db.group_commit import GroupCommitter
from sinks.kafka import Publisher


@dataclass
class Services:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    publisher: Publisher
    limiter: RateLimiter
    webhook_limiter: RateLimiter
    committer: GroupCommitter
    registry: CollectorRegistry
