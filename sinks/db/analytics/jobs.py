"""Jobs in the metadata DB: created QUEUED by the ingress, claimed and finished by a worker with
compare-and-set updates, so a job ends exactly once whoever (worker, cancel, reconciler) gets there first."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, exists, func, or_, select, update
from sqlalchemy.orm import Session

from schemas.jobs import JobKind, JobState
from sinks.db.analytics import append_jobs, query_scans
from sinks.db.index_hints import unindexed
from sinks.db.models import Job, ReadCharge

RESULT_RETENTION = timedelta(days=7)
MAX_ATTEMPTS = 3
ACTIVE = (JobState.QUEUED.value, JobState.RUNNING.value)


def create(session: Session, **fields: Any) -> str:
    """A QUEUED job (the fields: ``new_job``). With a ``request_id`` the flush raises IntegrityError when
    the user's requestId is taken."""
    job = new_job(**fields)
    session.add(job)
    session.flush()
    _count_scan(session, job)
    return job.id


def create_ended(session: Session, *, outcome: Outcome, finished: datetime, **fields: Any) -> Job:
    """A job that has run already (a query answered in the ingress, ``ingress/analytics/inline_queries``),
    recorded as a worker leaves one: started at its creation (``now``), ended at ``finished`` with
    ``outcome``. One INSERT; the job is returned detached, its columns loaded."""
    job = new_job(**fields)
    job.started_at = job.heartbeat_at = job.created_at
    job.attempt = 1
    for name, value in ended_values(outcome, job.created_at, finished, job.notes_json).items():
        setattr(job, name, value)
    session.add(job)
    session.flush()
    _count_scan(session, job)
    session.expunge(job)
    return job


def _count_scan(session: Session, job: Job) -> None:
    """A query's estimated bytes count against its company's allowance of the day it was created."""
    if job.kind == JobKind.QUERY.value:
        query_scans.count(session, job.company_id, job.created_at.date(), job.bytes_scanned)


def new_job(
    *,
    job_id: str,
    company_id: str,
    table_id: str,
    table_ids: list[str],
    kind: JobKind,
    created_by: str,
    sql: str | None,
    plan: str,
    bytes_scanned: int,
    now: datetime,
    notes: list[str] | None = None,
    policy: str | None = None,
    request_id: str | None = None,
    request_digest: str | None = None,
    cache_key: str | None = None,
) -> Job:
    """A QUEUED job's row. ``policy``: the runner's effective policy (``core.policy.dumps``), for queries.
    ``cache_key``: the query's result-cache key (``core.sql.cache_key``), kept if it runs as planned."""
    return Job(
        id=job_id,
        company_id=company_id,
        table_id=table_id,
        tables_json=json.dumps(table_ids),
        kind=kind.value,
        state=JobState.QUEUED.value,
        created_by=created_by,
        sql=sql,
        plan_json=plan,
        bytes_scanned=bytes_scanned,
        truncated=False,
        cancel_requested=False,
        attempt=0,
        notes_json=json.dumps(notes) if notes else None,
        policy_json=policy,
        request_id=request_id,
        request_digest=request_digest,
        cache_key=cache_key,
        created_at=now,
    )


def get(session: Session, company_id: str, job_id: str) -> Job | None:
    return session.scalar(select(Job).where(Job.company_id == company_id, Job.id == job_id))


def state(session: Session, company_id: str, job_id: str) -> JobState | None:
    """A job's state, an APPEND job's (``append_jobs``) included; None when there is no such job."""
    found = session.scalar(select(Job.state).where(Job.company_id == company_id, Job.id == job_id))
    if found is not None:
        return JobState(found)
    append = append_jobs.get(session, company_id, job_id)
    return None if append is None else append.state


def by_request(
    session: Session, company_id: str, created_by: str, request_id: str, since: datetime
) -> Job | None:
    """The user's job of ``request_id`` created since ``since`` (the requestId window)."""
    return session.scalar(
        select(Job).where(
            Job.company_id == company_id,
            Job.created_by == created_by,
            Job.request_id == request_id,
            Job.created_at >= since,
        )
    )


def release_request_id(
    session: Session, company_id: str, created_by: str, request_id: str, before: datetime
) -> None:
    """Free ``request_id`` from the user's job created before ``before`` (past the window), so the unique
    index lets a new job claim it; the old job is otherwise unchanged."""
    session.execute(
        update(Job)
        .where(
            Job.company_id == company_id,
            Job.created_by == created_by,
            Job.request_id == request_id,
            Job.created_at < before,
        )
        .values(request_id=None)
    )


def by_id(session: Session, job_id: str) -> Job | None:
    """For the worker, which acts on a job id it received from the ingress, never from a user."""
    return session.get(Job, job_id)


def active_queries(session: Session, company_id: str) -> int:
    """The company's queued and running queries, found through the state index: SQLite's planner, without
    statistics, walked every job the company ever ran instead (a dashboard's thousandth query read a
    thousand rows to count two)."""
    return int(
        session.scalar(
            select(func.count())
            .select_from(Job)
            .where(
                unindexed(Job.company_id) == company_id,
                Job.kind == JobKind.QUERY.value,
                Job.state.in_(ACTIVE),
            )
        )
        or 0
    )


def scanned_since(session: Session, company_id: str, since: datetime) -> int:
    """Bytes counted against the company's scan allowance from the UTC day of ``since`` (a midnight) on:
    its query jobs' estimates (cancelled and failed ones count) and its describe and preview reads, one
    counter row per day (``sinks/db/analytics/query_scans.py``, ``sinks/db/analytics/read_charges.py``)."""
    total = session.scalar(
        select(func.coalesce(func.sum(ReadCharge.bytes_read + ReadCharge.query_bytes), 0)).where(
            ReadCharge.company_id == company_id, ReadCharge.day >= since.date()
        )
    )
    return int(total or 0)


def loaded_since(session: Session, company_id: str, since: datetime) -> int:
    """Bytes of the files of the company's loads created since ``since`` (failed ones count)."""
    total = session.scalar(
        select(func.coalesce(func.sum(Job.bytes_scanned), 0)).where(
            Job.company_id == company_id, Job.kind == JobKind.LOAD.value, Job.created_at >= since
        )
    )
    return int(total or 0)


def claim(session: Session, job_id: str, now: datetime) -> Job | None:
    """QUEUED → RUNNING; None when someone else holds the job or it has ended (cancelled while queued)."""
    moved = session.execute(
        update(Job)
        .where(Job.id == job_id, Job.state == JobState.QUEUED.value)
        .values(state=JobState.RUNNING.value, started_at=now, heartbeat_at=now, attempt=Job.attempt + 1)
    )
    if getattr(moved, "rowcount", 0) != 1:
        return None
    return session.get(Job, job_id, populate_existing=True)


def heartbeat(session: Session, job_id: str, now: datetime) -> str | None:
    """Refresh a running job's heartbeat; answers the job's state, so the runner learns of a cancel."""
    session.execute(
        update(Job).where(Job.id == job_id, Job.state == JobState.RUNNING.value).values(heartbeat_at=now)
    )
    return session.scalar(select(Job.state).where(Job.id == job_id))


@dataclass(frozen=True)
class Outcome:
    state: JobState
    result_key: str | None = None
    row_count: int | None = None
    truncated: bool = False
    columns: list[dict[str, Any]] | None = None
    error_code: str | None = None
    error_message: str | None = None
    error_hint: str | None = None
    rows_loaded: int | None = None
    rows_rejected: int | None = None
    rejected_sample: list[dict[str, Any]] | None = None
    notes: list[str] | None = None
    # False when the result may not answer the job's cache key (its worker read other snapshots than the
    # plan named): the key is cleared, so the result is never served from the cache.
    cacheable: bool = True


def finish(session: Session, job_id: str, outcome: Outcome, now: datetime) -> bool:
    """RUNNING → a final state, once. False when the job had already ended (cancelled meanwhile)."""
    job = session.get(Job, job_id)
    if job is None:
        return False
    values = ended_values(outcome, job.started_at or job.created_at, now, job.notes_json)
    moved = session.execute(
        update(Job).where(Job.id == job_id, Job.state == JobState.RUNNING.value).values(**values)
    )
    return getattr(moved, "rowcount", 0) == 1


def ended_values(
    outcome: Outcome, started: datetime, now: datetime, notes_json: str | None
) -> dict[str, Any]:
    """The columns a job ends with: ``outcome`` reached at ``now`` by a run started at ``started``."""
    values: dict[str, Any] = {
        "state": outcome.state.value,
        "finished_at": now,
        "elapsed_ms": max(0, int((now - started).total_seconds() * 1000)),
        "result_key": outcome.result_key,
        "result_row_count": outcome.row_count,
        "truncated": outcome.truncated,
        "result_columns_json": None if outcome.columns is None else json.dumps(outcome.columns),
        "error_code": outcome.error_code,
        "error_message": outcome.error_message,
        "error_hint": outcome.error_hint,
        "rows_loaded": outcome.rows_loaded,
        "rows_rejected": outcome.rows_rejected,
        "rejected_sample_json": None
        if outcome.rejected_sample is None
        else json.dumps(outcome.rejected_sample),
        "notes_json": notes_json if outcome.notes is None else json.dumps(outcome.notes),
        "expires_at": now + RESULT_RETENTION if outcome.state is JobState.SUCCEEDED else None,
    }
    if not outcome.cacheable:
        values["cache_key"] = None
    return values


def cancel(session: Session, company_id: str, job_id: str, now: datetime) -> str | None:
    """QUEUED or RUNNING → CANCELLED at once (a running job's worker sees it and stops); the job's state
    afterwards, or None when there is no such job."""
    job = get(session, company_id, job_id)
    if job is None:
        return None
    if job.state in ACTIVE:
        started = job.started_at or job.created_at
        session.execute(
            update(Job)
            .where(Job.id == job_id, Job.state.in_(ACTIVE))
            .values(
                state=JobState.CANCELLED.value,
                cancel_requested=True,
                finished_at=now,
                elapsed_ms=max(0, int((now - started).total_seconds() * 1000)),
            )
        )
    return session.scalar(select(Job.state).where(Job.id == job_id))


# The reconciler asks every few seconds and nearly always finds none: a prebuilt EXISTS answers that for a
# fraction of what the ORM query costs, which an idle worker would pay.
_LOST_PROBE = select(
    exists().where(
        or_(
            (Job.state == JobState.QUEUED.value) & (Job.created_at < bindparam("queued_before")),
            (Job.state == JobState.RUNNING.value) & (Job.heartbeat_at < bindparam("running_before")),
        )
    )
)


def lost(session: Session, now: datetime, queued_grace: timedelta, running_grace: timedelta) -> list[str]:
    """Jobs to hand out again: QUEUED for too long (their record may be lost) and RUNNING with a stale
    heartbeat (their worker died; a query is read-only, so running it again is safe). A job that was
    claimed MAX_ATTEMPTS times fails instead."""
    bounds = {"queued_before": now - queued_grace, "running_before": now - running_grace}
    if not session.connection().execute(_LOST_PROBE, bounds).scalar():
        return []
    stale = session.scalars(
        select(Job)
        .where(
            or_(
                (Job.state == JobState.QUEUED.value) & (Job.created_at < now - queued_grace),
                (Job.state == JobState.RUNNING.value) & (Job.heartbeat_at < now - running_grace),
            )
        )
        .limit(200)
    ).all()
    again: list[str] = []
    for job in stale:
        if job.state == JobState.RUNNING.value and job.attempt >= MAX_ATTEMPTS:
            finish(
                session,
                job.id,
                Outcome(
                    JobState.FAILED,
                    error_code="INTERNAL",
                    error_message=f"The job's worker stopped {job.attempt} times while running it",
                    error_hint="Retry the query; if it keeps failing it may need too much memory",
                ),
                now,
            )
            continue
        if job.state == JobState.RUNNING.value:
            session.execute(
                update(Job)
                .where(Job.id == job.id, Job.state == JobState.RUNNING.value)
                .values(state=JobState.QUEUED.value)
            )
        else:
            # Pushes the next look at this job one grace period ahead.
            job.created_at = now
        again.append(job.id)
    return again


def expired_results(session: Session, now: datetime, limit: int = 200) -> list[tuple[str, str]]:
    rows = session.execute(
        select(Job.id, Job.result_key).where(Job.result_key.is_not(None), Job.expires_at < now).limit(limit)
    ).all()
    return [(job_id, str(key)) for job_id, key in rows]


def forget_result(session: Session, job_id: str) -> None:
    session.execute(update(Job).where(Job.id == job_id).values(result_key=None))
