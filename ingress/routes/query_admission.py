"""/query's admission: plan the query for its caller, key it for the result cache and find the earlier
result that answers it, or check it against the plan's scan limits before it may run (a query answered
from the cache scans nothing, so only a malformed maxBytesScanned refuses it)."""

from __future__ import annotations

from datetime import UTC, datetime

from core.query_cache import cache_key
from ingress.analytics_errors import analytics_error
from ingress.query_cache import cached_result
from ingress.query_planning import Planned, plan, query_plan
from ingress.routes.analytics import readable
from ingress.sql_analysis import SqlAnalysis
from ingress.state import Services
from schemas.admin import Principal
from schemas.jobs import QueryPlan, QueryRequest
from sinks.db import jobs
from sinks.db.models import Job


def plan_query(svc: Services, caller: Principal, table_id: str, sql: str) -> Planned:
    with svc.sessions() as session:
        readable(session, caller, table_id)
        return plan(session, svc.reads, caller, sql, SqlAnalysis.of(svc.settings))


def remaining_today(svc: Services, company_id: str) -> int:
    midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    with svc.sessions() as session:
        used = jobs.scanned_since(session, company_id, midnight)
    return max(0, svc.settings.query_daily_bytes_scanned - used)


def prepare(
    svc: Services, caller: Principal, body: QueryRequest
) -> tuple[Planned, QueryPlan, str | None, Job | None]:
    """The plan, the job's plan, its result-cache key and the earlier job whose result answers it (None:
    the query runs, within the plan's limits). One worker-thread hop for all of it. An answer from the
    cache scans nothing, so the scan limits do not apply to it (a maxBytesScanned over the plan's limit is
    still refused: the request itself is wrong)."""
    planned = plan_query(svc, caller, body.table_id, body.sql)
    settings = svc.settings
    job_plan = query_plan(
        planned,
        max_rows=body.max_rows or settings.query_max_result_rows,
        max_result_bytes=settings.query_max_result_bytes,
        timeout_seconds=settings.query_timeout_seconds,
    )
    key = cache_key(job_plan, body.reveal)
    earlier = cached_result(svc, caller.company_id, key) if body.use_query_cache and key else None
    if earlier is None:
        check_limits(svc, body, planned, caller.company_id)
    else:
        check_max_bytes_scanned(svc, body, planned)
    return planned, job_plan, key, earlier


def check_max_bytes_scanned(svc: Services, body: QueryRequest, planned: Planned) -> None:
    limit = svc.settings.query_max_bytes_scanned
    if body.max_bytes_scanned is not None and body.max_bytes_scanned > limit:
        raise analytics_error(
            "SCAN_LIMIT",
            f"maxBytesScanned cannot exceed the plan's per-query limit of {limit}",
            planned.partition_hint(),
        )


def check_limits(svc: Services, body: QueryRequest, planned: Planned, company_id: str) -> int:
    settings = svc.settings
    check_max_bytes_scanned(svc, body, planned)
    estimated = planned.estimated_bytes
    if body.max_bytes_scanned is not None and estimated > body.max_bytes_scanned:
        raise analytics_error(
            "SCAN_LIMIT",
            f"The query would scan up to {estimated} bytes, over maxBytesScanned ({body.max_bytes_scanned})",
            planned.partition_hint(),
        )
    if estimated > settings.query_max_bytes_scanned:
        raise analytics_error(
            "SCAN_LIMIT",
            f"The query would scan up to {estimated} bytes, over the plan's per-query limit",
            planned.partition_hint(),
        )
    if estimated > remaining_today(svc, company_id):
        raise analytics_error(
            "SCAN_LIMIT",
            "The query would exceed the remaining daily scan allowance",
            planned.partition_hint(),
        )
    return body.max_rows or settings.query_max_result_rows
