"""The timers' work on delivery attempts: hand due retries to Kafka, hand out again the QUEUED attempts
whose record was lost, renew the leases of the attempts a worker acts on, and find the PROCESSING attempts
whose worker stopped renewing them (core/leases.py), which the reconciler fails as lost.

Units of work for a :class:`~sinks.db.group_commit.GroupCommitter` (they take a session and never commit),
beside sinks/db/webhooks/delivery_attempts.py (an attempt's claim and outcome).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Table, and_, bindparam, exists, or_, select, update
from sqlalchemy.orm import Session

from core import leases
from schemas.deliveries import DeliveryTask
from schemas.webhooks import StoredWebhookConfig
from sinks.db.index_hints import unindexed
from sinks.db.models import Webhook, WebhookExecution
from sinks.db.webhooks import destinations
from sinks.db.webhooks.deliveries import PROCESSING, QUEUED, task_of

_ENTRIES = cast(Table, WebhookExecution.__table__)
# The acting worker's lease renewal: every attempt it acts on in one statement.
_RENEW = (
    update(_ENTRIES)
    .where(
        _ENTRIES.c.id.in_(bindparam("entry_ids", expanding=True)),
        unindexed(_ENTRIES.c.status) == PROCESSING,  # by the ids' own index (index_hints.unindexed)
    )
    .values(lease_until=bindparam("until"))
)
# The WHERE clause of take_due.
_DUE_PROBE = select(
    exists().where(
        _ENTRIES.c.status == QUEUED,
        _ENTRIES.c.dispatched_at.is_(None),
        _ENTRIES.c.available_at <= bindparam("now"),
    )
)
# Attempts per lease renewal statement: far below every backend's limit on bound values.
_RENEW_CHUNK = 10_000


def take_due(session: Session, now: datetime, limit: int) -> list[DeliveryTask]:
    """Attempts that are due and were never handed to Kafka (retries); marks them dispatched."""
    # The leader's timer asks twice a second and nearly always finds none: a prebuilt EXISTS answers that
    # for a fraction of what building and loading the ORM query costs.
    if not session.connection().execute(_DUE_PROBE, {"now": now}).scalar():
        return []
    due = list(
        session.scalars(
            select(WebhookExecution)
            .where(
                WebhookExecution.status == QUEUED,
                WebhookExecution.dispatched_at.is_(None),
                WebhookExecution.available_at <= now,
            )
            .order_by(WebhookExecution.available_at)
            .limit(limit)
        )
    )
    for entry in due:
        entry.dispatched_at = now
    return [task_of(entry) for entry in due]


def take_lost(session: Session, now: datetime, queued_grace: timedelta, limit: int) -> list[DeliveryTask]:
    """QUEUED attempts handed to Kafka longer than ``queued_grace`` ago and still not claimed: the record was
    lost (an in-memory broker restarted) or is stuck; hand them over again (claims are idempotent)."""
    lost = list(
        session.scalars(
            select(WebhookExecution)
            .where(WebhookExecution.status == QUEUED, WebhookExecution.dispatched_at < now - queued_grace)
            .order_by(WebhookExecution.dispatched_at)
            .limit(limit)
        )
    )
    for entry in lost:
        entry.dispatched_at = now
    return [task_of(entry) for entry in lost]


def renew_leases(session: Session, entry_ids: list[str], until: datetime) -> int:
    """Extend the leases of the attempts this process acts on to ``until``: one statement for all of them
    (per ``_RENEW_CHUNK``). An attempt no longer PROCESSING is left as it is. Returns how many were renewed.
    By entry id alone, without a company: the ids are the ones this worker's own claims returned."""
    connection = session.connection()
    renewed = 0
    for first in range(0, len(entry_ids), _RENEW_CHUNK):
        chunk = entry_ids[first : first + _RENEW_CHUNK]
        renewed += int(connection.execute(_RENEW, {"entry_ids": chunk, "until": until}).rowcount)
    return renewed


def abandoned(
    session: Session, now: datetime, grace: timedelta, limit: int, acting: Collection[str] = ()
) -> list[tuple[DeliveryTask, int, str | None]]:
    """PROCESSING attempts whose worker vanished: their lease ran out (the worker stopped renewing it) or,
    for an attempt without a lease, they are running longer than their webhook's timeout plus ``grace``.
    How long a leased attempt has run does not matter (nor does a timeout changed since it started). The
    attempts of ``acting`` are this process's own, still within their cap. Returns each with the webhook's
    maxRetries, so the caller can fail it and queue the next attempt, and the destination it called."""
    query = (
        select(WebhookExecution, Webhook.config_json)
        .join(Webhook, Webhook.id == WebhookExecution.webhook_id)
        .where(
            WebhookExecution.status == PROCESSING,
            or_(
                WebhookExecution.lease_until < now,
                and_(WebhookExecution.lease_until.is_(None), WebhookExecution.started_at < now - grace),
            ),
        )
    )
    if acting:
        query = query.where(WebhookExecution.id.not_in(list(acting)))
    rows = session.execute(query.order_by(WebhookExecution.started_at).limit(limit)).all()
    found = []
    for entry, config_json in rows:
        settings = StoredWebhookConfig.model_validate_json(config_json).execution_settings
        timeout = timedelta(seconds=settings.timeout_seconds)
        if leases.abandoned(now, entry.started_at, entry.lease_until, timeout + grace):
            destination = destinations.of(entry.resource_type, entry.resource_id)
            found.append((task_of(entry), settings.max_retries, destination))
    return found
