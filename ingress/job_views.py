"""Jobs as callers see them: who may see which job, the job's wire shape, and waiting for a job to end."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from ingress.analytics_errors import analytics_error
from ingress.job_access import Reader, check_output
from ingress.state import Services
from schemas.admin import Principal
from schemas.base import iso_utc
from schemas.jobs import JobKind, JobState
from sinks.db import jobs, tables
from sinks.db.models import Job, User

# How often a waiting call looks at its job (one indexed read): every 2 ms for the first 100 ms and every 4 ms
# up to half a second, since most queries are quick, then less often.
_POLL_SECONDS = (0.002,) * 50 + (0.004,) * 100 + (0.02,) * 50 + (0.05,)


def readable_tables(session: Session, caller: Principal, table_ids: list[str]) -> bool:
    return all(
        tables.access(session, caller.company_id, caller.user_id, caller.is_admin, table_id).allows("READ")
        for table_id in table_ids
    )


def visible_job(session: Session, caller: Principal, job_id: str) -> Job:
    """The caller's company's job, when the caller started it or may read every table it reads."""
    job = jobs.get(session, caller.company_id, job_id)
    if job is None:
        raise analytics_error("NOT_FOUND", f"Job {job_id} not found")
    if job.created_by != caller.user_id and not readable_tables(session, caller, json.loads(job.tables_json)):
        raise analytics_error(
            "FORBIDDEN", "This job belongs to another caller and reads tables you cannot read"
        )
    return job


def readable_job(session: Session, caller: Principal, job_id: str) -> Job:
    """A visible job whose output the caller may read now (``job_access.check_output``)."""
    job = visible_job(session, caller, job_id)
    check_output(session, Reader.of(caller), job)
    return job


def own_job(session: Session, caller: Principal, job_id: str) -> Job:
    job = jobs.get(session, caller.company_id, job_id)
    if job is None:
        raise analytics_error("NOT_FOUND", f"Job {job_id} not found")
    if job.created_by != caller.user_id:
        raise analytics_error("FORBIDDEN", "Only the caller who started the job may do this")
    return job


def error_object(job: Job) -> dict[str, Any] | None:
    if job.error_code is None:
        return None
    return {"errorCode": job.error_code, "message": job.error_message, "hint": job.error_hint}


def elapsed_ms(job: Job) -> int | None:
    if job.elapsed_ms is not None:
        return job.elapsed_ms
    if job.state == JobState.RUNNING.value and job.started_at is not None:
        return max(0, int((datetime.now(UTC) - job.started_at).total_seconds() * 1000))
    return None


def result_columns_of(job: Job) -> list[dict[str, Any]]:
    return json.loads(job.result_columns_json) if job.result_columns_json else []


def revealable(session: Session, caller: Principal | Reader, stored: list[dict[str, Any]]) -> dict[str, bool]:
    """Per table id of a masked result column: may the caller see plaintext?"""
    ids = {c["tableId"] for c in stored if c.get("masked")}
    return {
        table_id: tables.access(
            session, caller.company_id, caller.user_id, caller.is_admin, table_id
        ).can_reveal
        for table_id in ids
    }


def status_body(job: Job, columns: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "jobId": job.id,
        "kind": job.kind,
        "state": job.state,
        "bytesScanned": job.bytes_scanned,
        "elapsedMs": elapsed_ms(job),
        "error": error_object(job),
        "resultRowCount": job.result_row_count if job.state == JobState.SUCCEEDED.value else None,
        "truncated": job.truncated,
        "resultColumns": columns or [],
        "createdAt": iso_utc(job.created_at),
        "finishedAt": iso_utc(job.finished_at),
    }
    if job.kind == JobKind.LOAD.value:
        body.update(
            rowsLoaded=job.rows_loaded,
            rowsRejected=job.rows_rejected,
            rejectedSample=json.loads(job.rejected_sample_json) if job.rejected_sample_json else [],
            notes=json.loads(job.notes_json) if job.notes_json else [],
        )
    elif job.notes_json:  # a query cut off at the result-size limit says so
        body["notes"] = json.loads(job.notes_json)
    return body


def user_names(session: Session, company_id: str, user_ids: set[str]) -> dict[str, str]:
    if not user_ids:
        return {}
    rows = session.execute(
        select(User.id, User.email).where(User.company_id == company_id, User.id.in_(user_ids))
    ).all()
    return {user_id: email for user_id, email in rows}


def _load(svc: Services, company_id: str, job_id: str) -> Job | None:
    with svc.sessions() as session:
        job = jobs.get(session, company_id, job_id)
        if job is not None:
            session.expunge(job)
        return job


async def wait_for(svc: Services, company_id: str, job_id: str, wait_ms: int) -> Job | None:
    """The job once it has ended or ``wait_ms`` has passed, whichever is first."""
    deadline = time.monotonic() + wait_ms / 1000
    attempt = 0
    while True:
        job = await run_in_threadpool(_load, svc, company_id, job_id)
        if job is None or JobState(job.state).final:
            return job
        left = deadline - time.monotonic()
        if left <= 0:
            return job
        await asyncio.sleep(min(left, _POLL_SECONDS[min(attempt, len(_POLL_SECONDS) - 1)]))
        attempt += 1
