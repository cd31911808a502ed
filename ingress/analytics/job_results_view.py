"""Reading a finished query's result for a caller: the /query preview and /job-results pages, with masked
columns masked, revealed where the caller may and asks, or revealed for a single cell. Each read checks
first that the caller's current grant lets them read the job's output (``job_access.check_output``)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from ingress.analytics.coded_errors import analytics_error
from ingress.analytics.job_access import Reader, check_output
from ingress.analytics.job_views import result_columns_of, revealable
from ingress.analytics.preview_memo import PreviewKey, encode, remembered_preview
from ingress.deps import Sessions
from ingress.errors import ApiError
from schemas.admin import Principal
from schemas.jobs import PREVIEW_ROWS, JobState
from sinks.db.models import Job
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.iceberg.masking import Masker
from sinks.job_results import ResultGone, read_rows, render, wire_columns
from sinks.objectstore import ObjectStore

log = logging.getLogger(__name__)


def available(job: Job) -> str:
    """The key of a job's stored result, or the analytics error that says why there is none."""
    if job.state != JobState.SUCCEEDED.value:
        raise analytics_error(
            "NOT_FOUND",
            f"Job {job.id} is {job.state}: only a SUCCEEDED query has results",
            "Wait for the job with /job-status and waitMs" if not JobState(job.state).final else None,
        )
    expired = job.expires_at is not None and job.expires_at <= datetime.now(UTC)
    if job.result_key is None or expired:
        raise analytics_error("NOT_FOUND", f"The results of job {job.id} have expired (kept 7 days)")
    return job.result_key


Checked = tuple[list[dict[str, Any]], dict[str, bool], str]
"""A result's stored columns, the ones the reader may reveal, and the result's key (``_checked``)."""


def _checked(sessions: Sessions, caller: Principal, job: Job) -> Checked:
    """The job's stored result columns, which of them the caller may reveal, and its result's key, once the
    caller's grant of now allows reading the job's output (``job_access.check_output``)."""
    stored = result_columns_of(job)
    with sessions() as session:
        check_output(session, Reader.of(caller), job)
        allowed = revealable(session, caller, stored)
    return stored, allowed, available(job)


def _rows(
    store: ObjectStore,
    masker: Masker,
    job: Job,
    checked: Checked,
    window: tuple[int, int],
    reveal: bool,
    head: pa.Table | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The wire columns and the rendered rows ``window`` (offset, limit) of a result read as ``_checked``
    allowed; from ``head`` (the result's first rows, kept by the run that wrote it) when it holds them."""
    stored, allowed, key = checked
    offset, limit = window
    if head is not None and offset == 0 and (limit <= head.num_rows or head.num_rows == job.result_row_count):
        table = head.slice(0, limit)
    else:
        table = read_rows(store, key, offset, limit)
    rows = render(table, stored, allowed, reveal, masker.decryptor(job.company_id))
    return wire_columns(stored, allowed, reveal), rows


def page_of(
    sessions: Sessions,
    store: ObjectStore,
    masker: Masker,
    caller: Principal,
    job: Job,
    window: tuple[int, int],
    reveal: bool,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, bool]]:
    """The page ``window`` (offset, limit) of a job's result, and the columns the caller may reveal."""
    checked = _checked(sessions, caller, job)
    columns, rows = _rows(store, masker, job, checked, window, reveal)
    return columns, rows, checked[1]


def preview_text(
    sessions: Sessions,
    store: ObjectStore,
    masker: Masker,
    caller: Principal,
    job: Job,
    reveal: bool,
    head: pa.Table | None = None,
) -> bytes:
    """The /query preview (the first rows of the result) as JSON text, checked like every read of the job's
    output; rendered and encoded once per result and way of showing its masked columns in this process
    (``ingress/analytics/preview_memo.py``). ``head``: the result's first rows, kept by a run in this
    process, so the file is not read back."""
    checked = _checked(sessions, caller, job)
    _, allowed, key = checked
    total = job.result_row_count or 0

    def render_preview() -> dict[str, Any]:
        columns, rows = _rows(store, masker, job, checked, (0, PREVIEW_ROWS), reveal, head)
        return {"columns": columns, "rows": rows, "totalRows": total, "truncated": job.truncated}

    if reveal and any(allowed.values()):  # plaintext of masked values is never kept
        return encode(render_preview())
    kept = (job.result_columns_json or "", total, job.truncated)
    return remembered_preview(PreviewKey.of(job.company_id, key, kept, reveal, allowed), render_preview)


def preview_or_none(
    sessions: Sessions,
    store: ObjectStore,
    masker: Masker,
    caller: Principal,
    job: Job,
    reveal: bool,
    head: pa.Table | None = None,
) -> bytes | None:
    """The /query preview of a SUCCEEDED job as JSON text, or None when the result store fails the read:
    the job ran and its answer stands; its result is read again through /job-results, which answers 503 (or
    404) itself. A store failure here must not read as "nothing was done"."""
    try:
        return preview_text(sessions, store, masker, caller, job, reveal, head)
    except (StorageUnavailable, ResultGone):
        log.warning("the preview of a finished query could not be read", extra={"job_id": job.id})
        return None


def check_reveal_pair(row: int | None, column: str | None) -> None:
    """A single-cell reveal names its cell whole: revealRow and revealColumn come together or not at all."""
    if row is not None and column is None:
        raise analytics_error(
            "INVALID_REQUEST",
            "revealRow needs revealColumn: a single-cell reveal names both",
            "Add revealColumn (the result column of the cell), or drop revealRow",
        )
    if row is None and column is not None:
        raise analytics_error(
            "INVALID_REQUEST",
            "revealColumn needs revealRow: a single-cell reveal names both",
            "Add revealRow (the cell's 0-based row in the whole result), or drop revealColumn",
        )


def row_out_of_range(row: int, total: int) -> ApiError:
    hint = f"revealRow is 0-based: 0 to {total - 1}" if total else "The result has no rows to reveal"
    return analytics_error("INVALID_REQUEST", f"revealRow {row} is past the result's {total} rows", hint)


def revealed_cell(
    sessions: Sessions, store: ObjectStore, masker: Masker, caller: Principal, job: Job, row: int, column: str
) -> dict[str, Any]:
    """One masked cell in plaintext, for a caller allowed to reveal its column."""
    with sessions() as session:
        check_output(session, Reader.of(caller), job)
    stored = result_columns_of(job)
    position = next((i for i, c in enumerate(stored) if c["name"] == column), None)
    if position is None:
        names = ", ".join(c["name"] for c in stored)
        raise analytics_error(
            "UNKNOWN_COLUMN", f'Column "{column}" is not in the result', f"Result columns: {names}"
        )
    meta = stored[position]
    total = job.result_row_count or 0
    if row >= total:
        raise row_out_of_range(row, total)
    with sessions() as session:
        allowed = revealable(session, caller, [meta])
    if not meta.get("masked"):
        raise analytics_error("FORBIDDEN", f'Column "{column}" is not masked: read it from the rows')
    if not allowed.get(meta["tableId"], False):
        raise analytics_error("FORBIDDEN", f'Your role may not reveal the masked column "{column}"')
    table = read_rows(store, available(job), row, 1).select([position])
    value = render(table, [meta], allowed, True, masker.decryptor(job.company_id))[0][meta["name"]]
    return {"row": row, "column": column, "value": value}
