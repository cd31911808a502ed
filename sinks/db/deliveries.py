"""The delivery pipeline's writes: the QUEUED record, claims, results, retries and the reconciler's sweeps.

Each function is one unit of work for a :class:`~sinks.db.group_commit.GroupCommitter` (it takes a session
and never commits itself). Status moves are compare-and-set on the current status, so a redelivered Kafka
record or a second worker never runs the same attempt twice. A PROCESSING attempt carries a lease its
worker renews (core/leases.py): only an attempt whose lease has run out is failed as lost.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, and_, bindparam, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from core import leases
from schemas.deliveries import DeliveryTask
from schemas.webhooks import ExecutionStatus
from sinks import credentials
from sinks.db import executions
from sinks.db.deferred import defer_insert
from sinks.db.models import Webhook, WebhookExecution, WebhookKey, WebhookPayload

QUEUED, PROCESSING = ExecutionStatus.QUEUED.value, ExecutionStatus.PROCESSING.value
_PAYLOADS = cast(Table, WebhookPayload.__table__)
_ENTRIES = cast(Table, WebhookExecution.__table__)
# The worker's per-delivery moves, compare-and-set on the status, as Core statements built once. A claim
# moves all of a company's tasks in a batch in one statement (the ids expand into an IN list).
_CLAIM = (
    update(_ENTRIES)
    .where(
        _ENTRIES.c.id.in_(bindparam("entry_ids", expanding=True)),
        _ENTRIES.c.company_id == bindparam("company"),
        _ENTRIES.c.status == QUEUED,
    )
    .values(status=PROCESSING, started_at=bindparam("now"), lease_until=bindparam("lease_until"))
    .returning(_ENTRIES.c.id, _ENTRIES.c.transformed_variables, _ENTRIES.c.trace_parent, _ENTRIES.c.queued_at)
)
# The acting worker's lease renewal: every attempt it acts on in one statement.
_RENEW = (
    update(_ENTRIES)
    .where(_ENTRIES.c.id.in_(bindparam("entry_ids", expanding=True)), _ENTRIES.c.status == PROCESSING)
    .values(lease_until=bindparam("until"))
)
# Attempts per lease renewal statement: far below every backend's limit on bound values.
_RENEW_CHUNK = 10_000
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
_CONFIG = select(Webhook.config_json).where(Webhook.id == bindparam("webhook"))
_RETRY_FIELDS = (
    "execution_id",
    "webhook_id",
    "company_id",
    "payload_id",
    "attempt_number",
    "resource_type",
    "resource_id",
    "webhook_name",
    "http_method",
    "source_ip",
    "transform_type",
    "transformed_variables",
    "trace_parent",
)
# Outcomes are written together (``finish_all``): one read of the entries still PROCESSING (locked on
# PostgreSQL; on SQLite the batch holds the write lock), then one executemany of the compare-and-set.
_PROCESSING = (
    select(_ENTRIES.c.id, _ENTRIES.c.started_at, *(_ENTRIES.c[name] for name in _RETRY_FIELDS))
    .where(_ENTRIES.c.id.in_(bindparam("entry_ids", expanding=True)), _ENTRIES.c.status == PROCESSING)
    .with_for_update()
)
_FINISH = (
    update(_ENTRIES)
    .where(_ENTRIES.c.id == bindparam("entry_id"), _ENTRIES.c.status == PROCESSING)
    .values(
        status=bindparam("new_status"),
        ended_at=bindparam("ended"),
        duration_ms=bindparam("duration"),
        resource_request_json=bindparam("request"),
        resource_response_json=bindparam("response"),
        error_message=bindparam("error"),
    )
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


def record_delivery(session: Session, delivery: Delivery) -> DeliveryTask:
    """Write the first attempt: QUEUED (dispatched now), FILTERED when the webhook's filter dropped it, or,
    when the transform failed, TRANSFORM_FAILED.

    Plain rows rather than ORM objects, inserted with the rest of the group commit's deliveries when it
    commits (``sinks/db/deferred.py``): this runs once per accepted delivery on the trigger's hot path.
    """
    target = delivery.target
    payload_id, entry_id = credentials.new_id(), credentials.new_id()
    failed = delivery.transform_error is not None
    ended = failed or delivery.filtered
    status = ExecutionStatus.TRANSFORM_FAILED.value if failed else QUEUED
    if delivery.filtered:
        status = ExecutionStatus.FILTERED.value
    defer_insert(
        session,
        _PAYLOADS,
        dict(
            id=payload_id,
            company_id=target.company_id,
            webhook_id=target.webhook_id,
            request_payload=delivery.payload,
            request_headers=delivery.headers_json,
            request_query_params=delivery.query_json,
        ),
    )
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
            available_at=delivery.received_at,
            dispatched_at=None if ended else delivery.received_at,
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


def _task(entry: WebhookExecution) -> DeliveryTask:
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


@dataclass(frozen=True)
class Attempt:
    """A claimed attempt with everything the handler call needs."""

    task: DeliveryTask
    started_at: datetime
    config: dict[str, Any]
    variables: dict[str, str]
    trace_parent: str | None = None
    queued_at: datetime | None = None


def claim(
    session: Session, tasks: list[DeliveryTask], now: datetime, lease_until: datetime | None = None
) -> list[Attempt]:
    """QUEUED → PROCESSING, with its lease, for each task whose entry is still QUEUED; the others were
    already taken."""
    claimed: list[Attempt] = []
    configs: dict[str, dict[str, Any]] = {}
    # Core statements on the session's connection (same transaction): the ORM's handling of a statement
    # costs more than running it, and these touch no ORM objects. One UPDATE per company in the batch
    # (tenancy stays in the WHERE clause), not one per task.
    connection = session.connection()
    by_company: dict[str, list[str]] = {}
    for task in tasks:
        by_company.setdefault(task.company_id, []).append(task.entry_id)
    # Entry id -> (company, transformed variables, traceparent, queued at) of the entries this claim moved.
    moved: dict[str, tuple[str, str | None, str | None, datetime | None]] = {}
    for company, entry_ids in by_company.items():
        rows = connection.execute(
            _CLAIM,
            {
                "entry_ids": list(dict.fromkeys(entry_ids)),
                "company": company,
                "now": now,
                "lease_until": lease_until,
            },
        )
        for entry_id, variables_json, trace_parent, queued_at in rows:
            moved[entry_id] = (company, variables_json, trace_parent, queued_at)
    for task in tasks:
        found = moved.get(task.entry_id)
        if found is None or found[0] != task.company_id:
            continue
        del moved[task.entry_id]  # a task repeated in the batch (a redelivered record) is claimed once
        executions.bump(session, task.webhook_id, QUEUED, -1)
        executions.bump(session, task.webhook_id, PROCESSING, 1)
        if task.webhook_id not in configs:
            config_json = connection.execute(_CONFIG, {"webhook": task.webhook_id}).scalar_one()
            configs[task.webhook_id] = json.loads(config_json)
        claimed.append(
            Attempt(
                task=task,
                started_at=now,
                config=configs[task.webhook_id],
                variables=json.loads(found[1] or "{}"),
                trace_parent=found[2],
                queued_at=found[3],
            )
        )
    return claimed


@dataclass(frozen=True)
class Finish:
    task: DeliveryTask
    ok: bool
    request_json: str | None
    response_json: str | None
    error_message: str | None
    ended_at: datetime
    retry_at: datetime | None
    started_at: datetime | None = None  # when the attempt was claimed; durationMs counts from it


def finish(session: Session, result: Finish) -> DeliveryTask | None:
    """PROCESSING → SUCCESS/FAILED; a failure with attempts left queues the next attempt (not yet due)."""
    return finish_all(session, [result])[0]


def finish_all(session: Session, results: list[Finish]) -> list[DeliveryTask | None]:
    """``finish`` for many outcomes in two statements; an entry no longer PROCESSING (or named twice) is left
    as it is and its result is None."""
    connection = session.connection()  # Core statements: no ORM handling needed
    ids = list(dict.fromkeys(result.task.entry_id for result in results))
    entries = {row.id: row._mapping for row in connection.execute(_PROCESSING, {"entry_ids": ids})}
    updates: list[dict[str, Any]] = []
    retries: list[DeliveryTask | None] = []
    for result in results:
        entry = entries.pop(result.task.entry_id, None)
        if entry is None:
            retries.append(None)
            continue
        status = ExecutionStatus.SUCCESS.value if result.ok else ExecutionStatus.FAILED.value
        started = result.started_at or entry["started_at"] or result.ended_at
        updates.append(
            {
                "entry_id": result.task.entry_id,
                "new_status": status,
                "ended": result.ended_at,
                "duration": max(0, int((result.ended_at - started).total_seconds() * 1000)),
                "request": result.request_json,
                "response": result.response_json,
                "error": result.error_message,
            }
        )
        executions.bump(session, entry["webhook_id"], PROCESSING, -1)
        executions.bump(session, entry["webhook_id"], status, 1)
        retries.append(_next_attempt(session, entry, result))
    if updates:
        connection.execute(_FINISH, updates)
    return retries


def _next_attempt(session: Session, entry: Any, result: Finish) -> DeliveryTask | None:
    if result.ok or result.retry_at is None:
        return None
    retry = executions.add_entry(
        session,
        WebhookExecution(
            id=credentials.new_id(),
            **{name: entry[name] for name in _RETRY_FIELDS if name != "attempt_number"},
            attempt_number=entry["attempt_number"] + 1,
            status=QUEUED,
            queued_at=result.ended_at,
            available_at=result.retry_at,
            dispatched_at=None,
        ),
    )
    return _task(retry)


def take_due(session: Session, now: datetime, limit: int) -> list[DeliveryTask]:
    """Attempts that are due and were never handed to Kafka (retries); marks them dispatched."""
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
    return [_task(entry) for entry in due]


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
    return [_task(entry) for entry in lost]


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
) -> list[tuple[DeliveryTask, int]]:
    """PROCESSING attempts whose worker vanished: their lease ran out (the worker stopped renewing it) or,
    for an attempt without a lease, they are running longer than their webhook's timeout plus ``grace``.
    How long a leased attempt has run does not matter (nor does a timeout changed since it started). The
    attempts of ``acting`` are this process's own, still within their cap. Returns each with the webhook's
    maxRetries so the caller can fail it and queue the next attempt."""
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
        settings = json.loads(config_json).get("executionSettings", {})
        timeout = timedelta(seconds=int(settings.get("timeoutSeconds", 300)))
        if leases.abandoned(now, entry.started_at, entry.lease_until, timeout + grace):
            found.append((_task(entry), int(settings.get("maxRetries", 3))))
    return found
