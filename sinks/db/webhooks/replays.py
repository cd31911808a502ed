"""Webhook replay in the metadata DB: find the executions a replay names, read their stored requests, and
record the replays through the delivery path's own ``record_delivery`` (QUEUED, FILTERED or
TRANSFORM_FAILED, counted like any delivery), with their pacing slots and their ``replayOf``.

A replayed execution whose slot is not due yet is written QUEUED with ``dispatched_at`` NULL and
``available_at`` at its slot: the worker's sweep of due attempts (the one that hands retries to Kafka) hands
it over then, and nothing of the pacing lives outside the database. A replay shares its original's payload
row (the stored request it re-sends, unchanged) rather than writing a copy of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Table, bindparam, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, aliased

from core.webhooks.bodies import StoredBody, stored_body
from core.webhooks.replay import due_now, schedule
from schemas.deliveries import DeliveryTask
from schemas.webhooks import ExecutionStatus
from sinks.db.deferred import defer_insert
from sinks.db.index_hints import unindexed
from sinks.db.models import ReplayPacer, WebhookExecution, WebhookPayload, WebhookReplay
from sinks.db.webhooks import deliveries
from sinks.db.webhooks.deliveries import Delivery

_REPLAYS = cast(Table, WebhookReplay.__table__)
_PACERS = cast(Table, ReplayPacer.__table__)
_ENTRIES = cast(Table, WebhookExecution.__table__)
_PAYLOADS = cast(Table, WebhookPayload.__table__)
# Ids per IN list: far below every backend's limit on bound values.
_IN_CHUNK = 1_000


def _chunks(ids: Sequence[str]) -> list[Sequence[str]]:
    return [ids[first : first + _IN_CHUNK] for first in range(0, len(ids), _IN_CHUNK)]


# The statements a replay runs per step, built once (Core, on the session's connection): building and
# running them through the ORM cost more than the work they do.
_RECEIVED = select(_ENTRIES.c.execution_id, _ENTRIES.c.queued_at).where(
    unindexed(_ENTRIES.c.company_id) == bindparam("company"),
    unindexed(_ENTRIES.c.webhook_id) == bindparam("webhook"),
    _ENTRIES.c.attempt_number == 1,
    _ENTRIES.c.execution_id.in_(bindparam("ids", expanding=True)),
)
_STORED = (
    select(
        _ENTRIES.c.execution_id,
        _ENTRIES.c.http_method,
        _ENTRIES.c.source_ip,
        _PAYLOADS.c.request_payload,
        _PAYLOADS.c.body_key,
        _PAYLOADS.c.body_bytes,
        _PAYLOADS.c.body_sha256,
        _PAYLOADS.c.request_headers,
        _PAYLOADS.c.request_query_params,
        _PAYLOADS.c.id,
    )
    .join(_PAYLOADS, _PAYLOADS.c.id == _ENTRIES.c.payload_id)
    .where(
        unindexed(_ENTRIES.c.company_id) == bindparam("company"),
        unindexed(_PAYLOADS.c.company_id) == bindparam("company"),
        _ENTRIES.c.attempt_number == 1,
        _ENTRIES.c.execution_id.in_(bindparam("ids", expanding=True)),
    )
)
_PACER_CREATE = {
    name: dialect.insert(_PACERS)
    .values(company_id=bindparam("company"), next_slot_at=bindparam("now"))
    .on_conflict_do_nothing(index_elements=["company_id"])
    for name, dialect in (("postgresql", postgresql), ("sqlite", sqlite))
}
_PACER_NEXT = (
    select(_PACERS.c.next_slot_at).where(_PACERS.c.company_id == bindparam("company")).with_for_update()
)
_PACER_MOVE = (
    update(_PACERS)
    .where(_PACERS.c.company_id == bindparam("company"))
    .values(next_slot_at=bindparam("next_free"))
)


def received_times(
    session: Session, company_id: str, webhook_id: str, execution_ids: Sequence[str]
) -> dict[str, datetime]:
    """When the original request of each named execution of this webhook arrived (its first attempt's
    queued time). Ids of another webhook or company are simply absent: tenancy is in the WHERE clause."""
    found: dict[str, datetime] = {}
    connection = session.connection()
    for chunk in _chunks(list(dict.fromkeys(execution_ids))):
        rows = connection.execute(_RECEIVED, {"company": company_id, "webhook": webhook_id, "ids": chunk})
        found.update({execution_id: queued_at for execution_id, queued_at in rows})
    return found


def by_filter(
    session: Session,
    company_id: str,
    webhook_id: str,
    status: ExecutionStatus | None,
    start: datetime | None,
    end: datetime | None,
    limit: int,
) -> tuple[int, list[str]]:
    """(how many executions match, the oldest ``limit`` of them). An execution's status is its latest
    attempt's; ``start``/``end`` bound when its original request arrived."""
    first = aliased(WebhookExecution)
    query = select(first.execution_id).where(
        first.company_id == company_id, first.webhook_id == webhook_id, first.attempt_number == 1
    )
    if start is not None:
        query = query.where(first.queued_at >= start)
    if end is not None:
        query = query.where(first.queued_at < end)
    if status is not None:
        latest = aliased(WebhookExecution)
        current = (
            select(latest.status)
            .where(latest.company_id == company_id, latest.execution_id == first.execution_id)
            .order_by(latest.attempt_number.desc())
            .limit(1)
            .scalar_subquery()
        )
        query = query.where(current == status.value)
    matched = int(session.scalar(select(func.count()).select_from(query.subquery())) or 0)
    oldest = query.order_by(first.queued_at, first.execution_id).limit(limit)
    return matched, list(session.scalars(oldest))


@dataclass(frozen=True)
class StoredRequest:
    """An execution's original request as the history stored it (secret headers already redacted)."""

    execution_id: str
    http_method: str
    source_ip: str | None
    # Inline, or a reference to read with sinks/webhook_bodies.py.
    body: StoredBody
    headers_json: str
    query_json: str | None
    payload_id: str


def stored_requests(session: Session, company_id: str, execution_ids: Sequence[str]) -> list[StoredRequest]:
    """The stored requests of ``execution_ids``, in that order (an id not found is left out)."""
    found: dict[str, StoredRequest] = {}
    connection = session.connection()
    for chunk in _chunks(execution_ids):
        for row in connection.execute(_STORED, {"company": company_id, "ids": chunk}):
            execution_id, method, source_ip, inline, key, size, sha256, headers, query, payload_id = row
            body = stored_body(inline, key, size, sha256)
            found[execution_id] = StoredRequest(
                execution_id, method, source_ip, body, headers, query, payload_id
            )
    return [found[execution_id] for execution_id in execution_ids if execution_id in found]


def reserve(session: Session, company_id: str, count: int, now: datetime, rate: float) -> list[datetime]:
    """Take the company's next ``count`` replay slots. The pacer row is locked (PostgreSQL; SQLite's write
    lock covers the transaction), so concurrent replays of a company get consecutive slots."""
    if count == 0:
        return []
    connection = session.connection()
    connection.execute(_PACER_CREATE[connection.dialect.name], {"company": company_id, "now": now})
    next_free = connection.execute(_PACER_NEXT, {"company": company_id}).scalar_one()
    planned = schedule(next_free, now, count, rate)
    connection.execute(_PACER_MOVE, {"company": company_id, "next_free": planned.next_free})
    return planned.slots


@dataclass(frozen=True)
class Replay:
    original_execution_id: str
    delivery: Delivery


@dataclass(frozen=True)
class Recorded:
    original_execution_id: str
    task: DeliveryTask
    status: ExecutionStatus
    due_at: datetime | None  # QUEUED only: when it is handed to the handler queue
    publish_now: bool  # due now: the caller publishes it as the trigger does


def record(
    session: Session,
    replays: Sequence[Replay],
    *,
    now: datetime,
    rate: float,
    window: timedelta,
) -> list[Recorded]:
    """One unit of work (group commit): the replays' history entries, their ``replayOf`` and their slots."""
    if not replays:
        return []
    company_id = replays[0].delivery.target.company_id
    queued = [r for r in replays if r.delivery.transform_error is None and not r.delivery.filtered]
    slots = iter(reserve(session, company_id, len(queued), now, rate))
    recorded: list[Recorded] = []
    for replay in replays:
        delivery = replay.delivery
        if delivery.target.company_id != company_id:
            raise ValueError("one company per replay unit")
        slot = None if delivery.filtered or delivery.transform_error is not None else next(slots)
        publish_now = slot is not None and due_now(slot, now, window)
        if slot is not None and not publish_now:
            # Written QUEUED and not dispatched: the worker's sweep of due attempts hands it over at its slot.
            delivery = replace(delivery, hold_until=slot)
        task = deliveries.record_delivery(session, delivery)
        defer_insert(
            session,
            _REPLAYS,
            dict(
                execution_id=delivery.execution_id,
                company_id=company_id,
                webhook_id=delivery.target.webhook_id,
                original_execution_id=replay.original_execution_id,
                created_at=now,
            ),
        )
        if slot is None:
            ended = ExecutionStatus.FILTERED if delivery.filtered else ExecutionStatus.TRANSFORM_FAILED
            recorded.append(Recorded(replay.original_execution_id, task, ended, None, False))
        else:
            recorded.append(
                Recorded(replay.original_execution_id, task, ExecutionStatus.QUEUED, slot, publish_now)
            )
    return recorded


def originals_of(session: Session, company_id: str, execution_ids: Sequence[str]) -> dict[str, str]:
    """``replayOf`` of each execution of ``execution_ids`` that is a replay."""
    originals: dict[str, str] = {}
    for chunk in _chunks(list(dict.fromkeys(execution_ids))):
        rows = session.execute(
            select(WebhookReplay.execution_id, WebhookReplay.original_execution_id).where(
                WebhookReplay.company_id == company_id, WebhookReplay.execution_id.in_(chunk)
            )
        )
        originals.update({execution_id: original for execution_id, original in rows})
    return originals
