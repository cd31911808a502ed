"""Query jobs: /estimate, /query, /job-status, /cancel and /jobs under
``POST {base_url}/clients/svcdb/analytics/<operation>?resourceId=<table>``.

A query is checked and planned here, so a bad query is refused by the call itself; the job is recorded
QUEUED and its id produced to ``analytics.jobs`` before the answer, and a worker runs it.
"""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime
from functools import partial
from typing import Any

from fastapi import APIRouter, Response
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool

from core.request_ids import WINDOW
from ingress.analytics import job_views
from ingress.analytics.calls import ResourceId, check_resource, readable
from ingress.analytics.coded_errors import analytics_error, check_row_count
from ingress.analytics.deps import InlineQueriesDep
from ingress.analytics.inline_queries import InlineQueries, Ran, plan_digest
from ingress.analytics.job_access import JobOutput, OutputAccess, Reader
from ingress.analytics.job_results_view import preview_or_none
from ingress.analytics.job_views import (
    cancel_job,
    readable_tables,
    user_names,
    wait_for,
    wait_until_ended,
)
from ingress.analytics.preview_memo import answer_text, encode
from ingress.analytics.query_admission import plan_query, prepare, remaining_today
from ingress.analytics.query_requests import RequestKey, earlier_job
from ingress.analytics.result_cache import cache_hit, hit_view
from ingress.deps import (
    ClientCaller,
    CommitterDep,
    DbSession,
    MaskerDep,
    PublisherDep,
    ReadsDep,
    Sessions,
    SessionsDep,
    SettingsDep,
    StoreDep,
)
from ingress.errors import ApiError
from ingress.handoff import hand_off
from schemas.admin import Principal
from schemas.base import iso_utc
from schemas.ids import new_id
from schemas.jobs import (
    EstimateRequest,
    JobKind,
    JobsRequest,
    JobState,
    JobStatusRequest,
    QueryRequest,
)
from schemas.jobs import JobRequest as CancelRequest
from schemas.records import AnalyticsJobRef
from sinks.db.analytics import cached_results, job_listing, jobs
from sinks.db.models import Job
from sinks.iceberg.masking import Masker
from sinks.objectstore import ObjectStore

# Retry-After of a call refused because the company's concurrent-query slots are taken.
QUERY_SLOT_RETRY_SECONDS = 2

router = APIRouter(prefix="/clients/svcdb/analytics", tags=["analytics"])
SQL_IN_LISTINGS = 500


@router.post("/estimate")
async def estimate(
    body: EstimateRequest,
    caller: ClientCaller,
    sessions: SessionsDep,
    reads: ReadsDep,
    settings: SettingsDep,
    resource_id: str = ResourceId,
) -> Any:
    check_resource(resource_id, body.table_id)
    planned = await run_in_threadpool(plan_query, sessions, reads, settings, caller, body.table_id, body.sql)
    remaining = await run_in_threadpool(remaining_today, sessions, settings, caller.company_id)
    limit = min(settings.query_max_bytes_scanned, remaining)
    within = planned.estimated_bytes <= limit
    return {
        "estimatedBytesScanned": planned.estimated_bytes,
        "referencedTables": list(planned.compiled.tables),
        "withinLimits": within,
        "hint": None if within else planned.partition_hint(),
        "errors": [],
    }


def _find_earlier(sessions: Sessions, caller: Principal, table_id: str, key: RequestKey) -> Job | None:
    """The caller's job of the requestId, once the caller may still read the table: a retry answers what
    /job-status would, under the caller's grant of now."""
    with sessions() as session:
        readable(session, caller, table_id)
        job = earlier_job(session, caller, key, datetime.now(UTC))
        if job is not None:
            session.expunge(job)
        return job


@router.post("/query")
async def query(
    body: QueryRequest,
    caller: ClientCaller,
    settings: SettingsDep,
    sessions: SessionsDep,
    reads: ReadsDep,
    store: StoreDep,
    masker: MaskerDep,
    inline: InlineQueriesDep,
    committer: CommitterDep,
    publisher: PublisherDep,
    resource_id: str = ResourceId,
) -> Any:
    check_resource(resource_id, body.table_id)
    if body.max_rows is not None:
        cap = settings.query_max_result_rows
        check_row_count("maxRows", body.max_rows, cap, cap_is="the plan's result-row limit")
    key = RequestKey.of(body)
    if key is not None:
        # Before planning: a retry is neither planned nor charged again, and its own job's slot and scan
        # do not count against it.
        earlier = await run_in_threadpool(_find_earlier, sessions, caller, body.table_id, key)
        if earlier is not None:
            return await _answer(
                sessions, store, masker, caller, body, earlier.id, earlier.bytes_scanned, again=True
            )
    job_id = new_id()
    admitted = await run_in_threadpool(
        prepare, sessions, reads, settings, store, masker, caller, body, job_id, key
    )
    estimated = admitted.planned.estimated_bytes
    created = partial(
        _create,
        job_id=job_id,
        caller=caller,
        request=key,
        limit=settings.query_max_concurrent,
        bytes_scanned=estimated,
        cached=admitted.source,
        **admitted.job.kwargs(),
    )
    ran = None
    digest = None if admitted.source is not None else plan_digest(admitted.job.plan)  # cached: none runs
    if digest is not None and inline.admits(caller.company_id, estimated, body.wait_ms, digest):
        ran = await inline.run(caller.company_id, job_id, admitted.plan, body.wait_ms, digest)
    try:
        stored = await committer.run(partial(created, ran=ran))
    except IntegrityError:
        # A concurrent duplicate (another transaction) took the requestId after the look above.
        _discard(inline, ran)
        earlier = (
            None
            if key is None
            else await run_in_threadpool(_find_earlier, sessions, caller, body.table_id, key)
        )
        if earlier is None:
            raise
        return await _answer(
            sessions, store, masker, caller, body, earlier.id, earlier.bytes_scanned, again=True
        )
    except ApiError:  # refused (the company's query slots are taken): nothing was recorded
        _discard(inline, ran)
        raise
    # Any other failure (the database, the call cancelled) leaves the result: its job may have committed.
    if isinstance(stored, Job):  # run here and recorded ended; its preview from the rows it kept
        head = None if ran is None else ran.head
        preview = await run_in_threadpool(
            preview_or_none, sessions, store, masker, caller, stored, body.reveal, head
        )
        return _json(answer_text(_summary(job_id, stored, estimated), preview))
    if stored != job_id:  # a duplicate in the same commit batch created it first
        _discard(inline, ran)
        return await _answer(sessions, store, masker, caller, body, stored, estimated, again=True)
    if admitted.hit is not None:  # answered from the cache: SUCCEEDED as recorded, its preview read already
        return _json(answer_text(_summary(job_id, admitted.hit, 0), admitted.preview))
    await hand_off(publisher, AnalyticsJobRef(job_id=job_id), key=job_id)
    return await _answer(sessions, store, masker, caller, body, job_id, estimated, again=False)


def _discard(inline: InlineQueries, ran: Ran | None) -> None:
    """A query run in the ingress whose job was not recorded: its result is nobody's."""
    if ran is not None and ran.outcome.result_key is not None:
        inline.discard(ran.outcome.result_key)


async def _answer(
    sessions: Sessions,
    store: ObjectStore,
    masker: Masker,
    caller: Principal,
    body: QueryRequest,
    job_id: str,
    bytes_scanned: int,
    *,
    again: bool,
) -> Response:
    """/query's answer for the job; ``again``: an earlier submission's job, whose state is read even
    without ``waitMs`` (a new job is QUEUED)."""
    job = await wait_for(sessions, caller.company_id, job_id, body.wait_ms) if body.wait_ms or again else None
    answer = _summary(job_id, job, bytes_scanned)
    if job is None or job.state != JobState.SUCCEEDED.value:
        return _json(encode(answer))
    preview = await run_in_threadpool(preview_or_none, sessions, store, masker, caller, job, body.reveal)
    return _json(answer_text(answer, preview))


def _json(text: bytes) -> Response:
    """An answer written already (a preview is kept as JSON text and spliced in:
    ``ingress/analytics/preview_memo``)."""
    return Response(text, media_type="application/json")


def _summary(job_id: str, job: Job | None, bytes_scanned: int) -> dict[str, Any]:
    """/query's answer but the preview; ``job`` None: not read (QUEUED)."""
    answer: dict[str, Any] = {
        "jobId": job_id,
        "state": JobState.QUEUED.value if job is None else job.state,
        "bytesScanned": bytes_scanned if job is None else job.bytes_scanned,
        "elapsedMs": None if job is None else job.elapsed_ms,
        "cacheHit": cache_hit(job),
        "error": None,
        "errors": [],
    }
    if job is not None and job.error_code:
        answer["error"] = {"errorCode": job.error_code, "message": job.error_message, "hint": job.error_hint}
    return answer


def _create(
    session: Any,
    *,
    job_id: str,
    caller: Principal,
    request: RequestKey | None,
    limit: int,
    bytes_scanned: int,
    cached: Job | None,
    ran: Ran | None = None,
    **fields: Any,
) -> str | Job:
    """The new job's id, or the id of the caller's job of the same requestId (which takes no new slot).
    With ``cached`` the new job is answered by that job's result: it takes no slot either. With ``ran``
    (run in the ingress already) it is recorded ended, as a worker would have left it, and returned."""
    now = datetime.now(UTC)
    earlier = None if request is None else earlier_job(session, caller, request, now)
    if earlier is not None:
        return earlier.id
    if cached is not None:
        if request is not None:
            jobs.release_request_id(
                session, caller.company_id, caller.user_id, request.request_id, now - WINDOW
            )
        hit = hit_view(job_id=job_id, caller=caller, source=cached, request=request, now=now, **fields)
        return cached_results.create_hit(session, hit)
    if jobs.active_queries(session, caller.company_id) >= limit:
        # On PostgreSQL a duplicate may have committed since the look above, taking the last slot itself.
        earlier = None if request is None else earlier_job(session, caller, request, now)
        if earlier is not None:
            return earlier.id
        raise analytics_error(
            "QUOTA",
            f"The plan allows {limit} queued or running queries at once",
            "Wait for a running query to finish, or cancel one",
            # When a query ends is not known here; most end within seconds.
            retry_after=QUERY_SLOT_RETRY_SECONDS,
        )
    if request is not None:
        jobs.release_request_id(session, caller.company_id, caller.user_id, request.request_id, now - WINDOW)
    job_fields: dict[str, Any] = {
        "job_id": job_id,
        "company_id": caller.company_id,
        "kind": JobKind.QUERY,
        "created_by": caller.user_id,
        "request_id": None if request is None else request.request_id,
        "request_digest": None if request is None else request.digest,
        "bytes_scanned": bytes_scanned,
        **fields,
    }
    if ran is not None:
        outcome, finished = ran.outcome, ran.finished
        return jobs.create_ended(session, outcome=outcome, finished=finished, now=ran.started, **job_fields)
    return jobs.create(session, now=now, **job_fields)


def _status(sessions: Sessions, caller: Principal, body: JobStatusRequest) -> dict[str, Any]:
    with sessions() as session:
        readable(session, caller, body.table_id)
        return job_views.job_status(session, caller, body.job_id) | {"errors": []}


@router.post("/job-status")
async def job_status(
    body: JobStatusRequest, caller: ClientCaller, sessions: SessionsDep, resource_id: str = ResourceId
) -> Any:
    check_resource(resource_id, body.table_id)
    answer = await run_in_threadpool(_status, sessions, caller, body)
    if body.wait_ms and not JobState(answer["state"]).final:
        await wait_until_ended(sessions, caller.company_id, body.job_id, body.wait_ms, answer["kind"])
        answer = await run_in_threadpool(_status, sessions, caller, body)
    return answer


@router.post("/cancel")
def cancel(
    body: CancelRequest, caller: ClientCaller, session: DbSession, resource_id: str = ResourceId
) -> Any:
    check_resource(resource_id, body.table_id)
    readable(session, caller, body.table_id)
    state = cancel_job(session, caller, body.job_id, datetime.now(UTC))
    return {"jobId": body.job_id, "state": state, "errors": []}


def _cursor(text: str | None) -> tuple[datetime, str] | None:
    """The position a /jobs cursor names; 400 INVALID_REQUEST for text this service did not issue."""
    if not text:
        return None
    try:
        moment, job_id = base64.urlsafe_b64decode(text.encode()).decode().split("|", 1)
        issued = datetime.fromisoformat(moment)
        # A time without its zone would not compare with the stored ones (and is not one this service
        # writes); one with a zone must also be a time in UTC.
        created_at = issued.astimezone(UTC) if issued.tzinfo is not None else None
    except (ValueError, OverflowError, binascii.Error, UnicodeDecodeError):
        created_at, job_id = None, ""
    if created_at is None or not job_id:
        raise analytics_error(
            "INVALID_REQUEST",
            "cursor: not a cursor this service issued",
            "Send the nextCursor of the previous page as it was, or no cursor for the first page",
        )
    return created_at, job_id


def _next_cursor(created_at: datetime, job_id: str) -> str:
    return base64.urlsafe_b64encode(f"{created_at.isoformat()}|{job_id}".encode()).decode()


@router.post("/jobs")
def list_jobs(
    body: JobsRequest, caller: ClientCaller, session: DbSession, resource_id: str = ResourceId
) -> Any:
    check_resource(resource_id, body.table_id)
    readable(session, caller, body.table_id)
    before = _cursor(body.cursor)
    shown: list[Any] = []
    readable_by_tables: dict[tuple[str, ...], bool] = {}
    outputs = OutputAccess(session, Reader.of(caller))
    exhausted = False
    while len(shown) <= body.limit and not exhausted:
        batch = job_listing.listing(
            session,
            caller.company_id,
            body.table_id,
            kind=body.kind.value if body.kind else None,
            state=body.state.value if body.state else None,
            created_by=caller.user_id if body.mine else None,
            before=before,
            limit=body.limit + 1,
        )
        exhausted = len(batch) <= body.limit
        for item in batch:
            before = (item.created_at, item.job_id)
            key = tuple(item.tables)
            if key not in readable_by_tables:
                readable_by_tables[key] = readable_tables(session, caller, item.tables)
            if item.created_by == caller.user_id or readable_by_tables[key]:
                shown.append(item)
            if len(shown) > body.limit:
                break
    more = len(shown) > body.limit
    shown = shown[: body.limit]
    names = user_names(session, caller.company_id, {j.created_by for j in shown if j.created_by})
    return {
        "jobs": [_listed(item, names, outputs.refusal(JobOutput.of_listed(item)) is None) for item in shown],
        "nextCursor": _next_cursor(shown[-1].created_at, shown[-1].job_id) if more else None,
        "errors": [],
    }


def _listed(item: job_listing.Listed, names: dict[str, str], output_readable: bool) -> dict[str, Any]:
    """A /jobs entry. A job whose output the caller may not read (``job_access``) is listed without its
    SQL text and row count: both were shaped by its runner's grant."""
    return {
        "jobId": item.job_id,
        "kind": item.kind,
        "state": item.state,
        "sql": item.sql[:SQL_IN_LISTINGS] if item.sql is not None and output_readable else None,
        "createdBy": {"userId": item.created_by, "name": names.get(item.created_by or "")},
        "createdAt": iso_utc(item.created_at),
        "finishedAt": iso_utc(item.finished_at),
        "resultRowCount": item.result_row_count if output_readable else None,
        "bytesScanned": item.bytes_scanned,
        "elapsedMs": item.elapsed_ms,
    }
