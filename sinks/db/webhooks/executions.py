"""Webhook execution history: one row per attempt, a shared payload row, and per-status entry counts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import String, Table, func, select
from sqlalchemy import cast as sa_cast
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from core.webhooks.bodies import StoredBody, stored_body
from core.webhooks.stats import AttemptGroup
from schemas.webhooks import ExecutionStatus
from sinks import credentials
from sinks.db.deferred import at_commit, gathered
from sinks.db.epoch_seconds import epoch_seconds
from sinks.db.models import WebhookExecution, WebhookExecutionCount, WebhookPayload


def _upsert_count(dialect: Any) -> Any:
    table = cast(Table, WebhookExecutionCount.__table__)
    statement = dialect.insert(table)
    return statement.on_conflict_do_update(
        index_elements=["webhook_id", "status"],
        set_={"entries": table.c.entries + statement.excluded.entries},
    )


# Built once per dialect (the delta is a parameter), so each bump is a compiled-statement cache hit.
_BUMP = {"postgresql": _upsert_count(postgresql), "sqlite": _upsert_count(sqlite)}
_COUNTS = "svc.pending_counts"


def bump(session: Session, webhook_id: str, status: str, delta: int) -> None:
    """Add ``delta`` to the webhook's count of entries in ``status`` when the transaction commits.

    The deltas of a transaction are summed and written just before its commit, one upsert per counter: a
    group commit of many deliveries moves each counter once, and the write lock the counters need is held
    for one statement instead of five per delivery.
    """
    pending: dict[tuple[str, str], int] = gathered(session, _COUNTS, dict)
    pending[(webhook_id, status)] = pending.get((webhook_id, status), 0) + delta


def _write_counts(session: Session, pending: dict[tuple[str, str], int]) -> None:
    rows = [
        {"webhook_id": webhook_id, "status": status, "entries": delta}
        for (webhook_id, status), delta in sorted(pending.items())
        if delta
    ]
    if rows:
        connection = session.connection()  # Core on the session's transaction: no ORM handling needed
        connection.execute(_BUMP[connection.dialect.name], rows)


at_commit(_COUNTS, _write_counts)


def store_payload(
    session: Session,
    company_id: str,
    webhook_id: str,
    payload: str,
    headers_json: str,
    query_json: str | None = None,
) -> str:
    payload_id = credentials.new_id()
    session.add(
        WebhookPayload(
            id=payload_id,
            company_id=company_id,
            webhook_id=webhook_id,
            request_payload=payload,
            request_headers=headers_json,
            request_query_params=query_json,
        )
    )
    session.flush()
    return payload_id


def add_entry(session: Session, entry: WebhookExecution) -> WebhookExecution:
    """Insert one attempt's history entry and count it."""
    entry.id = entry.id or credentials.new_id()
    session.add(entry)
    session.flush()
    bump(session, entry.webhook_id, entry.status, 1)
    return entry


def set_status(session: Session, entry: WebhookExecution, status: ExecutionStatus) -> None:
    """Move an entry to a new status, keeping the counts exact (the caller sets the other fields)."""
    if entry.status == status.value:
        return
    bump(session, entry.webhook_id, entry.status, -1)
    bump(session, entry.webhook_id, status.value, 1)
    entry.status = status.value


@dataclass(frozen=True)
class HistoryRow:
    entry: WebhookExecution
    # Inline, or a reference to read with sinks/webhook_bodies.py.
    body: StoredBody
    request_headers: str
    request_query_params: str | None


def count(session: Session, webhook_id: str, status: ExecutionStatus | None) -> int:
    query = select(func.coalesce(func.sum(WebhookExecutionCount.entries), 0)).where(
        WebhookExecutionCount.webhook_id == webhook_id
    )
    if status is not None:
        query = query.where(WebhookExecutionCount.status == status.value)
    return int(session.scalar(query) or 0)


def page_window(total: int, page: int, size: int) -> tuple[bool, int, int]:
    """(newest_first, offset, limit) for one page. A page in the older half is read from the oldest end, so
    the index walk is at most half the history instead of growing with the page number."""
    offset = page * size
    if offset >= total:
        return True, offset, size
    limit = min(size, total - offset)
    if offset <= total // 2:
        return True, offset, limit
    return False, total - offset - limit, limit


def history_page(
    session: Session,
    company_id: str,
    webhook_id: str,
    status: ExecutionStatus | None,
    page: int,
    size: int,
    total: int,
) -> list[HistoryRow]:
    """Newest first. The page's ids come from the covering index alone; only those rows are then read."""
    newest_first, offset, limit = page_window(total, page, size)
    ids_query = select(WebhookExecution.id).where(
        WebhookExecution.company_id == company_id, WebhookExecution.webhook_id == webhook_id
    )
    if status is not None:
        ids_query = ids_query.where(WebhookExecution.status == status.value)
    order = (
        (WebhookExecution.queued_at.desc(), WebhookExecution.id.desc())
        if newest_first
        else (WebhookExecution.queued_at.asc(), WebhookExecution.id.asc())
    )
    ids_query = ids_query.order_by(*order).limit(limit).offset(offset)
    ids = list(session.scalars(ids_query))
    if not newest_first:
        ids.reverse()
    return rows_of(session, company_id, ids)


def rows_of(session: Session, company_id: str, ids: list[str]) -> list[HistoryRow]:
    """The entries ``ids`` with their stored requests, in the order of ``ids``."""
    if not ids:
        return []
    rows = session.execute(
        select(
            WebhookExecution,
            WebhookPayload.request_payload,
            WebhookPayload.request_headers,
            WebhookPayload.request_query_params,
            WebhookPayload.body_key,
            WebhookPayload.body_bytes,
            WebhookPayload.body_sha256,
        )
        .join(WebhookPayload, WebhookPayload.id == WebhookExecution.payload_id)
        .where(WebhookExecution.company_id == company_id, WebhookExecution.id.in_(ids))
    )
    by_id = {
        row[0].id: HistoryRow(row[0], stored_body(row[1], row[4], row[5], row[6]), row[2], row[3])
        for row in rows
    }
    return [by_id[entry_id] for entry_id in ids if entry_id in by_id]


def attempt_groups(
    session: Session, company_id: str, webhook_id: str, since: datetime, bucket_seconds: int, limit: int
) -> tuple[list[AttemptGroup], bool]:
    """The webhook's attempts queued from ``since``, counted by the database per bucket of ``bucket_seconds``
    and status with each group's handler durations, and whether the window held more than ``limit`` (then
    only those queued after the first one past the ``limit`` newest are counted). The count reads one range
    per status of the per-status history index, which holds every column it reads, so no row is looked up
    and few rows reach Python."""
    history = (WebhookExecution.company_id == company_id, WebhookExecution.webhook_id == webhook_id)
    cutoff = session.execute(
        select(WebhookExecution.queued_at)
        .where(*history, WebhookExecution.queued_at >= since)
        .order_by(WebhookExecution.queued_at.desc(), WebhookExecution.id.desc())
        .offset(limit)
        .limit(1)
    ).scalar()
    bucket = epoch_seconds(WebhookExecution.queued_at) // bucket_seconds
    rows = session.execute(
        select(
            bucket,
            WebhookExecution.status,
            func.count(),
            func.aggregate_strings(sa_cast(WebhookExecution.duration_ms, String), ","),
        )
        .where(
            *history,
            WebhookExecution.status.in_(list(ExecutionStatus)),
            WebhookExecution.queued_at >= since if cutoff is None else WebhookExecution.queued_at > cutoff,
        )
        .group_by(bucket, WebhookExecution.status)
    )
    groups = [
        AttemptGroup(
            int(number), status, count, [int(value) for value in durations.split(",")] if durations else []
        )
        for number, status, count, durations in rows
    ]
    return groups, cutoff is not None
