"""Client analytics calls: ``POST {base_url}/clients/svcdb/analytics/<operation>?resourceId=<table>``.

This module serves describe, preview and append-rows; the query jobs live beside it.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, datetime
from functools import partial
from typing import Any

from fastapi import APIRouter, Query, Request
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from ingress.analytics_errors import analytics_error
from ingress.deps import ClientCaller, DbSession, Svc
from ingress.errors import ApiError, messages_of
from ingress.state import Services
from ingress.table_specs import definitions_of
from schemas.admin import Principal
from schemas.base import iso_utc
from schemas.envelopes import Envelope
from schemas.tables import AppendRowsAnswer, AppendRowsRequest, DescribeRequest, PreviewRequest, RowError
from schemas.topics import TABLE_APPENDS
from sinks.db import tables
from sinks.db.models import AnalyticsTable
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.convert import rows_to_arrow
from sinks.table_reads import preview_rows, summary, table_stats

router = APIRouter(prefix="/clients/svcdb/analytics", tags=["analytics"])
APPEND_MAX_ROWS = 10_000
APPEND_MAX_BYTES = 5 * 1024 * 1024
WRITE_TYPE = "table.write"

ResourceId = Query(alias="resourceId", min_length=1, max_length=100)


def check_resource(resource_id: str, table_id: str) -> None:
    if resource_id != table_id:
        raise ApiError(400, "tableId must equal the resourceId query parameter")


def readable(
    session: DbSession, caller: Principal, table_id: str, needed: str = "READ"
) -> tuple[AnalyticsTable, tables.TableAccess]:
    table = tables.get(session, caller.company_id, table_id)
    if table is None:
        raise analytics_error("NOT_FOUND", f"Table {table_id} not found")
    access = tables.access(session, caller.company_id, caller.user_id, caller.is_admin, table.id)
    if not access.allows(needed):
        raise analytics_error("FORBIDDEN", f"{needed} permission on table {table.sql_name} is required")
    return table, access


def _visible_columns(table: AnalyticsTable, access: tables.TableAccess) -> list[dict[str, Any]]:
    return [c for c in json.loads(table.columns_json) if c["name"] not in access.hidden_columns]


def _describe_entry(
    svc: Svc, table: AnalyticsTable, access: tables.TableAccess, stats: bool
) -> dict[str, Any]:
    columns = _visible_columns(table, access)
    handle = iceberg.load_table(svc.catalog, table.company_id, table.id)
    totals = summary(handle)
    statistics = table_stats(handle, columns, access.row_filter) if stats else {}
    semantics = json.loads(table.semantics_json)
    described = []
    for column in columns:
        entry = {
            "name": column["name"],
            "type": column["type"],
            "nullable": column["nullable"],
            "description": column.get("description"),
            "synonyms": column.get("synonyms", []),
            "masked": column["masked"],
        }
        if column["masked"]:
            entry.update(
                encrypted=True,
                revealable=access.can_reveal,
                maskStrategy=column.get("maskStrategy") or "FULL",
            )
        if stats:
            entry["stats"] = statistics.get(column["name"])
        described.append(entry)
    return {
        "tableId": table.id,
        "sqlName": table.sql_name,
        "name": table.name,
        "description": table.description,
        "grain": table.grain,
        "rowCount": totals.row_count,
        "dataBytes": totals.data_bytes,
        "lastLoadAt": iso_utc(table.last_load_at),
        "partitionSpec": json.loads(table.partition_spec_json),
        "columns": described,
        "measures": semantics.get("measures", []),
        "joins": semantics.get("joins", []),
        "verifiedQueries": semantics.get("verifiedQueries", []),
    }


@router.post("/describe")
def describe(
    body: DescribeRequest, caller: ClientCaller, session: DbSession, svc: Svc, resource_id: str = ResourceId
) -> dict[str, Any]:
    check_resource(resource_id, body.table_id)
    ids = [body.table_id, *[table_id for table_id in body.table_ids if table_id != body.table_id]]
    found = [readable(session, caller, table_id) for table_id in ids]
    return {
        "tables": [_describe_entry(svc, table, access, body.include_stats) for table, access in found],
        "semanticsVersion": found[0][0].semantics_version,
        "errors": [],
    }


@router.post("/preview")
def preview(
    body: PreviewRequest, caller: ClientCaller, session: DbSession, svc: Svc, resource_id: str = ResourceId
) -> dict[str, Any]:
    check_resource(resource_id, body.table_id)
    table, access = readable(session, caller, body.table_id)
    columns = _visible_columns(table, access)
    handle = iceberg.load_table(svc.catalog, table.company_id, table.id)
    reveal = body.reveal and access.can_reveal
    rows = preview_rows(
        handle,
        columns,
        access.row_filter,
        body.limit,
        decrypt=svc.masker.decryptor(table.company_id) if reveal else None,
    )
    return {"columns": [{"name": c["name"], "type": c["type"]} for c in columns], "rows": rows, "errors": []}


@router.post("/append-rows", response_model=AppendRowsAnswer, response_model_by_alias=True)
async def append_rows(
    request: Request, caller: ClientCaller, svc: Svc, resource_id: str = ResourceId
) -> AppendRowsAnswer:
    raw = await request.body()
    if len(raw) > APPEND_MAX_BYTES:
        raise analytics_error(
            "ROW_LIMIT", f"An append carries at most {APPEND_MAX_BYTES} bytes", "Split the rows"
        )
    try:
        body = AppendRowsRequest.model_validate_json(raw)
    except ValidationError as exc:
        raise ApiError(400, *messages_of(exc)) from exc
    check_resource(resource_id, body.table_id)
    if len(body.rows) > APPEND_MAX_ROWS:
        raise analytics_error(
            "ROW_LIMIT", f"An append carries at most {APPEND_MAX_ROWS} rows", "Split the rows"
        )
    load_id = uuid.uuid4().hex
    table_id, company_id, accepted, errors = await run_in_threadpool(_convert, svc, caller, body, load_id)
    if accepted:
        if not svc.append_quota.take(company_id, len(accepted), time.time()):
            raise analytics_error(
                "QUOTA", "The plan's appended-rows-per-minute limit is reached", "Retry in the next minute"
            )
        write = partial(
            tables.add_write,
            write_id=load_id,
            table_id=table_id,
            company_id=company_id,
            kind="APPEND",
            created_by=caller.user_id,
            payload=accepted,
            row_count=len(accepted),
            now=datetime.now(UTC),
        )
        await svc.committer.run(write)
        envelope = Envelope(
            type=WRITE_TYPE, payload={"writeId": load_id, "tableId": table_id, "companyId": company_id}
        )
        await svc.publisher.publish(TABLE_APPENDS, envelope, key=table_id)
    return AppendRowsAnswer(accepted=len(accepted), load_id=load_id, errors=errors)


def _convert(
    svc: Services, caller: Principal, body: AppendRowsRequest, load_id: str
) -> tuple[str, str, list[Any], list[RowError]]:
    """Validate every row against the table's columns; the accepted ones are stored as sent, and converted
    again (with encryption and record ids) by the table's writer."""
    with svc.sessions() as session:
        table, _access = readable(session, caller, body.table_id, "WRITE")
        definitions = definitions_of(json.loads(table.columns_json))
    converted = rows_to_arrow(definitions, body.rows, load_id=load_id, first_record_id=0, encrypt=_unchanged)
    accepted = [body.rows[index] for index in converted.accepted_indexes]
    errors = [RowError(index=e.index, message=e.message) for e in converted.errors]
    return table.id, table.company_id, accepted, errors


def _unchanged(value: str) -> str:
    return value
