"""Webhook replay in the metadata DB: find the executions a replay names, read their stored requests, and
record the replays through the delivery path's own ``record_delivery`` (QUEUED, FILTERED or
TRANSFORM_FAILED, counted like any delivery), with their pacing slots and their ``replayOf``.

A replayed execution whose slot is not due yet is left QUEUED with ``dispatched_at`` NULL and
``available_at`` at its slot: the worker's sweep of due attempts (the one that hands retries to Kafka) hands
it over then, and nothing of the pacing lives outside the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, aliased

from core.webhooks.replay import due_now, schedule
from schemas.deliveries import DeliveryTask
from schemas.webhooks import ExecutionStatus
from sinks.db import deliveries
from sinks.db.deferred import at_commit, defer_insert, gathered
from sinks.db.deliveries import Delivery
from sinks.db.models import ReplayPacer, WebhookExecution, WebhookPayload, WebhookReplay

QUEUED = ExecutionStatus.QUEUED.value
_ENTRIES = cast(Table, WebhookExecution.__table__)
_REPLAYS = cast(Table, WebhookReplay.__table__)
_PACERS = cast(Table, ReplayPacer.__table__)
# Ids per IN list: far below every backend's limit on bound values.
_IN_CHUNK = 1_000
_LATER = "svc.replay_later"
# Runs after the deferred inserts (registered when sinks.db.deferred was imported, before this module), so
# the rows it moves exist: a slot not due yet leaves its entry to the worker's sweep of due attempts.
_LEAVE_FOR_SWEEP = (
    update(_ENTRIES)
    .where(_ENTRIES.c.id == bindparam("entry"), _ENTRIES.c.status == QUEUED)
    .values(available_at=bindparam("at"), dispatched_at=None)
)


def _leave_for_sweep(session: Session, rows: list[dict[str, Any]]) -> None:
    session.execute(_LEAVE_FOR_SWEEP, rows)


at_commit(_LATER, _leave_for_sweep)


def _chunks(ids: Sequence[str]) -> list[Sequence[str]]:
    return [ids[first : first + _IN_CHUNK] for first in range(0, len(ids), _IN_CHUNK)]


def received_times(
    session: Session, company_id: str, webhook_id: str, execution_ids: Sequence[str]
) -> dict[str, datetime]:
    """When the original request of each named execution of this webhook arrived (its first attempt's
    queued time). Ids of another webhook or company are simply absent: tenancy is in the WHERE clause."""
    found: dict[str, datetime] = {}
    for chunk in _chunks(list(dict.fromkeys(execution_ids))):
        rows = session.execute(
            select(WebhookExecution.execution_id, WebhookExecution.queued_at).where(
                WebhookExecution.company_id == company_id,
                WebhookExecution.webhook_id == webhook_id,
                WebhookExecution.attempt_number == 1,
                WebhookExecution.execution_id.in_(chunk),
            )
        )
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
    payload: str
    headers_json: str
    query_json: str | None


def stored_requests(session: Session, company_id: str, execution_ids: Sequence[str]) -> list[StoredRequest]:
    """The stored requests of ``execution_ids``, in that order (an id not found is left out)."""
    found: dict[str, StoredRequest] = {}
    for chunk in _chunks(execution_ids):
        rows = session.execute(
            select(
                WebhookExecution.execution_id,
                WebhookExecution.http_method,
                WebhookExecution.source_ip,
                WebhookPayload.request_payload,
                WebhookPayload.request_headers,
                WebhookPayload.request_query_params,
            )
            .join(WebhookPayload, WebhookPayload.id == WebhookExecution.payload_id)
            .where(
                WebhookExecution.company_id == company_id,
                WebhookPayload.company_id == company_id,
                WebhookExecution.attempt_number == 1,
                WebhookExecution.execution_id.in_(chunk),
            )
        )
        for row in rows:
            found[row[0]] = StoredRequest(*row)
    return [found[execution_id] for execution_id in execution_ids if execution_id in found]


def reserve(session: Session, company_id: str, count: int, now: datetime, rate: float) -> list[datetime]:
    """Take the company's next ``count`` replay slots. The pacer row is locked (PostgreSQL; SQLite's write
    lock covers the transaction), so concurrent replays of a company get consecutive slots."""
    if count == 0:
        return []
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    session.execute(
        dialect.insert(_PACERS)
        .values(company_id=company_id, next_slot_at=now)
        .on_conflict_do_nothing(index_elements=["company_id"])
    )
    next_free = session.scalar(
        select(ReplayPacer.next_slot_at).where(ReplayPacer.company_id == company_id).with_for_update()
    )
    planned = schedule(next_free, now, count, rate)
    session.execute(
        update(_PACERS).where(_PACERS.c.company_id == company_id).values(next_slot_at=planned.next_free)
    )
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
    session: Session, replays: Sequence[Replay], *, now: datetime, rate: float, window: timedelta
) -> list[Recorded]:
    """One unit of work (group commit): the replays' history entries, their ``replayOf`` and their slots."""
    if not replays:
        return []
    company_id = replays[0].delivery.target.company_id
    queued = [r for r in replays if r.delivery.transform_error is None and not r.delivery.filtered]
    slots = iter(reserve(session, company_id, len(queued), now, rate))
    later: list[dict[str, Any]] = gathered(session, _LATER, list)
    recorded: list[Recorded] = []
    for replay in replays:
        delivery = replay.delivery
        if delivery.target.company_id != company_id:
            raise ValueError("one company per replay unit")
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
        if delivery.filtered:
            recorded.append(
                Recorded(replay.original_execution_id, task, ExecutionStatus.FILTERED, None, False)
            )
            continue
        if delivery.transform_error is not None:
            status = ExecutionStatus.TRANSFORM_FAILED
            recorded.append(Recorded(replay.original_execution_id, task, status, None, False))
            continue
        slot = next(slots)
        publish_now = due_now(slot, now, window)
        if not publish_now:
            later.append({"entry": task.entry_id, "at": slot})
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
