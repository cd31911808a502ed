"""A finished query's result: /job-results pages, /job-download-url, and the signed download link itself,
served by the ingress (``GET {base_url}/clients/svcdb/analytics/download/<token>``, no API key: the link is
the credential, issued only to the caller who ran the job and valid for 5 minutes).

Every one of them checks first that the reader's current grant lets them read the job's output
(``ingress/analytics/job_access.py``); the link checks again when it is followed, with its user's grant of
that moment. Downloads (CSV, Parquet, JSON Lines) stream from the stored file in bounded pieces
(``sinks/result_downloads.py``).

A store that cannot be read answers 503 ``STORAGE_UNAVAILABLE`` with Retry-After (the global handler of
StorageUnavailable): for a download, when its first piece cannot be read; a download that breaks off later
has sent its 200 and ends with its connection cut. A result file that is gone answers 404 as expired."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from ingress.analytics.calls import ResourceId, check_resource, readable
from ingress.analytics.coded_errors import analytics_error, check_row_count
from ingress.analytics.job_access import Reader, check_output
from ingress.analytics.job_results_view import available, check_reveal_pair, page_of, revealed_cell
from ingress.analytics.job_views import own_job, result_columns_of, revealable, visible_job
from ingress.analytics.preview_memo import encode
from ingress.analytics.signed_links import LinkError, make_token, read_token
from ingress.deps import ClientCaller, MaskerDep, Sessions, SessionsDep, SettingsDep, StoreDep
from schemas.admin import Principal
from schemas.base import iso_utc
from schemas.jobs import MAX_PAGE_SIZE, DownloadRequest, JobResultsRequest
from schemas.settings import Settings
from sinks.db import tenancy
from sinks.db.analytics import jobs
from sinks.db.models import Job
from sinks.iceberg.masking import Masker
from sinks.job_results import ResultGone
from sinks.objectstore import ObjectStore
from sinks.result_downloads import csv_chunks, jsonl_chunks, parquet_chunks, started

router = APIRouter(prefix="/clients/svcdb/analytics", tags=["analytics"])
DOWNLOAD_SECONDS = 300
_PURPOSE = "job-download"
_Chunks = Callable[
    [ObjectStore, str, Sequence[dict[str, Any]], dict[str, bool], bool, Callable[[str], str]], Iterator[bytes]
]
# A link's format: what renders it, its content type and its file name's extension.
_FORMATS: dict[str, tuple[_Chunks, str, str]] = {
    "CSV": (csv_chunks, "text/csv; charset=utf-8", "csv"),
    "PARQUET": (parquet_chunks, "application/vnd.apache.parquet", "parquet"),
    "JSONL": (jsonl_chunks, "application/x-ndjson", "jsonl"),
}


def _results(
    sessions: Sessions, store: ObjectStore, masker: Masker, caller: Principal, body: JobResultsRequest
) -> bytes:
    """The page as JSON text, encoded here in the worker thread: the framework's own encoder walks every
    value of a page of 1,000 rows again on the event loop (about as long as rendering them)."""
    with sessions() as session:
        readable(session, caller, body.table_id)
        job = visible_job(session, caller, body.job_id)
        session.expunge(job)
    total = job.result_row_count or 0
    offset = body.page * body.page_size
    with _stored(job):
        columns, rows, _ = page_of(
            sessions, store, masker, caller, job, (offset, body.page_size), body.reveal
        )
    answer: dict[str, Any] = {
        "columns": columns,
        "rows": rows,
        "page": body.page,
        "totalRows": total,
        "hasMore": offset + len(rows) < total,
        "truncated": job.truncated,
        "errors": [],
    }
    if body.reveal_row is not None and body.reveal_column is not None:
        with _stored(job):
            row, column = body.reveal_row, body.reveal_column
            answer["revealedCell"] = revealed_cell(sessions, store, masker, caller, job, row, column)
    return encode(answer)


@contextmanager
def _stored(job: Job) -> Iterator[None]:
    """A result file missing from the store (removed as it expired, before its job was told) is 404."""
    try:
        yield
    except ResultGone as exc:
        raise analytics_error("NOT_FOUND", f"The results of job {job.id} have expired (kept 7 days)") from exc


@router.post("/job-results")
async def job_results(
    body: JobResultsRequest,
    caller: ClientCaller,
    sessions: SessionsDep,
    store: StoreDep,
    masker: MaskerDep,
    resource_id: str = ResourceId,
) -> Any:
    check_resource(resource_id, body.table_id)
    check_row_count("pageSize", body.page_size, MAX_PAGE_SIZE)
    check_reveal_pair(body.reveal_row, body.reveal_column)
    return Response(
        await run_in_threadpool(_results, sessions, store, masker, caller, body),
        media_type="application/json",
    )


@router.post("/job-download-url")
def job_download_url(
    body: DownloadRequest,
    request: Request,
    caller: ClientCaller,
    sessions: SessionsDep,
    settings: SettingsDep,
    resource_id: str = ResourceId,
) -> Any:
    check_resource(resource_id, body.table_id)
    with sessions() as session:
        readable(session, caller, body.table_id)
        job = own_job(session, caller, body.job_id)
        check_output(session, Reader.of(caller), job)
        available(job)
        allowed = revealable(session, caller, result_columns_of(job))
    expires_at = int(time.time()) + DOWNLOAD_SECONDS
    claims = {
        "job": job.id,
        "company": caller.company_id,
        "user": caller.user_id,
        "format": body.format,
        # The tables whose masked columns this link shows in plaintext (the caller's right, checked now).
        "reveal": ",".join(sorted(t for t, can in allowed.items() if can)) if body.reveal else "",
    }
    token = make_token(_secret(settings), claims, expires_at)
    url = str(request.url_for("download_result", token=token))
    return {
        "url": url,
        "expiresAt": iso_utc(datetime.fromtimestamp(expires_at, UTC)),
        "errors": [],
    }


def _secret(settings: Settings) -> str:
    return f"{settings.secret_key}/{_PURPOSE}"


@router.get("/download/{token}", name="download_result")
def download_result(
    token: str, sessions: SessionsDep, settings: SettingsDep, store: StoreDep, masker: MaskerDep
) -> StreamingResponse:
    try:
        claims = read_token(_secret(settings), token, now=time.time())
    except LinkError as exc:
        raise analytics_error("FORBIDDEN", f"This download link is not valid: {exc}") from exc
    company_id, job_id, user_id = str(claims["company"]), str(claims["job"]), str(claims["user"])
    with sessions() as session:
        job = jobs.get(session, company_id, job_id)
        user = tenancy.get_user(session, company_id, user_id)
        if job is None or user is None or job.created_by != user_id:
            raise analytics_error("NOT_FOUND", f"Job {job_id} not found")
        reader = Reader(company_id, user_id, user.is_admin)
        check_output(session, reader, job)
        key = available(job)
        stored = result_columns_of(job)
        # Reveal what the link was issued to reveal and the user may still reveal now.
        now_revealable = revealable(session, reader, stored)
    shown = (set(str(claims["reveal"]).split(",")) - {""}) & {t for t, can in now_revealable.items() if can}
    allowed = {str(c["tableId"]): c["tableId"] in shown for c in stored if c.get("masked")}
    decrypt = masker.decryptor(company_id)
    reveal = bool(shown)
    chunks, media_type, extension = _FORMATS.get(str(claims["format"]), _FORMATS["CSV"])
    with _stored(job):
        body = started(chunks(store, key, stored, allowed, reveal, decrypt), job_id)
    return StreamingResponse(
        body,
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{job_id}.{extension}"'},
    )
