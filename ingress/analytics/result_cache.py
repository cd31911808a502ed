"""/query's result cache (``useQueryCache``, default true; BigQuery's cached results).

After a query is planned, its cache key (``core.sql.cache_key``) is looked up among the company's earlier
jobs. On a hit the call records a new job for the caller, SUCCEEDED at once, that shares the earlier job's
stored result (``sinks/db/analytics/cached_results.py``): nothing is scanned or charged, no query slot is
taken, and nothing goes to the broker. The key holds the compiled plan, the caller's effective policy
included, and the snapshot of every table read, so only a caller whose grant compiles to the same plan, on the
same data, ever meets a result; every read of the new job's output is still checked against the reader's own
grant (``ingress/analytics/job_access.py``), with the caller's own policy stored on it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.lru import Lru, SizeBounds
from ingress.analytics.query_requests import RequestKey
from ingress.deps import Sessions
from schemas.admin import Principal
from sinks.db.analytics import cached_results as query_cache
from sinks.db.models import Job

MIN_LIFETIME_LEFT = timedelta(hours=24)
"""A result answers from the cache only while it is kept at least this long yet (results are kept 7 days),
so a job answered from the cache can be read for a day at least: the job shares the result's expiry."""


SOURCES_SIZES = SizeBounds(total_bytes=4096 * 256, entry_bytes=256)
"""Which job answered a key last, per ingress process: 4,096 keys (about 1 MiB of ids at most)."""

_sources: Lru[tuple[str, str], str] = Lru(4096, sizes=SOURCES_SIZES)


def cached_result(sessions: Sessions, company_id: str, key: str) -> Job | None:
    """The company's earlier job whose result answers ``key``, detached from its session; None on a miss.

    Every answer from the cache is a job of the key too, so the look by key reads more jobs the more often a
    result has answered. The job that answered a key last is remembered by id and read again by primary key,
    with every condition of the look by key, so the memo only saves the search: a job that no longer
    answers (expired, or near its expiry) is forgotten and the key looked up afresh."""
    fresh_until = datetime.now(UTC) + MIN_LIFETIME_LEFT
    memo_key = (company_id, key)
    with sessions() as session:
        known = _sources.get(memo_key)
        found = None
        if known is not None:
            found = query_cache.cached_result_of(session, known, company_id, key, fresh_until)
        if found is None:
            found = query_cache.cached_result(session, company_id, key, fresh_until)
            if found is None:
                _sources.discard(memo_key)
            else:
                _sources.put(memo_key, found.id, len(company_id) + len(key) + len(found.id))
        if found is not None:
            session.expunge(found)
        return found


def hit_view(
    *,
    job_id: str,
    caller: Principal,
    source: Job,
    request: RequestKey | None,
    now: datetime,
    table_id: str,
    table_ids: list[str],
    sql: str,
    plan: str,
    policy: str,
    cache_key: str,
) -> Job:
    """The caller's new job answered by ``source``'s result (``sinks/db/analytics/cached_results.hit_job``),
    in no session: what ``sinks/db/analytics/cached_results.create_hit`` records, and what the call answers
    with."""
    return query_cache.hit_job(
        job_id=job_id,
        source=source,
        created_by=caller.user_id,
        table_id=table_id,
        table_ids=table_ids,
        sql=sql,
        plan=plan,
        policy=policy,
        cache_key=cache_key,
        now=now,
        request_id=None if request is None else request.request_id,
        request_digest=None if request is None else request.digest,
    )


def cache_hit(job: Job | None) -> bool:
    """Whether ``job`` was answered from the cache (its result computed by another job)."""
    return job is not None and job.cached_from is not None
