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

from sqlalchemy import select
from sqlalchemy.orm import Session

from schemas.jobs import JobKind, JobState
from sinks.db.models import Job


def cached_result(session: Session, company_id: str, cache_key: str, fresh_until: datetime) -> Job | None:
    """The company's SUCCEEDED query of ``cache_key`` whose result is still stored and kept past
    ``fresh_until``; the one kept longest when there are several."""
    return session.scalar(
        select(Job)
        .where(
            Job.company_id == company_id,
            Job.cache_key == cache_key,
            Job.kind == JobKind.QUERY.value,
            Job.state == JobState.SUCCEEDED.value,
            Job.result_key.is_not(None),
            Job.expires_at > fresh_until,
        )
        .order_by(Job.expires_at.desc())
        .limit(1)
    )


def create_hit(
    session: Session,
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
) -> str:
    """A SUCCEEDED job of ``created_by`` answered by ``source``'s result: nothing scanned, no time spent.
    ``policy`` is the caller's own effective policy, so its output is read under the caller's grant."""
    session.add(
        Job(
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
    )
    session.flush()
    return job_id
