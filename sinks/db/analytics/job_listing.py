"""/jobs: a table's query and load jobs and its appends, newest first, as one listing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from schemas.jobs import JobKind
from sinks.db.analytics import append_jobs
from sinks.db.models import Job


@dataclass(frozen=True)
class Listed:
    """A job or an append, as /jobs lists it."""

    job_id: str
    kind: str
    state: str
    sql: str | None
    created_by: str | None
    created_at: datetime
    finished_at: datetime | None
    result_row_count: int | None
    bytes_scanned: int | None
    elapsed_ms: int | None
    tables: list[str]
    policy: str | None = None  # the runner's stored policy (queries)


def listing(
    session: Session,
    company_id: str,
    table_id: str,
    *,
    kind: str | None,
    state: str | None,
    created_by: str | None,
    before: tuple[datetime, str] | None,
    limit: int,
) -> list[Listed]:
    """Newest first, at most ``limit`` of the table's jobs and appends older than the cursor ``before``."""
    found: list[Listed] = []
    if kind in (None, JobKind.QUERY.value, JobKind.LOAD.value):
        query = select(Job).where(Job.company_id == company_id, Job.table_id == table_id)
        if kind:
            query = query.where(Job.kind == kind)
        if state:
            query = query.where(Job.state == state)
        if created_by:
            query = query.where(Job.created_by == created_by)
        if before:
            query = query.where(
                or_(Job.created_at < before[0], (Job.created_at == before[0]) & (Job.id < before[1]))
            )
        for job in session.scalars(query.order_by(Job.created_at.desc(), Job.id.desc()).limit(limit)):
            found.append(
                Listed(
                    job.id,
                    job.kind,
                    job.state,
                    job.sql,
                    job.created_by,
                    job.created_at,
                    job.finished_at,
                    job.result_row_count if job.kind == JobKind.QUERY.value else job.rows_loaded,
                    job.bytes_scanned,
                    job.elapsed_ms,
                    json.loads(job.tables_json),
                    job.policy_json,
                )
            )
    if kind in (None, JobKind.APPEND.value):
        appends = append_jobs.listing(
            session, company_id, table_id, state=state, created_by=created_by, before=before, limit=limit
        )
        found.extend(_listed_append(append, table_id) for append in appends)
    found.sort(key=lambda j: (j.created_at, j.job_id), reverse=True)
    return found[:limit]


def _listed_append(append: append_jobs.AppendJob, table_id: str) -> Listed:
    return Listed(
        append.id,
        JobKind.APPEND.value,
        append.state.value,
        None,
        append.created_by,
        append.created_at,
        append.finished_at,
        append.rows_appended,
        None,
        append.elapsed_ms(),
        [table_id],
    )
