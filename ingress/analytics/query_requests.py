"""requestId on /query: finding the job an earlier submission of the same requestId created.

A retried submission (a client that timed out, a job runner that restarted) must not run the query twice,
so /query looks for the caller's job of the requestId before it plans anything; concurrent duplicates that
all miss it race on the unique index, and the losers read the winner's job (``core.request_ids``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from core.request_ids import WINDOW, request_digest
from ingress.analytics.coded_errors import analytics_error
from schemas.admin import Principal
from schemas.jobs import QueryRequest
from sinks.db.analytics import jobs
from sinks.db.models import Job


@dataclass(frozen=True)
class RequestKey:
    request_id: str
    digest: str

    @classmethod
    def of(cls, body: QueryRequest) -> RequestKey | None:
        if body.request_id is None:
            return None
        digest = request_digest(body.table_id, body.sql, body.max_rows, body.max_bytes_scanned)
        return cls(body.request_id, digest)


def earlier_job(session: Session, caller: Principal, key: RequestKey, now: datetime) -> Job | None:
    """The caller's job of ``key``'s requestId within the window; 400 INVALID_REQUEST when that job was
    submitted with a different table, SQL or limits (a reused id is a client bug, not a retry)."""
    job = jobs.by_request(session, caller.company_id, caller.user_id, key.request_id, now - WINDOW)
    if job is not None and job.request_digest != key.digest:
        raise analytics_error(
            "INVALID_REQUEST",
            f"requestId {key.request_id!r} was sent within the last 24 hours with a different tableId, sql, "
            "maxRows or maxBytesScanned",
            "Send a new requestId for a different query, or the first request unchanged to get its job",
        )
    return job
