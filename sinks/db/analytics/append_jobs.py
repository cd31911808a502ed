"""Appends seen as jobs: every accepted /append-rows call is an APPEND job whose id is its ``loadId``.

The job is the call's ``table_writes`` row (kind APPEND), not a ``jobs`` row, so an append still costs one
INSERT. Its status is the job's state:

| table_writes.status | job state | meaning |
|---|---|---|
| PENDING | QUEUED | accepted and stored, waiting for the table's writer |
| WRITING | RUNNING | the writer has taken it and is committing it to Iceberg (``tables.take_writes``) |
| COMMITTED | SUCCEEDED | its rows are in the table |
| FAILED | FAILED | the writer gave it up (``error_message``) |
| CANCELLED | CANCELLED | cancelled while QUEUED: its rows were dropped, never committed |

TIMED_OUT never applies: an append has no run-time limit. Every read here names the columns it needs,
never the stored rows (up to 5 MB a write).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from schemas.jobs import JobState
from sinks.db.models import TableWrite

STATES = {
    "PENDING": JobState.QUEUED,
    "WRITING": JobState.RUNNING,
    "COMMITTED": JobState.SUCCEEDED,
    "FAILED": JobState.FAILED,
    "CANCELLED": JobState.CANCELLED,
}
STATUS_OF = {state: status for status, state in STATES.items()}


@dataclass(frozen=True)
class AppendJob:
    id: str
    table_id: str
    created_by: str | None
    state: JobState
    row_count: int  # rows accepted by the call; appended once SUCCEEDED
    error_message: str | None
    created_at: datetime
    finished_at: datetime | None

    @property
    def rows_appended(self) -> int | None:
        """Known once the rows are committed; until then none is in the table."""
        return self.row_count if self.state is JobState.SUCCEEDED else None

    def elapsed_ms(self, now: datetime | None = None) -> int | None:
        """From the call's acceptance to the job's end, or to ``now`` while it is RUNNING (None without a
        ``now``, as a running job's stored elapsedMs is): the writer gathers about a second of appends
        before it commits, so that wait is part of the job."""
        if self.finished_at is not None:
            return _ms(self.finished_at - self.created_at)
        if self.state is JobState.RUNNING and now is not None:
            return _ms(now - self.created_at)
        return None


def _ms(delta: timedelta) -> int:
    return max(0, int(delta.total_seconds() * 1000))


def state_of(status: str) -> JobState:
    """An unknown status (none is written) reads as FAILED rather than as work still to come."""
    return STATES.get(status, JobState.FAILED)


_COLUMNS = (
    TableWrite.id,
    TableWrite.table_id,
    TableWrite.created_by,
    TableWrite.status,
    TableWrite.row_count,
    TableWrite.error_message,
    TableWrite.created_at,
    TableWrite.committed_at,
)


def _of(row: Any) -> AppendJob:
    job_id, table_id, created_by, status, row_count, error, created_at, finished_at = row
    return AppendJob(
        job_id, table_id, created_by, state_of(status), int(row_count or 0), error, created_at, finished_at
    )


def _appends(company_id: str) -> Any:
    return select(*_COLUMNS).where(TableWrite.company_id == company_id, TableWrite.kind == "APPEND")


def get(session: Session, company_id: str, job_id: str) -> AppendJob | None:
    row = session.execute(_appends(company_id).where(TableWrite.id == job_id)).first()
    return None if row is None else _of(row)


def listing(
    session: Session,
    company_id: str,
    table_id: str,
    *,
    state: str | None,
    created_by: str | None,
    before: tuple[datetime, str] | None,
    limit: int,
) -> list[AppendJob]:
    """Newest first, at most ``limit`` of the table's appends older than the cursor ``before``."""
    query = _appends(company_id).where(TableWrite.table_id == table_id)
    if state:
        status = STATUS_OF.get(JobState(state))
        if status is None:
            return []
        query = query.where(TableWrite.status == status)
    if created_by:
        query = query.where(TableWrite.created_by == created_by)
    if before:
        query = query.where(
            or_(
                TableWrite.created_at < before[0],
                (TableWrite.created_at == before[0]) & (TableWrite.id < before[1]),
            )
        )
    ordered = query.order_by(TableWrite.created_at.desc(), TableWrite.id.desc()).limit(limit)
    return [_of(row) for row in session.execute(ordered)]


def cancel(session: Session, company_id: str, job_id: str, now: datetime) -> JobState | None:
    """QUEUED → CANCELLED, compare-and-set against the writer's take (PENDING → WRITING), so exactly one
    wins: a cancelled append is never committed, and its stored rows are dropped at once. An append the
    writer has taken keeps its state (its commit is under way and cannot be stopped part-way). Answers the
    state afterwards, or None when there is no such append."""
    session.execute(
        update(TableWrite)
        .where(
            TableWrite.company_id == company_id,
            TableWrite.id == job_id,
            TableWrite.kind == "APPEND",
            TableWrite.status == STATUS_OF[JobState.QUEUED],
        )
        .values(
            status=STATUS_OF[JobState.CANCELLED], committed_at=now, payload_json="null", payload_rows=None
        )
        .execution_options(synchronize_session=False)
    )
    found = get(session, company_id, job_id)
    return None if found is None else found.state
