"""A webhook's history narrowed by a time range on ``queued_at``, a text in the stored body, or one execution.

Every such read is bounded: the entries come from one range of the history index (company, webhook[, status],
queued_at), newest first, and at most ``SEARCH_LIMIT`` of them are read, so neither a range of a million
entries nor a text search can make the database walk the whole history. The body text is matched in SQL on
the newest ``SEARCH_LIMIT`` entries of the range only; a body kept in the object store (over
``SVC_INLINE_BODY_BYTES``) is not searched. One execution's attempts are looked up by their own index.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, and_, case, func, literal, select
from sqlalchemy.orm import InstrumentedAttribute, Session
from sqlalchemy.sql.elements import ColumnElement

from schemas.webhooks import HISTORY_SEARCH_LIMIT, ExecutionStatus
from sinks.db.index_hints import unindexed
from sinks.db.models import WebhookExecution, WebhookPayload

SEARCH_LIMIT = HISTORY_SEARCH_LIMIT


@dataclass(frozen=True)
class HistorySearch:
    status: ExecutionStatus | None = None
    since: datetime | None = None  # inclusive
    until: datetime | None = None  # exclusive
    body_contains: str | None = None
    execution_id: str | None = None


@dataclass(frozen=True)
class Found:
    ids: list[str]  # the matching entries' ids, newest first
    limited: bool  # the range held more than SEARCH_LIMIT entries: only the newest were read


def _window(company_id: str, webhook_id: str, search: HistorySearch) -> Select[str, str, datetime]:
    entries = WebhookExecution
    if search.execution_id is not None:
        # The execution's own index, not a walk of the webhook's history (SQLite plans without statistics).
        query = select(entries.id, entries.payload_id, entries.queued_at).where(
            unindexed(entries.company_id) == company_id,
            unindexed(entries.webhook_id) == webhook_id,
            entries.execution_id == search.execution_id,
        )
    else:
        query = select(entries.id, entries.payload_id, entries.queued_at).where(
            entries.company_id == company_id, entries.webhook_id == webhook_id
        )
    if search.status is not None:
        query = query.where(entries.status == search.status.value)
    if search.since is not None:
        query = query.where(entries.queued_at >= search.since)
    if search.until is not None:
        query = query.where(entries.queued_at < search.until)
    return query.order_by(entries.queued_at.desc(), entries.id.desc()).limit(SEARCH_LIMIT + 1)


def _contains(
    session: Session, text: ColumnElement[str] | InstrumentedAttribute[str], needle: str
) -> ColumnElement[bool]:
    # A plain, case-sensitive substring on both databases (LIKE is case-insensitive on SQLite and gives
    # meaning to % and _).
    position = func.strpos if session.get_bind().dialect.name == "postgresql" else func.instr
    return position(text, needle) > 0


def find(session: Session, company_id: str, webhook_id: str, search: HistorySearch) -> Found:
    """The ids of the matching entries, newest first, from at most the newest ``SEARCH_LIMIT`` entries."""
    if search.body_contains is None:
        ids = list(
            session.scalars(_window(company_id, webhook_id, search).with_only_columns(WebhookExecution.id))
        )
        return Found(ids[:SEARCH_LIMIT], len(ids) > SEARCH_LIMIT)
    window = _window(company_id, webhook_id, search).subquery()
    payloads = WebhookPayload
    hit = case(
        (
            and_(
                payloads.body_key.is_(None),
                _contains(session, payloads.request_payload, search.body_contains),
            ),
            literal(True),
        ),
        else_=literal(False),
    )
    rows = session.execute(
        select(window.c.id, hit)
        .select_from(window)
        .join(payloads, payloads.id == window.c.payload_id)
        .order_by(window.c.queued_at.desc(), window.c.id.desc())
    ).all()
    return Found([entry_id for entry_id, matched in rows[:SEARCH_LIMIT] if matched], len(rows) > SEARCH_LIMIT)
