"""A query through the service's HTTP API, read to the end: /query, then /job-status while the job is still
running, then /job-results pages when the preview does not hold the whole result (or, for a large result, a
Parquet download instead of the pages)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import pyarrow as pa
import pyarrow.parquet as pq

ANALYTICS = "/clients/svcdb/analytics"
ADMIN = "/svc_poweruser/analytics/tables"
MAX_WAIT_MS = 20_000
PAGE_SIZE = 1_000
_RUNNING = {"QUEUED", "RUNNING"}


class ServiceError(RuntimeError):
    """A call answered other than 200, or the job did not succeed."""


@dataclass
class ServiceResult:
    job_id: str
    columns: list[dict[str, Any]]
    rows: list[dict[str, Any]]
    total_rows: int
    truncated: bool
    pages_read: int = 0
    body: dict[str, Any] = field(default_factory=dict)


class AnalyticsClient:
    """Calls of one client key on one primary table (``resourceId``)."""

    def __init__(self, client: httpx.Client, key: str, table_id: str) -> None:
        self.client = client
        self.headers = {"Authorization": key}
        self.table_id = table_id

    def call(self, operation: str, body: dict[str, Any]) -> dict[str, Any]:
        answer = self.client.post(
            f"{ANALYTICS}/{operation}",
            params={"resourceId": self.table_id},
            headers=self.headers,
            json={"tableId": self.table_id, **body},
        )
        if answer.status_code != 200:
            raise ServiceError(f"/{operation} answered {answer.status_code}: {answer.text[:2000]}")
        result: dict[str, Any] = answer.json()
        return result

    def query(
        self, sql: str, *, max_rows: int = 100_000, timeout: float = 300, use_cache: bool = False
    ) -> ServiceResult:
        """Run ``sql`` and read its whole result (preview, else every page). The result cache is off unless
        asked for: a repeated query would otherwise be answered from its first run's result, and neither
        the oracle nor the benchmark would measure the query."""
        request = {"sql": sql, "waitMs": MAX_WAIT_MS, "maxRows": max_rows, "useQueryCache": use_cache}
        job_id, body = self._succeeded(request, timeout)
        preview = body.get("preview")
        if preview is not None and not preview["truncated"] and preview["totalRows"] <= len(preview["rows"]):
            return ServiceResult(
                job_id, preview["columns"], preview["rows"], preview["totalRows"], False, body=body
            )
        return self._pages(job_id, body)

    def query_download(self, sql: str, *, timeout: float = 300) -> pa.Table:
        """Run ``sql`` (the cache off) and read its whole result as the job's Parquet download: one link
        and one streamed file instead of a page of JSON per thousand rows."""
        job_id, _ = self._succeeded({"sql": sql, "waitMs": MAX_WAIT_MS, "useQueryCache": False}, timeout)
        link = self.call("job-download-url", {"jobId": job_id, "format": "PARQUET"})
        answer = self.client.get(link["url"])
        if answer.status_code != 200:
            raise ServiceError(f"the download of job {job_id} answered {answer.status_code}")
        return pq.read_table(pa.BufferReader(answer.content))

    def _succeeded(self, request: dict[str, Any], timeout: float) -> tuple[str, dict[str, Any]]:
        """/query ``request``, then /job-status until the job ends: its id and last answer, once SUCCEEDED."""
        body = self.call("query", request)
        job_id = str(body["jobId"])
        deadline = time.monotonic() + timeout
        while body["state"] in _RUNNING:
            if time.monotonic() > deadline:
                raise ServiceError(f"job {job_id} still {body['state']} after {timeout:.0f} s")
            body = self.call("job-status", {"jobId": job_id, "waitMs": MAX_WAIT_MS})
        if body["state"] != "SUCCEEDED":
            raise ServiceError(f"job {job_id} ended {body['state']}: {body.get('error')}")
        return job_id, body

    def _pages(self, job_id: str, body: dict[str, Any]) -> ServiceResult:
        rows: list[dict[str, Any]] = []
        page = 0
        while True:
            answer = self.call("job-results", {"jobId": job_id, "page": page, "pageSize": PAGE_SIZE})
            rows.extend(answer["rows"])
            page += 1
            if not answer["hasMore"]:
                break
        return ServiceResult(
            job_id, answer["columns"], rows, answer["totalRows"], answer["truncated"], page, body
        )


def create_tables(
    client: httpx.Client, poweruser_key: str, requests: dict[str, dict[str, Any]]
) -> dict[str, str]:
    """Create each table through the table-admin API; its table id by SQL name."""
    ids: dict[str, str] = {}
    for name, request in requests.items():
        answer = client.post(f"{ADMIN}/create", headers={"Authorization": poweruser_key}, json=request)
        if answer.status_code != 200:
            raise ServiceError(f"creating {name} answered {answer.status_code}: {answer.text[:2000]}")
        ids[name] = str(answer.json()["tableId"])
    return ids
