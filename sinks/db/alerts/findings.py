"""The failures an alert rule counts, read by the time they ended, through the partial indexes of failures
(migration 0028): a read costs the failures it finds, never the company's whole history.

- WEBHOOK_FAILURES: a delivery's final FAILED attempt (one with no later attempt: its retries are exhausted,
  or it was not retryable), by its ``ended_at``. A retry is written in the transaction that fails the attempt
  before it, so a FAILED attempt without a later one is final.
- SCHEDULED_RUN: a run that ended FAILED (then dead-lettered, when its event has a deadLetterConfig) or
  MISSED, by its ``ended_at``; a run that will be retried is QUEUED again, not FAILED.
- TABLE_FAILURE: a table write that ended FAILED (``committed_at`` is when it ended) and an automatic
  maintenance that failed (``table_maintenance.failed_at``, the last one per table).

Each query reads ``after < ended <= until``; the evaluator moves ``after`` forward round by round.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import exists, func, select, text
from sqlalchemy.orm import Session, aliased

from core.alerts import Group
from schemas.alerts import ConditionType, ItemKind
from sinks.db.models import (
    FAILED_ONLY,
    RUN_FAILED_ONLY,
    DestinationState,
    ScheduledEvent,
    ScheduledEventRun,
    TableMaintenance,
    TableWrite,
    WebhookExecution,
)

DETAIL_CHARS = 300


@dataclass(frozen=True)
class Item:
    subject_id: str
    item_id: str
    kind: ItemKind
    at: datetime
    detail: str | None


def _detail(text_: str | None) -> str | None:
    return None if text_ is None else text_[:DETAIL_CHARS]


def _final_failures(company_id: str, subject_id: str | None, after: datetime, until: datetime) -> Any:
    entry = WebhookExecution
    later = aliased(WebhookExecution)
    # The literal term of the partial index's WHERE: SQLite uses that index only when it sees the same term.
    where: list[Any] = [
        entry.company_id == company_id,
        text(f"webhook_executions.{FAILED_ONLY}"),
        entry.ended_at > after,
        entry.ended_at <= until,
        ~exists().where(
            later.execution_id == entry.execution_id, later.attempt_number > entry.attempt_number
        ),
    ]
    if subject_id is not None:
        where.append(entry.webhook_id == subject_id)
    return where


def _failed_runs(company_id: str, subject_id: str | None, after: datetime, until: datetime) -> Any:
    run = ScheduledEventRun
    where: list[Any] = [
        run.company_id == company_id,
        text(f"scheduled_event_runs.{RUN_FAILED_ONLY}"),
        run.ended_at > after,
        run.ended_at <= until,
    ]
    if subject_id is not None:
        where.append(run.event_id == subject_id)
    return where


def _failed_writes(company_id: str, subject_id: str | None, after: datetime, until: datetime) -> Any:
    write = TableWrite
    where: list[Any] = [
        write.company_id == company_id,
        text(f"table_writes.{FAILED_ONLY}"),
        write.committed_at > after,
        write.committed_at <= until,
    ]
    if subject_id is not None:
        where.append(write.table_id == subject_id)
    return where


def _failed_maintenance(company_id: str, subject_id: str | None, after: datetime, until: datetime) -> Any:
    row = TableMaintenance
    where: list[Any] = [
        row.company_id == company_id,
        row.failed_at > after,
        row.failed_at <= until,
    ]
    if subject_id is not None:
        where.append(row.table_id == subject_id)
    return where


def groups(
    session: Session,
    condition: ConditionType,
    company_id: str,
    subject_id: str | None,
    after: datetime,
    until: datetime,
) -> list[Group]:
    """The failures per subject in ``(after, until]``: how many, the first and the last."""
    found: list[Group] = []
    for subject, ended, where in _sources(condition):
        rows = session.execute(
            select(subject, func.count(), func.min(ended), func.max(ended))
            .where(*where(company_id, subject_id, after, until))
            .group_by(subject)
        )
        found.extend(Group(str(s), int(n), _aware(first), _aware(last)) for s, n, first, last in rows)
    return _merged(found)


def items(
    session: Session,
    condition: ConditionType,
    company_id: str,
    subject_id: str,
    after: datetime,
    until: datetime,
    limit: int,
) -> list[Item]:
    """The first ``limit`` failures of one subject in ``(after, until]``, the earliest first."""
    if limit <= 0:
        return []
    found: list[Item] = []
    if condition is ConditionType.WEBHOOK_FAILURES:
        entry = WebhookExecution
        rows = session.execute(
            select(entry.webhook_id, entry.execution_id, entry.ended_at, entry.error_message)
            .where(*_final_failures(company_id, subject_id, after, until))
            .order_by(entry.ended_at, entry.id)
            .limit(limit)
        )
        found = [Item(s, i, ItemKind.EXECUTION, _aware(at), _detail(e)) for s, i, at, e in rows]
    elif condition is ConditionType.SCHEDULED_RUN:
        run = ScheduledEventRun
        run_rows = session.execute(
            select(
                run.event_id,
                run.id,
                run.ended_at,
                run.status,
                run.error_message,
                ScheduledEvent.dead_letter_enabled,
            )
            .join(ScheduledEvent, ScheduledEvent.id == run.event_id)
            .where(*_failed_runs(company_id, subject_id, after, until))
            .order_by(run.ended_at, run.id)
            .limit(limit)
        )
        found = [
            Item(s, i, ItemKind.RUN, _aware(at), _detail(_run_detail(status, error, dead_letter)))
            for s, i, at, status, error, dead_letter in run_rows
        ]
    elif condition is ConditionType.TABLE_FAILURE:
        write = TableWrite
        write_rows = session.execute(
            select(write.table_id, write.id, write.committed_at, write.error_message)
            .where(*_failed_writes(company_id, subject_id, after, until))
            .order_by(write.committed_at, write.id)
            .limit(limit)
        )
        found = [Item(s, i, ItemKind.TABLE_WRITE, _aware(at), _detail(e)) for s, i, at, e in write_rows]
        maintenance = session.execute(
            select(TableMaintenance.table_id, TableMaintenance.failed_at, TableMaintenance.last_error).where(
                *_failed_maintenance(company_id, subject_id, after, until)
            )
        )
        found += [
            Item(
                s,
                f"maintenance-{_aware(at).strftime('%Y%m%dT%H%M%S%f')}",
                ItemKind.MAINTENANCE,
                _aware(at),
                _detail(e),
            )
            for s, at, e in maintenance
        ]
        found = sorted(found, key=lambda item: (item.at, item.item_id))[:limit]
    return found


def _run_detail(status: str, error: str | None, dead_letter: bool) -> str:
    what = "FAILED (dead-lettered)" if status == "FAILED" and dead_letter else status
    return what if not error else f"{what}: {error}"


def _sources(condition: ConditionType) -> list[tuple[Any, Any, Any]]:
    if condition is ConditionType.WEBHOOK_FAILURES:
        return [(WebhookExecution.webhook_id, WebhookExecution.ended_at, _final_failures)]
    if condition is ConditionType.SCHEDULED_RUN:
        return [(ScheduledEventRun.event_id, ScheduledEventRun.ended_at, _failed_runs)]
    if condition is ConditionType.TABLE_FAILURE:
        return [
            (TableWrite.table_id, TableWrite.committed_at, _failed_writes),
            (TableMaintenance.table_id, TableMaintenance.failed_at, _failed_maintenance),
        ]
    return []


def _merged(found: Iterable[Group]) -> list[Group]:
    """One group per subject (a table's writes and its maintenance are one subject)."""
    merged: dict[str, Group] = {}
    for group in found:
        kept = merged.get(group.subject_id)
        merged[group.subject_id] = (
            group
            if kept is None
            else Group(
                group.subject_id,
                kept.count + group.count,
                min(kept.first_at, group.first_at),
                max(kept.last_at, group.last_at),
            )
        )
    return sorted(merged.values(), key=lambda group: group.subject_id)


def _aware(moment: Any) -> datetime:
    """Aggregates (min, max) bypass the column's type on SQLite: they come back naive, or as text."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    if not isinstance(moment, datetime):
        raise TypeError(f"expected a datetime, got {type(moment).__name__}")
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@dataclass(frozen=True)
class OpenCircuit:
    resource_id: str
    since: datetime
    last_error: str | None


def open_circuits(session: Session, company_id: str, subject_id: str | None) -> list[OpenCircuit]:
    """The company's destinations whose circuit is OPEN now (``destination_states``, one row per destination
    that ever failed), since when."""
    state = DestinationState
    query = select(state.resource_id, state.since, state.last_error).where(
        state.company_id == company_id, state.state == "OPEN"
    )
    if subject_id is not None:
        query = query.where(state.resource_id == subject_id)
    return [OpenCircuit(r, since, _detail(error)) for r, since, error in session.execute(query)]
