"""The result cache in the metadata DB: finding a company's earlier result for a cache key, and recording a
query answered from it.

A job answered from the cache is a job of its own (its id, its caller, its caller's policy), SUCCEEDED when
it is created, that shares the earlier job's result file rather than copying it: ``result_key`` names the
same file and ``expires_at`` is the earlier job's. The file is removed by the sweep when the earlier job
expires, and at that moment every job sharing it expires too, so no job ever points at a removed result.
"""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from schemas.jobs import JobKind, JobState
from sinks.db.models import Job


def _answers(company_id: str, cache_key: str, fresh_until: datetime) -> tuple[ColumnElement[bool], ...]:
    """A company's SUCCEEDED query of ``cache_key`` whose result is still stored and kept past
    ``fresh_until``."""
    return (
        Job.company_id == company_id,
        Job.cache_key == cache_key,
        Job.kind == JobKind.QUERY.value,
        Job.state == JobState.SUCCEEDED.value,
        Job.result_key.is_not(None),
        Job.expires_at > fresh_until,
    )


def cached_result(session: Session, company_id: str, cache_key: str, fresh_until: datetime) -> Job | None:
    """The company's SUCCEEDED query of ``cache_key`` whose result is still stored and kept past
    ``fresh_until``; the one kept longest when there are several. Every answer from the cache is a job of
    the key too, so this reads every such job of the key: :func:`cached_result_of` is the cheap look."""
    return session.scalar(
        select(Job)
        .where(*_answers(company_id, cache_key, fresh_until))
        .order_by(Job.expires_at.desc())
        .limit(1)
    )


def cached_result_of(
    session: Session, job_id: str, company_id: str, cache_key: str, fresh_until: datetime
) -> Job | None:
    """Job ``job_id`` when it still answers ``cache_key`` as :func:`cached_result` requires (one read by
    primary key), else None."""
    return session.scalar(select(Job).where(Job.id == job_id, *_answers(company_id, cache_key, fresh_until)))


def hit_job(
    *,
    job_id: str,
    source: Job,
    created_by: str,
    table_id: str,
    table_ids: list[str],
    sql: str,
    plan: str,
    policy: str | None,
    cache_key: str,
    now: datetime,
    request_id: str | None = None,
    request_digest: str | None = None,
) -> Job:
    """A SUCCEEDED job of ``created_by`` answered by ``source``'s result: nothing scanned, no time spent.
    ``policy`` is the caller's own effective policy, so its output is read under the caller's grant. Not
    added to any session: :func:`create_hit` records it."""
    return Job(
        id=job_id,
        company_id=source.company_id,
        table_id=table_id,
        tables_json=json.dumps(table_ids),
        kind=JobKind.QUERY.value,
        state=JobState.SUCCEEDED.value,
        created_by=created_by,
        sql=sql,
        plan_json=plan,
        result_key=source.result_key,
        result_row_count=source.result_row_count,
        truncated=source.truncated,
        result_columns_json=source.result_columns_json,
        bytes_scanned=0,
        elapsed_ms=0,
        cancel_requested=False,
        attempt=0,
        notes_json=source.notes_json,
        policy_json=policy,
        request_id=request_id,
        request_digest=request_digest,
        cache_key=cache_key,
        cached_from=source.cached_from or source.id,
        created_at=now,
        started_at=now,
        finished_at=now,
        expires_at=source.expires_at,
    )


def create_hit(session: Session, hit: Job) -> str:
    """Record ``hit`` (a :func:`hit_job`); its id."""
    session.add(hit)
    session.flush()
    return hit.id
