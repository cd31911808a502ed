"""Wire models of analytics jobs (spec "B. Analytics": /estimate, /query, /job-status, /job-results,
/job-download-url, /cancel, /jobs) and the plan a query job carries from the ingress to the worker."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import ConfigDict, Field

from schemas.base import RequestModel, WireModel
from schemas.examples import jobs as examples

MAX_WAIT_MS = 20_000
PREVIEW_ROWS = 200
MAX_PAGE_SIZE = 1000
MAX_JOBS_PAGE = 100
MAX_REQUEST_ID = 128


class JobKind(StrEnum):
    QUERY = "QUERY"
    LOAD = "LOAD"
    APPEND = "APPEND"


class JobState(StrEnum):
    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"
    TIMED_OUT = "TIMED_OUT"

    @property
    def final(self) -> bool:
        return self not in (JobState.QUEUED, JobState.RUNNING)


class EstimateRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.ESTIMATE)
    table_id: str = Field(min_length=1, max_length=100)
    sql: str


class QueryRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.QUERY)
    table_id: str = Field(min_length=1, max_length=100)
    sql: str
    # No `le` on the row counts: a count over its cap is 413 ROW_LIMIT, checked by the route, not a 400.
    max_rows: int | None = Field(
        None,
        ge=1,
        description="Rows kept in the result, at least 1; default and cap: the plan's result-row limit "
        "(more answers 413 ROW_LIMIT). A larger result is cut off and marked truncated",
    )
    max_bytes_scanned: int | None = Field(None, ge=0)
    wait_ms: int = Field(0, ge=0, le=MAX_WAIT_MS)
    reveal: bool = False
    request_id: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_REQUEST_ID,
        pattern=r"^[A-Za-z0-9_.:-]+$",
        description="The caller's id for this submission (1-128 of A-Z a-z 0-9 _ . : -): sent again by the "
        "same user within 24 hours it answers the same job, never a second run; with a different tableId, "
        "sql, maxRows or maxBytesScanned it is 400 INVALID_REQUEST",
    )
    use_query_cache: bool = Field(
        True,
        description="Answer from the result of an earlier identical query when there is one (same SQL, same "
        "table snapshots, same effective grant, same maxRows): the job is SUCCEEDED at once with cacheHit "
        "true and bytesScanned 0. false always runs the query",
    )


class JobRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.JOB)
    table_id: str = Field(min_length=1, max_length=100)
    job_id: str = Field(min_length=1, max_length=100)


class JobStatusRequest(JobRequest):
    model_config = ConfigDict(json_schema_extra=examples.JOB_STATUS)
    wait_ms: int = Field(0, ge=0, le=MAX_WAIT_MS)


class JobResultsRequest(JobRequest):
    model_config = ConfigDict(json_schema_extra=examples.JOB_RESULTS)
    page: int = Field(0, ge=0)
    page_size: int = Field(
        MAX_PAGE_SIZE,
        ge=1,
        description=f"Rows per page, 1 to {MAX_PAGE_SIZE} (default {MAX_PAGE_SIZE}); "
        f"more than {MAX_PAGE_SIZE} answers 413 ROW_LIMIT",
    )
    reveal: bool = False
    reveal_row: int | None = Field(
        None,
        ge=0,
        description="0-based row of the whole result whose revealColumn cell to reveal; sent with "
        "revealColumn, and below totalRows (else 400 INVALID_REQUEST)",
    )
    reveal_column: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="The result column of the cell to reveal, with revealRow",
    )


class DownloadRequest(JobRequest):
    model_config = ConfigDict(json_schema_extra=examples.DOWNLOAD_URL)
    format: Literal["CSV", "PARQUET", "JSONL"] = "CSV"
    reveal: bool = False


class JobsRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.JOBS)
    table_id: str = Field(min_length=1, max_length=100)
    kind: JobKind | None = None
    state: JobState | None = None
    mine: bool = False
    limit: int = Field(25, ge=1, le=MAX_JOBS_PAGE)
    cursor: str | None = Field(None, max_length=200)


class ErrorObject(WireModel):
    error_code: str
    message: str
    hint: str | None = None


class ViewPlan(WireModel):
    """One table as the caller sees it: a DuckDB view over the table's current snapshot, or over the snapshot
    a time-travel clause named (``snapshot_id``)."""

    view: str
    table_id: str
    columns: list[str]
    row_filter: str | None = None  # DuckDB dialect, from the caller's grant
    snapshot_id: int | None = None
    # The snapshot the view reads as planned: ``snapshot_id`` when pinned, else the table's current snapshot
    # at planning (None: the table had none). It is in the result cache's key (core/sql/cache_key.py); the
    # worker reads the current snapshot and records whether it was this one.
    read_snapshot_id: int | None = None
    # Columns the row filter names that the snapshot does not have (added later): null in its rows.
    absent_columns: list[str] = Field(default_factory=list)


class MaskedPlan(WireModel):
    """An output column carrying a masked column's stored (encrypted) value unchanged."""

    index: int
    table_id: str
    column: str
    mask_strategy: str
    revealable: bool


class QueryPlan(WireModel):
    """What a query job's worker runs: checked and rewritten by the ingress, never request text as such."""

    sql: str
    views: list[ViewPlan]
    masked: list[MaskedPlan] = Field(default_factory=list)
    # Output positions that carry a JSON column unchanged: their values are JSON text, shown parsed.
    json_columns: list[int] = Field(default_factory=list)
    max_rows: int
    # The plan's result-size limit (bytes); None in plans queued before it existed: the worker's setting.
    max_result_bytes: int | None = None
    timeout_seconds: float


class CsvOptions(RequestModel):
    delimiter: str = Field(",", min_length=1, max_length=1)
    header: bool = True
    null_string: str | None = Field(None, max_length=100)
    quote: str = Field('"', min_length=1, max_length=1)
    date_format: str | None = Field(None, min_length=1, max_length=100)
    timestamp_format: str | None = Field(None, min_length=1, max_length=100)


LoadFormat = Literal["CSV", "PARQUET"]


class LoadRequest(RequestModel):
    model_config = ConfigDict(json_schema_extra=examples.LOAD_FROM_S3)
    table_id: str = Field(min_length=1, max_length=100)
    source_uris: list[str] = Field(min_length=1, max_length=100)
    format: LoadFormat | None = None
    mode: Literal["APPEND", "REPLACE"] = "APPEND"
    csv: CsvOptions = Field(default_factory=CsvOptions)
    column_mapping: dict[str, str] | None = Field(None, max_length=1000)


class LoadSource(WireModel):
    uri: str
    key: str
    size: int


class LoadPlan(WireModel):
    """What a load job's worker runs: the checked sources and options."""

    sources: list[LoadSource]
    format: LoadFormat
    mode: Literal["APPEND", "REPLACE"]
    csv: CsvOptions
    column_mapping: dict[str, str] | None = None
