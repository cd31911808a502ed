"""/query's admission: plan the query for its caller, key it for the result cache and find the earlier
result that answers it, or check it against the plan's scan limits before it may run (a query answered
from the cache scans nothing, so only a malformed maxBytesScanned refuses it)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

from core import policy
from core.sql.cache_key import cache_key
from ingress.analytics.calls import readable
from ingress.analytics.coded_errors import analytics_error
from ingress.analytics.job_results_view import preview_or_none
from ingress.analytics.query_planning import Planned, plan, query_plan
from ingress.analytics.query_requests import RequestKey
from ingress.analytics.result_cache import cached_result, hit_view
from ingress.analytics.sql_analysis import SqlAnalysis
from ingress.deps import Sessions
from schemas.admin import Principal
from schemas.jobs import QueryPlan, QueryRequest
from schemas.settings import Settings
from sinks.db.analytics import jobs
from sinks.db.models import Job
from sinks.iceberg.masking import Masker
from sinks.iceberg.read_cache import TableReads
from sinks.objectstore import ObjectStore


def plan_query(
    sessions: Sessions, reads: TableReads, settings: Settings, caller: Principal, table_id: str, sql: str
) -> Planned:
    with sessions() as session:
        known = readable(session, caller, table_id)
        return plan(session, reads, caller, sql, SqlAnalysis.of(settings), known)


def remaining_today(sessions: Sessions, settings: Settings, company_id: str) -> int:
    midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    with sessions() as session:
        used = jobs.scanned_since(session, company_id, midnight)
    return max(0, settings.query_daily_bytes_scanned - used)


@dataclass(frozen=True)
class JobFields:
    """What a /query job is recorded with, besides its id, its caller and its request."""

    table_id: str
    table_ids: list[str]
    sql: str
    plan: str
    policy: str  # the caller's effective policy on every table read (``core.policy`` JSON)
    cache_key: str | None

    def kwargs(self) -> dict[str, Any]:
        return {field.name: getattr(self, field.name) for field in fields(self)}


@dataclass(frozen=True)
class Admitted:
    """A query admitted for its caller: its plan and its job's fields. When the result cache answers it:
    the earlier job whose result does (``source``), the caller's new job as it is to be recorded (``hit``)
    and that job's preview (None when the result store failed the read)."""

    planned: Planned
    job: JobFields
    plan: QueryPlan
    source: Job | None = None
    hit: Job | None = None
    preview: bytes | None = None  # JSON text


def prepare(
    sessions: Sessions,
    reads: TableReads,
    settings: Settings,
    store: ObjectStore,
    masker: Masker,
    caller: Principal,
    body: QueryRequest,
    job_id: str,
    request: RequestKey | None,
) -> Admitted:
    """The plan, the job's fields and, when the cache answers, the answer (see :class:`Admitted`); else
    the query runs, within the plan's limits. One worker-thread hop for all of it. An answer from the
    cache scans nothing, so the scan limits do not apply to it (a maxBytesScanned over the plan's limit is
    still refused: the request itself is wrong). The answer's preview is read in the same hop, as every read
    of a job's output is: under the caller's grant of now, checked against the policy the job records."""
    planned = plan_query(sessions, reads, settings, caller, body.table_id, body.sql)
    job_plan = query_plan(
        planned,
        max_rows=body.max_rows or settings.query_max_result_rows,
        max_result_bytes=settings.query_max_result_bytes,
        timeout_seconds=settings.query_timeout_seconds,
    )
    key = cache_key(job_plan, body.reveal, planned.column_types())
    job = JobFields(
        table_id=body.table_id,
        table_ids=planned.table_ids,
        sql=body.sql,
        plan=job_plan.model_dump_json(),
        policy=policy.dumps(planned.runner_policy()),
        cache_key=key,
    )
    earlier = cached_result(sessions, caller.company_id, key) if body.use_query_cache and key else None
    if earlier is None:
        check_limits(sessions, settings, body, planned, caller.company_id)
        return Admitted(planned, job, job_plan)
    check_max_bytes_scanned(settings, body, planned)
    now = datetime.now(UTC)
    hit = hit_view(job_id=job_id, caller=caller, source=earlier, request=request, now=now, **job.kwargs())
    preview = preview_or_none(sessions, store, masker, caller, hit, body.reveal)
    return Admitted(planned, job, job_plan, earlier, hit, preview)


def check_max_bytes_scanned(settings: Settings, body: QueryRequest, planned: Planned) -> None:
    limit = settings.query_max_bytes_scanned
    if body.max_bytes_scanned is not None and body.max_bytes_scanned > limit:
        raise analytics_error(
            "SCAN_LIMIT",
            f"maxBytesScanned cannot exceed the plan's per-query limit of {limit}",
            planned.partition_hint(),
        )


def check_limits(
    sessions: Sessions, settings: Settings, body: QueryRequest, planned: Planned, company_id: str
) -> int:
    check_max_bytes_scanned(settings, body, planned)
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
    if estimated > remaining_today(sessions, settings, company_id):
        raise analytics_error(
            "SCAN_LIMIT",
            "The query would exceed the remaining daily scan allowance",
            planned.partition_hint(),
        )
    return body.max_rows or settings.query_max_result_rows
