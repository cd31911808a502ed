"""Client analytics calls: ``POST {base_url}/clients/svcdb/analytics/<operation>?resourceId=<table>``.

This module serves describe, preview and append-rows; the query jobs live beside it. Describe with
includeStats and preview read table data: they are charged against the company's daily scan allowance, as
queries are (``charge_read``).
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from functools import partial
from typing import Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from ingress.analytics import append_rows as appends
from ingress.analytics.coded_errors import analytics_error, check_row_count
from ingress.deps import (
    AppendQuotaDep,
    CatalogDep,
    ClientCaller,
    CommitterDep,
    DbSession,
    MaskerDep,
    PublisherDep,
    Sessions,
    SessionsDep,
    SettingsDep,
)
from ingress.errors import ApiError
from ingress.handoff import hand_off
from schemas.admin import Principal
from schemas.base import iso_utc
from schemas.ids import new_id
from schemas.records import TableWriteRef
from schemas.settings import Settings
from schemas.tables import (
    MAX_PREVIEW_ROWS,
    AppendRowsAnswer,
    AppendRowsRequest,
    DescribeRequest,
    PreviewRequest,
)
from sinks.db.analytics import read_charges, tables
from sinks.db.models import AnalyticsTable
from sinks.duckdb_engine import Spill
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.masking import Masker
from sinks.table_reads import preview_rows, stats_cost, summary, table_stats

router = APIRouter(prefix="/clients/svcdb/analytics", tags=["analytics"])
# An append body up to this size (about 1,300 typical rows) is converted on the event loop; a larger one in
# the thread pool, so that no call stalls the loop for longer.
INLINE_BYTES = 256 * 1024

ResourceId = Query(alias="resourceId", min_length=1, max_length=100)
# append-rows reads its body itself (parsed where its conversion runs), so FastAPI sees no body parameter:
# the document is given the body's schema, examples included.
_APPEND_ROWS_BODY = {
    "required": True,
    "content": {"application/json": {"schema": AppendRowsRequest.model_json_schema()}},
}


def check_resource(resource_id: str, table_id: str) -> None:
    if resource_id != table_id:
        raise analytics_error(
            "INVALID_REQUEST",
            "tableId must equal the resourceId query parameter",
            "Send the table's id both as ?resourceId= and as tableId in the body",
        )


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


def _spill(settings: Settings, company_id: str) -> Spill:
    namespace = iceberg.namespace_for(company_id)
    return Spill.for_company(settings.data_dir, namespace, settings.query_max_temp_bytes)


def charge_read(sessions: Sessions, allowance: int, company_id: str, size: int) -> None:
    """Counts a describe's or preview's read of table data against the company's daily scan allowance (the
    one its queries use), before the read; refused as a query past the allowance is."""
    if size <= 0:
        return
    with sessions.begin() as session:
        try:
            read_charges.charge(session, company_id, size, now=datetime.now(UTC), allowance=allowance)
        except read_charges.AllowanceExceeded as error:
            raise analytics_error(
                "SCAN_LIMIT",
                f"Reading {size} bytes of table data would exceed the remaining daily scan allowance "
                f"({error.remaining} bytes)",
                "The allowance is shared with queries and renews at 00:00 UTC; describe without "
                "includeStats reads no table data",
            ) from error


def _describe_entry(
    settings: Settings, table: AnalyticsTable, access: tables.TableAccess, handle: Any, stats: bool
) -> dict[str, Any]:
    columns = tables.visible_columns(table, access)
    totals = summary(handle)
    statistics = (
        table_stats(handle, columns, access.row_filter, spill=_spill(settings, table.company_id))
        if stats
        else {}
    )
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
    body: DescribeRequest,
    caller: ClientCaller,
    session: DbSession,
    sessions: SessionsDep,
    settings: SettingsDep,
    catalog: CatalogDep,
    resource_id: str = ResourceId,
) -> dict[str, Any]:
    check_resource(resource_id, body.table_id)
    ids = [body.table_id, *[table_id for table_id in body.table_ids if table_id != body.table_id]]
    found = [readable(session, caller, table_id) for table_id in ids]
    handles = [iceberg.load_table(catalog, table.company_id, table.id) for table, _ in found]
    if body.include_stats:
        allowance = settings.query_daily_bytes_scanned
        charge_read(sessions, allowance, caller.company_id, sum(stats_cost(handle) for handle in handles))
    return {
        "tables": [
            _describe_entry(settings, table, access, handle, body.include_stats)
            for (table, access), handle in zip(found, handles, strict=True)
        ],
        "semanticsVersion": found[0][0].semantics_version,
        "errors": [],
    }


@router.post("/preview")
def preview(
    body: PreviewRequest,
    caller: ClientCaller,
    session: DbSession,
    sessions: SessionsDep,
    settings: SettingsDep,
    catalog: CatalogDep,
    masker: MaskerDep,
    resource_id: str = ResourceId,
) -> dict[str, Any]:
    check_resource(resource_id, body.table_id)
    check_row_count("limit", body.limit, MAX_PREVIEW_ROWS)
    table, access = readable(session, caller, body.table_id)
    columns = tables.visible_columns(table, access)
    handle = iceberg.load_table(catalog, table.company_id, table.id)
    reveal = body.reveal and access.can_reveal
    rows = preview_rows(
        handle,
        columns,
        access.row_filter,
        body.limit,
        decrypt=masker.decryptor(table.company_id) if reveal else None,
        charge=partial(charge_read, sessions, settings.query_daily_bytes_scanned, caller.company_id),
        spill=_spill(settings, table.company_id),
    )
    return {"columns": [{"name": c["name"], "type": c["type"]} for c in columns], "rows": rows, "errors": []}


@router.post(
    "/append-rows",
    response_model=AppendRowsAnswer,
    response_model_by_alias=True,
    openapi_extra={"requestBody": _APPEND_ROWS_BODY},
)
async def append_rows(
    request: Request,
    caller: ClientCaller,
    sessions: SessionsDep,
    masker: MaskerDep,
    quota: AppendQuotaDep,
    committer: CommitterDep,
    publisher: PublisherDep,
    resource_id: str = ResourceId,
) -> AppendRowsAnswer:
    raw = await request.body()
    appends.check_size(raw)
    load_id = new_id()
    # The table is looked up first (by resourceId, its errors held back) so that parsing and converting run
    # in one stretch: a call's row objects are gone before the garbage collector runs again. Interleaved
    # with other calls they survived into the old generation, and the full collections that followed cost
    # more than the conversion itself.
    target = await run_in_threadpool(_writable_table, sessions, caller, resource_id)
    if len(raw) <= INLINE_BYTES:
        table, converted = _convert(masker, target, raw, resource_id, load_id)
    else:
        table, converted = await run_in_threadpool(_convert, masker, target, raw, resource_id, load_id)
    if converted.accepted:
        moment = time.time()
        if not quota.take(table.company_id, converted.accepted, moment):
            wait = 60 - moment % 60  # the quota's windows are whole minutes
            raise analytics_error(
                "QUOTA",
                "The plan's appended-rows-per-minute limit is reached",
                "Retry in the next minute (Retry-After), or send fewer rows per minute",
                retry_after=wait,
            )
        write = partial(
            tables.add_append,
            write_id=load_id,
            table_id=table.id,
            company_id=table.company_id,
            created_by=caller.user_id,
            rows=converted.rows,
            row_count=converted.accepted,
            now=datetime.now(UTC),
        )
        await committer.run(write)
        record = TableWriteRef(write_id=load_id, table_id=table.id, company_id=table.company_id)
        await hand_off(publisher, record, key=table.id)
    return AppendRowsAnswer(accepted=converted.accepted, load_id=load_id, errors=converted.errors)


def _writable_table(sessions: Sessions, caller: Principal, table_id: str) -> AnalyticsTable | ApiError:
    with sessions() as session:
        try:
            table, _access = readable(session, caller, table_id, "WRITE")
        except ApiError as error:
            return error
    return table


def _convert(
    masker: Masker, target: AnalyticsTable | ApiError, raw: bytes, resource_id: str, load_id: str
) -> tuple[AnalyticsTable, appends.ConvertedAppend]:
    """Check the body, then the table, in the order the errors have always come; then convert the rows.
    They are stored converted and encrypted, so the table's writer only decodes them."""
    body = appends.parse_body(raw)
    check_resource(resource_id, body.table_id)
    appends.check_count(body)
    if isinstance(target, ApiError):
        raise target
    columns = appends.column_definitions(target.columns_json)
    return target, appends.convert(columns, body.rows, load_id, masker.encryptor(target.company_id))
