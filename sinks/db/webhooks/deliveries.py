"""The delivery pipeline's side in the trigger: the webhook and key a request names, and the first attempt's
record (QUEUED, FILTERED or TRANSFORM_FAILED), or its failure when the broker refused it.

Each write is one unit of work for a :class:`~sinks.db.group_commit.GroupCommitter` (it takes a session and
never commits itself). What the worker does to an attempt next is in sinks/db/webhooks/delivery_attempts.py
(claim, outcome, the next attempt) and sinks/db/webhooks/delivery_sweeps.py (due retries, lost records,
leases).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, bindparam, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from core.webhooks.bodies import Offloaded
from schemas.deliveries import DeliveryTask
from schemas.webhooks import ExecutionStatus, StoredWebhookConfig
from sinks import credentials
from sinks.db.deferred import defer_insert
from sinks.db.models import Webhook, WebhookExecution, WebhookKey, WebhookPayload
from sinks.db.webhooks import executions

QUEUED, PROCESSING = ExecutionStatus.QUEUED.value, ExecutionStatus.PROCESSING.value
_PAYLOADS = cast(Table, WebhookPayload.__table__)
_ENTRIES = cast(Table, WebhookExecution.__table__)
# Columns, not entities: the trigger reads this once per request and needs no ORM identity.
_TARGET = (
    select(
        Webhook.id,
        Webhook.company_id,
        Webhook.name,
        Webhook.is_enabled,
        Webhook.config_json,
        WebhookKey.id.label("key_id"),
        WebhookKey.secret_digest,
        WebhookKey.enabled.label("key_enabled"),
    )
    .outerjoin(
        WebhookKey, (WebhookKey.webhook_id == Webhook.id) & (WebhookKey.company_id == Webhook.company_id)
    )
    .where(Webhook.id == bindparam("webhook"))
)


@dataclass(frozen=True)
class TriggerTarget:
    webhook_id: str
    company_id: str
    name: str
    is_enabled: bool
    config: dict[str, Any]
    key_id: str | None
    key_digest: str | None
    key_enabled: bool
    # ``config`` typed, parsed once per target: the trigger keeps its targets a moment
    # (ingress/webhooks/trigger_targets.py), so a delivery reads the configuration without parsing it.
    webhook_config: StoredWebhookConfig = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "webhook_config", StoredWebhookConfig.model_validate(self.config))


def load_target(session: Session | Connection, webhook_id: str) -> TriggerTarget | None:
    """The public trigger knows only the webhook id; the webhook row names its company."""
    row = session.execute(_TARGET, {"webhook": webhook_id}).first()
    if row is None:
        return None
    return TriggerTarget(
        webhook_id=row.id,
        company_id=row.company_id,
        name=row.name,
        is_enabled=row.is_enabled,
        config=json.loads(row.config_json),
        key_id=row.key_id,
        key_digest=row.secret_digest,
        key_enabled=bool(row.key_id and row.key_enabled),
    )


def key_owner(session: Session | Connection, key_id: str) -> str | None:
    return session.scalar(select(WebhookKey.webhook_id).where(WebhookKey.id == key_id))


@dataclass(frozen=True)
class Delivery:
    """What the trigger endpoint knows about one accepted (or transform-failed) request."""

    execution_id: str
    target: TriggerTarget
    http_method: str
    source_ip: str | None
    headers_json: str
    query_json: str
    payload: str
    transform_type: str
    variables_json: str | None
    transform_error: str | None
    resource_type: str | None
    resource_id: str | None
    received_at: datetime
    # Did not match the webhook's filterConfig: recorded FILTERED and never queued. ``filter_note`` says why
    # when the filter could not be evaluated in full.
    filtered: bool = False
    filter_note: str | None = None
    # The ingress span's W3C traceparent (core/tracing.py); every attempt keeps it.
    trace_parent: str | None = None
    # A replay re-sends its original's stored request unchanged: it shares that payload row (the largest of
    # a delivery's writes) instead of writing a copy.
    payload_id: str | None = None
    # QUEUED but not handed to Kafka now: the worker's sweep of due attempts hands it over at this time.
    hold_until: datetime | None = None
    # A body over SVC_INLINE_BODY_BYTES, put in the object store already: the new payload row records its
    # reference and an empty ``request_payload`` (sinks/webhook_bodies.py).
    offloaded: Offloaded | None = None


def record_delivery(session: Session, delivery: Delivery) -> DeliveryTask:
    """Write the first attempt: QUEUED (dispatched now), FILTERED when the webhook's filter dropped it, or,
    when the transform failed, TRANSFORM_FAILED.

    Plain rows rather than ORM objects, inserted with the rest of the group commit's deliveries when it
    commits (``sinks/db/deferred.py``): this runs once per accepted delivery on the trigger's hot path.
    """
    target = delivery.target
    entry_id = credentials.new_id()
    failed = delivery.transform_error is not None
    ended = failed or delivery.filtered
    status = ExecutionStatus.TRANSFORM_FAILED.value if failed else QUEUED
    if delivery.filtered:
        status = ExecutionStatus.FILTERED.value
    payload_id = delivery.payload_id
    if payload_id is None:
        offloaded = delivery.offloaded
        payload_id = credentials.new_id() if offloaded is None else offloaded.payload_id
        ref = None if offloaded is None else offloaded.ref
        # Every row names the same columns: the group commit inserts its rows as one executemany.
        defer_insert(
            session,
            _PAYLOADS,
            dict(
                id=payload_id,
                company_id=target.company_id,
                webhook_id=target.webhook_id,
                request_payload=delivery.payload if ref is None else "",
                request_headers=delivery.headers_json,
                request_query_params=delivery.query_json,
                body_key=None if ref is None else ref.key,
                body_bytes=None if ref is None else ref.size,
                body_sha256=None if ref is None else ref.sha256,
            ),
        )
    held = not ended and delivery.hold_until is not None
    defer_insert(
        session,
        _ENTRIES,
        dict(
            id=entry_id,
            execution_id=delivery.execution_id,
            webhook_id=target.webhook_id,
            company_id=target.company_id,
            payload_id=payload_id,
            attempt_number=1,
            status=status,
            resource_type=delivery.resource_type,
            resource_id=delivery.resource_id,
            queued_at=delivery.received_at,
            ended_at=delivery.received_at if ended else None,
            duration_ms=0 if ended else None,
            webhook_name=target.name,
            http_method=delivery.http_method,
            source_ip=delivery.source_ip,
            transform_type=delivery.transform_type,
            transformed_variables=delivery.variables_json,
            transform_error=delivery.transform_error,
            error_message=delivery.transform_error or delivery.filter_note,
            available_at=delivery.hold_until if held else delivery.received_at,
            dispatched_at=None if ended or held else delivery.received_at,
            trace_parent=delivery.trace_parent,
        ),
    )
    executions.bump(session, target.webhook_id, status, 1)
    return DeliveryTask(
        entry_id=entry_id,
        execution_id=delivery.execution_id,
        webhook_id=target.webhook_id,
        company_id=target.company_id,
        attempt_number=1,
    )


def task_of(entry: WebhookExecution) -> DeliveryTask:
    """The Kafka record of an entry's attempt."""
    return DeliveryTask(
        entry_id=entry.id,
        execution_id=entry.execution_id,
        webhook_id=entry.webhook_id,
        company_id=entry.company_id,
        attempt_number=entry.attempt_number,
    )


def mark_not_queued(session: Session, entry_id: str, message: str, now: datetime) -> None:
    """The broker refused the record: the caller gets a 500 and the entry says why."""
    entry = session.get(WebhookExecution, entry_id)
    if entry is not None and entry.status == QUEUED:
        executions.set_status(session, entry, ExecutionStatus.FAILED)
        entry.error_message = message
        entry.ended_at = now
        entry.duration_ms = 0
