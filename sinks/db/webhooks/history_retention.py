"""Deleting execution history past its retention: whole deliveries (every attempt of an execution received
before the cutoff, once none of them is still QUEUED or PROCESSING), their payloads when no replay still
shares them, and their replay records, keeping the per-status counts exact in the same transaction."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Select, Table, delete, exists, select
from sqlalchemy.orm import Session, aliased

from schemas.webhooks import ExecutionStatus
from sinks.db.index_hints import unindexed
from sinks.db.models import Webhook, WebhookExecution, WebhookPayload, WebhookReplay
from sinks.db.webhooks import executions

_ENTRIES = cast(Table, WebhookExecution.__table__)
_PAYLOADS = cast(Table, WebhookPayload.__table__)
_REPLAYS = cast(Table, WebhookReplay.__table__)
_IN_FLIGHT = (ExecutionStatus.QUEUED.value, ExecutionStatus.PROCESSING.value)


@dataclass
class Deleted:
    executions: int = 0
    entries: int = 0
    payloads: int = 0
    # Object-store keys of the deleted payloads' bodies (stored by reference): the caller deletes them after
    # the transaction commits.
    body_keys: list[str] = field(default_factory=list)


def webhooks_of(session: Session, company_id: str) -> list[str]:
    return list(
        session.scalars(select(Webhook.id).where(Webhook.company_id == company_id).order_by(Webhook.id))
    )


def _expired(company_id: str, webhook_id: str, cutoff: datetime) -> Select[Any]:
    """The webhook's deliveries received before ``cutoff`` with no attempt in flight, oldest first. It walks
    the history index, so it costs what it finds, not the table's size."""
    later = aliased(_ENTRIES)
    in_flight = exists().where(
        later.c.execution_id == _ENTRIES.c.execution_id, later.c.status.in_(_IN_FLIGHT)
    )
    return (
        select(_ENTRIES.c.execution_id)
        .where(
            _ENTRIES.c.company_id == company_id,
            _ENTRIES.c.webhook_id == webhook_id,
            _ENTRIES.c.queued_at < cutoff,
            _ENTRIES.c.attempt_number == 1,
            ~in_flight,
        )
        .order_by(_ENTRIES.c.queued_at)
    )


def any_expired(session: Session, company_id: str, webhook_id: str, cutoff: datetime) -> bool:
    """A read, so the sweep takes no write lock for a webhook with nothing to delete."""
    return session.scalar(_expired(company_id, webhook_id, cutoff).limit(1)) is not None


def delete_expired(
    session: Session, company_id: str, webhook_id: str, cutoff: datetime, limit: int
) -> Deleted:
    """Up to ``limit`` of the webhook's deliveries received before ``cutoff``, oldest first, with everything
    that is theirs alone."""
    done = list(session.scalars(_expired(company_id, webhook_id, cutoff).limit(limit)))
    if not done:
        return Deleted()
    return _delete(session, company_id, done)


def _delete(session: Session, company_id: str, execution_ids: Sequence[str]) -> Deleted:
    removed = session.execute(
        delete(_ENTRIES)
        .where(unindexed(_ENTRIES.c.company_id) == company_id, _ENTRIES.c.execution_id.in_(execution_ids))
        .returning(_ENTRIES.c.webhook_id, _ENTRIES.c.status, _ENTRIES.c.payload_id)
    ).all()
    for (webhook_id, status), entries in Counter((row[0], row[1]) for row in removed).items():
        executions.bump(session, webhook_id, status, -entries)
    payload_ids = sorted({row[2] for row in removed})
    # A replay shares its original's payload: the payload goes once no entry names it.
    unshared = ~exists().where(_ENTRIES.c.payload_id == _PAYLOADS.c.id)
    gone = session.execute(
        delete(_PAYLOADS).where(_PAYLOADS.c.id.in_(payload_ids), unshared).returning(_PAYLOADS.c.body_key)
    ).all()
    session.execute(
        delete(_REPLAYS).where(
            _REPLAYS.c.execution_id.in_(execution_ids),
            ~exists().where(_ENTRIES.c.execution_id == _REPLAYS.c.execution_id),
        )
    )
    return Deleted(
        executions=len(execution_ids),
        entries=len(removed),
        payloads=len(gone),
        body_keys=[key for (key,) in gone if key],
    )
