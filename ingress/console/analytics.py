"""Analytics: the tables the caller may read, each with its columns as the caller's grant shows them; a
table's SQL editor with estimate, a query's results in pages, download, the caller's recent jobs and cancel.
The list is the poweruser ``/tables/get-all``; a table's page names it by its id, as every analytics call
names it."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from ingress.console import pages
from ingress.console.api import ANALYTICS, TABLES
from ingress.console.context import SIGN_IN, Console, changing, signed_in
from schemas.console import QueryForm

router = APIRouter(prefix="/console/analytics", include_in_schema=False)
RESULT_PAGE_SIZE = 50
QUERY_WAIT_MS = 20_000
NO_CLIENT_KEY = "Analytics calls are client API calls, and this user has no enabled client API key."


async def _analytics(console: Console, table_id: str, body: dict[str, Any], operation: str) -> Any:
    return await console.api(
        f"{ANALYTICS}/{operation}", {"tableId": table_id, **body}, params={"resourceId": table_id}
    )


async def _page(
    console: Console, table_id: str, sql: str = "", status: int = 200, **context: Any
) -> Response:
    errors: list[str] = list(context.pop("errors", []))
    tables: list[dict[str, Any]] = []
    jobs: list[dict[str, Any]] = []
    readable: list[dict[str, Any]] | None = None
    if not table_id:
        listed = await console.api(f"{TABLES}/get-all", {})
        readable = listed.body.get("tables", []) if listed.ok else []
        errors.extend([] if listed.ok else listed.errors)
    if not console.signed.client:
        errors.append(NO_CLIENT_KEY)
    elif table_id:
        described = await _analytics(console, table_id, {}, "describe")
        if described.ok:
            tables = described.body.get("tables", [])
            listed = await _analytics(console, table_id, {"mine": True, "limit": 10}, "jobs")
            jobs = listed.body.get("jobs", [])
        else:
            errors.extend(described.errors)
    context.setdefault("estimate", None)
    return console.page(
        "analytics.html",
        status=status,
        table_id=table_id,
        sql=sql,
        tables=tables,
        readable=readable,
        jobs=jobs,
        errors=errors,
        **context,
    )


@router.get("")
async def analytics_home(request: Request) -> Response:
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    return await _page(console, request.query_params.get("table", "").strip())


@router.post("")
async def estimate_or_query(request: Request) -> Response:
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    try:
        form = QueryForm.model_validate(fields)
    except ValidationError as exc:
        table = fields.get("table_id", "")
        return await _page(
            console, table, fields.get("sql", ""), 400, errors=[e["msg"] for e in exc.errors()]
        )
    if fields.get("action") == "estimate":
        answer = await _analytics(console, form.table_id, {"sql": form.sql}, "estimate")
        if not answer.ok:
            return await _page(console, form.table_id, form.sql, answer.status, errors=answer.errors)
        return await _page(console, form.table_id, form.sql, estimate=answer.body)
    answer = await _analytics(console, form.table_id, {"sql": form.sql, "waitMs": QUERY_WAIT_MS}, "query")
    if not answer.ok:
        return await _page(console, form.table_id, form.sql, answer.status, errors=answer.errors)
    job_id = answer.body["jobId"]
    return pages.redirect(f"/console/analytics/jobs/{quote(job_id)}?{urlencode({'table': form.table_id})}")


@router.get("/jobs/{job_id}")
async def job_results(request: Request, job_id: str) -> Response:
    console = await signed_in(request)
    if console is None:
        return pages.redirect(SIGN_IN)
    table_id = request.query_params.get("table", "")
    try:
        page = max(0, int(request.query_params.get("page", "0")))
    except ValueError:
        page = 0
    status = await _analytics(console, table_id, {"jobId": job_id}, "job-status")
    if not status.ok:
        return console.page("error.html", status=status.status, errors=status.errors)
    results = None
    if status.body.get("state") == "SUCCEEDED":
        got = await _analytics(
            console, table_id, {"jobId": job_id, "page": page, "pageSize": RESULT_PAGE_SIZE}, "job-results"
        )
        results = got.body if got.ok else None
        if not got.ok:
            return console.page("error.html", status=got.status, errors=got.errors)
    total_rows = (results or {}).get("totalRows", 0)
    return console.page(
        "job.html",
        table_id=table_id,
        job=status.body,
        results=results,
        page=page,
        total_pages=-(-total_rows // RESULT_PAGE_SIZE),
        errors=[],
    )


@router.post("/jobs/{job_id}/download")
async def download(request: Request, job_id: str) -> Response:
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    answer = await _analytics(
        console, fields.get("table_id", ""), {"jobId": job_id, "format": "CSV"}, "job-download-url"
    )
    if not answer.ok:
        return console.page("error.html", status=answer.status, errors=answer.errors)
    return pages.redirect(answer.body["url"])


@router.post("/jobs/{job_id}/cancel")
async def cancel(request: Request, job_id: str) -> Response:
    checked = await changing(request)
    if isinstance(checked, Response):
        return checked
    console, fields = checked
    table_id = fields.get("table_id", "")
    answer = await _analytics(console, table_id, {"jobId": job_id}, "cancel")
    if not answer.ok:
        return console.page("error.html", status=answer.status, errors=answer.errors)
    return pages.redirect(f"/console/analytics?{urlencode({'table': table_id})}")
