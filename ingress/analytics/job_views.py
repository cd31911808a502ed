"""Jobs as callers see them: who may see which job, the job's wire shape, and waiting for a job to end."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from ingress.analytics.coded_errors import analytics_error
from ingress.analytics.job_access import Reader, append_counts_refusal, check_output
from ingress.deps import Sessions
from ingress.errors import ApiError
from schemas.admin import Principal
from schemas.base import iso_utc
from schemas.jobs import JobKind, JobState
from sinks.db.analytics import append_jobs, jobs, tables
from sinks.db.analytics.append_jobs import AppendJob
from sinks.db.models import Job, User
from sinks.job_results import wire_columns

# A waiting call looks at its job's state (one indexed read) every 2 ms at first, since most queries are
# quick, then every twentieth of the time it has waited: the look adds at most 5% to a longer query's
# answer and runs some 70 times in its first half second, not 150, beside the query's DuckDB threads.
_FIRST_POLL_SECONDS = 0.002
_POLL_SHARE = 0.05
_LONGEST_POLL_SECONDS = 0.05
_APPEND_POLL_SECONDS = 0.05
_T = TypeVar("_T")


def readable_tables(session: Session, caller: Principal, table_ids: list[str]) -> bool:
    return all(
        tables.access(session, caller.company_id, caller.user_id, caller.is_admin, table_id).allows("READ")
        for table_id in table_ids
    )


def _not_found(job_id: str) -> ApiError:
    return analytics_error("NOT_FOUND", f"Job {job_id} not found")


def _check_visible(session: Session, caller: Principal, created_by: str | None, table_ids: list[str]) -> None:
    if created_by != caller.user_id and not readable_tables(session, caller, table_ids):
        raise analytics_error(
            "FORBIDDEN", "This job belongs to another caller and reads tables you cannot read"
        )


def _check_own(caller: Principal, created_by: str | None) -> None:
    if created_by != caller.user_id:
        raise analytics_error("FORBIDDEN", "Only the caller who started the job may do this")


def visible_job(session: Session, caller: Principal, job_id: str) -> Job:
    """The caller's company's job, when the caller started it or may read every table it reads."""
    job = jobs.get(session, caller.company_id, job_id)
    if job is None:
        raise _not_found(job_id)
    _check_visible(session, caller, job.created_by, json.loads(job.tables_json))
    return job


def own_job(session: Session, caller: Principal, job_id: str) -> Job:
    job = jobs.get(session, caller.company_id, job_id)
    if job is None:
        raise _not_found(job_id)
    _check_own(caller, job.created_by)
    return job


def job_status(session: Session, caller: Principal, job_id: str) -> dict[str, Any]:
    """/job-status's answer for a query, a load or an append (an APPEND job, id = its loadId), each shown
    to the caller who started it or to anyone who may read every table it reads, and its output only
    under the caller's own current grant (``job_access``)."""
    job = jobs.get(session, caller.company_id, job_id)
    if job is None:
        append = append_jobs.get(session, caller.company_id, job_id)
        if append is None:
            raise _not_found(job_id)
        _check_visible(session, caller, append.created_by, [append.table_id])
        refused = append_counts_refusal(session, Reader.of(caller), append)
        return append_status_body(append, refused, datetime.now(UTC))
    _check_visible(session, caller, job.created_by, json.loads(job.tables_json))
    check_output(session, Reader.of(caller), job)
    stored = result_columns_of(job)
    return status_body(job, wire_columns(stored, revealable(session, caller, stored), reveal=False))


def cancel_job(session: Session, caller: Principal, job_id: str, now: datetime) -> str | None:
    """Cancel a job the caller started; its state afterwards. A QUEUED append is cancelled (its rows are
    never committed); one the table's writer has taken answers RUNNING and ends as its commit does."""
    job = jobs.get(session, caller.company_id, job_id)
    if job is not None:
        _check_own(caller, job.created_by)
        return jobs.cancel(session, caller.company_id, job_id, now)
    append = append_jobs.get(session, caller.company_id, job_id)
    if append is None:
        raise _not_found(job_id)
    _check_own(caller, append.created_by)
    state = append_jobs.cancel(session, caller.company_id, job_id, now)
    return None if state is None else state.value


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
    else:
        body["cacheHit"] = job.cached_from is not None  # answered from the result cache
        if job.notes_json:  # a query cut off at the result-size limit says so
            body["notes"] = json.loads(job.notes_json)
    return body


def append_status_body(append: AppendJob, counts_refused: ApiError | None, now: datetime) -> dict[str, Any]:
    """An APPEND job's status in a LOAD job's shape. ``rowsLoaded`` (and ``resultRowCount``) are the rows
    appended, known once it SUCCEEDED; rows the call refused were answered by the call and are not part of
    the job, so ``rowsRejected`` is null. A reader who may not see the counts gets them null and a note
    saying why."""
    appended = append.rows_appended if counts_refused is None else None
    error = None
    if append.state is JobState.FAILED:
        error = {
            "errorCode": "INTERNAL",
            "message": append.error_message or "The table writer could not commit this append",
            "hint": "None of its rows were added: send them again",
        }
    return {
        "jobId": append.id,
        "kind": JobKind.APPEND.value,
        "state": append.state.value,
        "bytesScanned": None,
        "elapsedMs": append.elapsed_ms(now),
        "error": error,
        "resultRowCount": appended,
        "truncated": False,
        "resultColumns": [],
        "createdAt": iso_utc(append.created_at),
        "finishedAt": iso_utc(append.finished_at),
        "rowsLoaded": appended,
        "rowsRejected": None,
        "rejectedSample": [],
        "notes": [] if counts_refused is None else [f"Row counts left out: {counts_refused.errors[0]}"],
    }


def user_names(session: Session, company_id: str, user_ids: set[str]) -> dict[str, str]:
    if not user_ids:
        return {}
    rows = session.execute(
        select(User.id, User.email).where(User.company_id == company_id, User.id.in_(user_ids))
    ).all()
    return {user_id: email for user_id, email in rows}


def _state(sessions: Sessions, company_id: str, job_id: str) -> JobState | None:
    with sessions() as session:
        return jobs.state(session, company_id, job_id)


async def wait_until_ended(sessions: Sessions, company_id: str, job_id: str, wait_ms: int, kind: str) -> None:
    """Return once the job (an APPEND job too) has ended or ``wait_ms`` has passed. An append ends with
    its table's next commit, which gathers appends for ``SVC_TABLE_COMMIT_INTERVAL_SECONDS`` first, so it is
    looked at less often than a query."""
    pause = _append_pause if kind == JobKind.APPEND.value else poll_pause
    await _poll(partial(_state, sessions, company_id, job_id), lambda state: state.final, wait_ms, pause)


def _load(sessions: Sessions, company_id: str, job_id: str) -> Job | None:
    with sessions() as session:
        job = jobs.get(session, company_id, job_id)
        if job is not None:
            session.expunge(job)
        return job


async def wait_for(sessions: Sessions, company_id: str, job_id: str, wait_ms: int) -> Job | None:
    """The job once it has ended or ``wait_ms`` has passed, whichever is first. Only its state is read
    while it runs; the row once."""
    await _poll(partial(_state, sessions, company_id, job_id), lambda state: state.final, wait_ms, poll_pause)
    return await run_in_threadpool(_load, sessions, company_id, job_id)


def poll_pause(waited: float) -> float:
    """The pause before the next look at a running query's state, ``waited`` seconds into the wait."""
    return min(_LONGEST_POLL_SECONDS, max(_FIRST_POLL_SECONDS, waited * _POLL_SHARE))


def _append_pause(_waited: float) -> float:
    return _APPEND_POLL_SECONDS


async def _poll(
    read: Callable[[], _T | None], ended: Callable[[_T], bool], wait_ms: int, pause: Callable[[float], float]
) -> _T | None:
    """``read()`` (in the thread pool) until it answers None or something ``ended``, or ``wait_ms`` passed."""
    began = time.monotonic()
    deadline = began + wait_ms / 1000
    while True:
        found = await run_in_threadpool(read)
        if found is None or ended(found):
            return found
        now = time.monotonic()
        if now >= deadline:
            return found
        await asyncio.sleep(min(deadline - now, pause(now - began)))
