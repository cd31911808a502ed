"""``POST {base_url}/clients/svcdb/analytics/load-from-s3?resourceId=<table>`` (WRITE): a bulk load of
uploaded CSV or Parquet files as a LOAD job. The sources, format, mapping and quota are checked here; a
worker reads, converts and commits the rows (see ``streams/analytics/jobs.py``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import PurePosixPath
from typing import Any

from fastapi import APIRouter
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from ingress.analytics.calls import ResourceId, check_resource, readable
from ingress.analytics.coded_errors import analytics_error
from ingress.deps import (
    ClientCaller,
    CommitterDep,
    PublisherDep,
    Sessions,
    SessionsDep,
    SettingsDep,
    StoreDep,
)
from ingress.errors import ApiError
from ingress.handoff import hand_off
from schemas.admin import Principal
from schemas.ids import new_id
from schemas.jobs import JobKind, LoadFormat, LoadPlan, LoadRequest, LoadSource
from schemas.records import AnalyticsJobRef
from sinks.db.analytics import jobs, uploads
from sinks.loads.uploaded import uploaded_size
from sinks.objectstore import ObjectStore

router = APIRouter(prefix="/clients/svcdb/analytics", tags=["analytics"])
MASKED_NOTE = (
    "The table has masked columns: this load runs in the application rather than the analytics engine, "
    "which encrypts the masked values as it loads them"
)
_EXTENSIONS: dict[str, LoadFormat] = {
    ".csv": "CSV",
    ".tsv": "CSV",
    ".txt": "CSV",
    ".parquet": "PARQUET",
    ".pq": "PARQUET",
}


def infer_format(uris: list[str], given: LoadFormat | None) -> LoadFormat:
    if given is not None:
        return given
    found = {_EXTENSIONS.get(PurePosixPath(uri).suffix.lower()) for uri in uris}
    if None in found:
        raise ApiError(400, "format is required: it cannot be inferred from every file's extension")
    if len(found) > 1:
        raise ApiError(400, "the files have different formats: load CSV and Parquet files separately")
    return found.pop()  # type: ignore[return-value]


def _check_mapping(mapping: dict[str, str] | None, columns: list[dict[str, Any]]) -> None:
    if not mapping:
        return
    names = {c["name"] for c in columns}
    unknown = sorted(set(mapping.values()) - names)
    if unknown:
        raise analytics_error(
            "INVALID_SCHEMA",
            f"columnMapping names columns the table does not have: {', '.join(unknown)}",
            f"Table columns: {', '.join(c['name'] for c in columns)}",
        )
    targets = list(mapping.values())
    doubled = sorted({t for t in targets if targets.count(t) > 1})
    if doubled:
        raise analytics_error(
            "INVALID_SCHEMA", f"columnMapping maps several file columns to {', '.join(doubled)}"
        )


def _sources(session: Session, store: ObjectStore, company_id: str, uris: list[str]) -> list[LoadSource]:
    """Raises StorageUnavailable (503 STORAGE_UNAVAILABLE) when the object store cannot answer."""
    sources = []
    for uri in uris:
        key = uploads.uploaded_object(session, company_id, uri)
        size = None if key is None else uploaded_size(store, key)
        if key is None or size is None:
            raise analytics_error(
                "NOT_FOUND",
                f"{uri} is not a completed upload of your company",
                "Upload the file with /clients/svcdb-intake and pass the s3Uri of /multipart-complete",
            )
        sources.append(LoadSource(uri=uri, key=key, size=size))
    return sources


def _prepare(
    sessions: Sessions, store: ObjectStore, caller: Principal, body: LoadRequest
) -> tuple[LoadPlan, list[str]]:
    with sessions() as session:
        table, _access = readable(session, caller, body.table_id, "WRITE")
        columns = json.loads(table.columns_json)
        _check_mapping(body.column_mapping, columns)
        fmt = infer_format(body.source_uris, body.format)
        sources = _sources(session, store, caller.company_id, body.source_uris)
    plan = LoadPlan(
        sources=sources, format=fmt, mode=body.mode, csv=body.csv, column_mapping=body.column_mapping
    )
    notes = [MASKED_NOTE] if any(c["masked"] for c in columns) else []
    return plan, notes


def _create(session: Session, *, caller: Principal, limit: int, plan: LoadPlan, **fields: Any) -> str:
    midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    loaded = jobs.loaded_since(session, caller.company_id, midnight)
    size = sum(source.size for source in plan.sources)
    if loaded + size > limit:
        raise analytics_error(
            "QUOTA",
            f"The plan allows {limit} bytes of loaded data per day; {loaded} are used today",
            "Load less, or retry tomorrow (UTC)",
            retry_after=(midnight + timedelta(days=1) - datetime.now(UTC)).total_seconds(),
        )
    return jobs.create(
        session,
        company_id=caller.company_id,
        kind=JobKind.LOAD,
        created_by=caller.user_id,
        sql=None,
        plan=plan.model_dump_json(by_alias=True),
        bytes_scanned=size,
        now=datetime.now(UTC),
        **fields,
    )


@router.post("/load-from-s3")
async def load_from_s3(
    body: LoadRequest,
    caller: ClientCaller,
    sessions: SessionsDep,
    store: StoreDep,
    settings: SettingsDep,
    committer: CommitterDep,
    publisher: PublisherDep,
    resource_id: str = ResourceId,
) -> Any:
    check_resource(resource_id, body.table_id)
    plan, notes = await run_in_threadpool(_prepare, sessions, store, caller, body)
    job_id = new_id()
    created = partial(
        _create,
        caller=caller,
        limit=settings.load_daily_bytes,
        plan=plan,
        job_id=job_id,
        table_id=body.table_id,
        table_ids=[body.table_id],
        notes=notes,
    )
    await committer.run(created)
    await hand_off(publisher, AnalyticsJobRef(job_id=job_id), key=job_id)
    return {"jobId": job_id, "state": "QUEUED", "notes": notes, "errors": []}
