"""Table administration on the poweruser API: ``{base_url}/svc_poweruser/analytics/tables/...``.

Company admins create and drop tables, add columns (safe widenings only), edit the semantic layer against an
expected version, and grant READ or WRITE with row filters and hidden columns. Anyone with READ on a table
lists its snapshots (the versions time travel reads).
"""

from __future__ import annotations

import base64
import binascii
import json

from fastapi import APIRouter

from core.row_filter import RowFilterError, check_row_filter
from ingress.analytics.coded_errors import analytics_error
from ingress.analytics.table_specs import column_def, register_table, stored_column
from ingress.deps import CatalogDep, DbSession, PoweruserCaller, ReadsDep
from schemas.admin import Principal
from schemas.base import iso_utc
from schemas.column_types import is_safe_widening, parse_column_type
from schemas.tables import (
    AddColumnRequest,
    CreatedTable,
    CreateTableRequest,
    GrantTableRequest,
    SnapshotsAnswer,
    SnapshotsRequest,
    TableIdRequest,
    TableSnapshot,
    Updated,
    UpdateSemanticsRequest,
)
from sinks.db import tenancy
from sinks.db.analytics import tables
from sinks.db.models import AnalyticsTable, utcnow
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.snapshots import SnapshotInfo, list_snapshots

router = APIRouter(prefix="/svc_poweruser/analytics/tables", tags=["analytics administration"])


def _admin(caller: Principal) -> None:
    if not caller.is_admin:
        raise analytics_error("FORBIDDEN", "Only company admins manage analytics tables")


def _table(session: DbSession, caller: Principal, table_id: str) -> AnalyticsTable:
    _admin(caller)
    table = tables.get(session, caller.company_id, table_id)
    if table is None:
        raise analytics_error("NOT_FOUND", f"Table {table_id} not found")
    return table


@router.post("/create", response_model=CreatedTable, response_model_by_alias=True)
def create_table(
    body: CreateTableRequest, caller: PoweruserCaller, session: DbSession, catalog: CatalogDep
) -> CreatedTable:
    _admin(caller)
    table = register_table(session, catalog, caller.company_id, caller.user_id, body)
    return CreatedTable(table_id=table.id, semantics_version=table.semantics_version)


@router.post("/add-column", response_model=Updated, response_model_by_alias=True)
def add_column(
    body: AddColumnRequest, caller: PoweruserCaller, session: DbSession, catalog: CatalogDep
) -> Updated:
    table = _table(session, caller, body.table_id)
    columns = json.loads(table.columns_json)
    definition = column_def(body.column)
    existing = next((c for c in columns if c["name"] == body.column.name), None)
    handle = iceberg.load_table(catalog, caller.company_id, table.id)
    if existing is None:
        if not definition.nullable:
            raise analytics_error("INVALID_SCHEMA", "a column added to a live table must be nullable")
        iceberg.add_column(handle, definition)
        columns.append(stored_column(body.column, definition))
    else:
        old = parse_column_type(existing["type"])
        if existing["masked"] != definition.masked or not is_safe_widening(old, definition.type):
            raise analytics_error(
                "INVALID_SCHEMA",
                f"column {body.column.name!r}: {old} → {definition.type} is not a safe widening",
                "Allowed: INT → LONG, DECIMAL(p,s) → DECIMAL(p',s) with p' ≥ p, or a new nullable column",
            )
        iceberg.widen_column(handle, definition.name, str(definition.type))
        existing["type"] = str(definition.type)
    table.columns_json = json.dumps(columns)
    table.updated_at = utcnow()
    return Updated(updated=True, semantics_version=table.semantics_version)


@router.post("/update-semantics", response_model=Updated, response_model_by_alias=True)
def update_semantics(body: UpdateSemanticsRequest, caller: PoweruserCaller, session: DbSession) -> Updated:
    table = _table(session, caller, body.table_id)
    if body.expected_version != table.semantics_version:
        raise analytics_error(
            "VERSION_CONFLICT",
            f"The semantic layer is at version {table.semantics_version}, not {body.expected_version}",
            "Describe the table again and retry with its semanticsVersion",
        )
    columns = json.loads(table.columns_json)
    by_name = {c["name"]: c for c in columns}
    for field, values in (("description", body.column_descriptions), ("synonyms", body.column_synonyms)):
        for name, value in (values or {}).items():
            if name not in by_name:
                raise analytics_error("INVALID_SCHEMA", f"column {name!r} is not a column of the table")
            by_name[name][field] = value
    semantics = json.loads(table.semantics_json)
    for key, items in (
        ("measures", body.measures),
        ("joins", body.joins),
        ("verifiedQueries", body.verified_queries),
    ):
        if items is not None:
            semantics[key] = [item.model_dump(by_alias=True) for item in items]
    for attribute in ("name", "description", "grain"):
        if getattr(body, attribute) is not None:
            setattr(table, attribute, getattr(body, attribute))
    table.columns_json = json.dumps(columns)
    table.semantics_json = json.dumps(semantics)
    table.semantics_version += 1
    table.updated_at = utcnow()
    return Updated(updated=True, semantics_version=table.semantics_version)


@router.post("/drop", response_model=Updated, response_model_by_alias=True)
def drop_table(
    body: TableIdRequest, caller: PoweruserCaller, session: DbSession, catalog: CatalogDep
) -> Updated:
    table = _table(session, caller, body.table_id)
    iceberg.drop_table(catalog, caller.company_id, table.id, purge=True)
    session.delete(table)
    return Updated(updated=True)


@router.post("/grant", response_model=Updated, response_model_by_alias=True)
def grant_table(body: GrantTableRequest, caller: PoweruserCaller, session: DbSession) -> Updated:
    table = _table(session, caller, body.table_id)
    user = (
        tenancy.get_user(session, caller.company_id, body.user_id)
        if body.user_id
        else tenancy.find_user_by_email(session, caller.company_id, body.user_email or "")
    )
    if user is None:
        raise analytics_error(
            "NOT_FOUND", f"User not found in your company: {body.user_id or body.user_email}"
        )
    names = {c["name"] for c in json.loads(table.columns_json)}
    unknown = sorted(set(body.hidden_columns) - names)
    if unknown:
        raise analytics_error("INVALID_SCHEMA", f"hiddenColumns names unknown columns: {', '.join(unknown)}")
    row_filter = None
    if body.row_filter is not None and body.row_filter.strip():
        try:
            row_filter = check_row_filter(body.row_filter, names)
        except RowFilterError as exc:
            raise analytics_error("INVALID_SCHEMA", str(exc)) from exc
    tables.set_grant(session, table, user.id, body.level, row_filter, body.hidden_columns, body.can_reveal)
    return Updated(updated=True)


def _snapshots_cursor(text: str | None) -> tuple[int, int, int] | None:
    """The position a snapshots cursor names; 400 INVALID_REQUEST for text this service did not issue."""
    if not text:
        return None
    try:
        parts = base64.urlsafe_b64decode(text.encode()).decode().split(":")
        committed_ms, sequence, snapshot_id = (int(part) for part in parts)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise analytics_error(
            "INVALID_REQUEST",
            "cursor: not a cursor this service issued",
            "Send the nextCursor of the previous page as it was, or no cursor for the first page",
        ) from None
    return committed_ms, sequence, snapshot_id


@router.post("/snapshots", response_model=SnapshotsAnswer, response_model_by_alias=True)
def snapshots(
    body: SnapshotsRequest, caller: PoweruserCaller, session: DbSession, reads: ReadsDep
) -> SnapshotsAnswer:
    """The table's snapshots, newest first: the versions `FOR VERSION AS OF` and `FOR TIMESTAMP AS OF` read.
    READ on the table is enough, as for describe; the row counts are the whole table's, shown only to readers
    without a row filter."""
    after = _snapshots_cursor(body.cursor)
    table = tables.get(session, caller.company_id, body.table_id)
    if table is None:
        raise analytics_error("NOT_FOUND", f"Table {body.table_id} not found")
    access = tables.access(session, caller.company_id, caller.user_id, caller.is_admin, table.id)
    if not access.allows("READ"):
        raise analytics_error("FORBIDDEN", f"READ permission on table {table.sql_name} is required")
    found = list_snapshots(reads.table(caller.company_id, table.id))
    if after is not None:
        found = [snapshot for snapshot in found if snapshot.position < after]
    page = found[: body.limit]
    more = len(found) > body.limit
    # Row counts of commits say how many rows were added, also rows a row filter hides from this reader:
    # as for an append job's counts, a reader with a row filter gets none.
    counted = access.row_filter is None
    return SnapshotsAnswer(
        snapshots=[
            TableSnapshot(
                snapshot_id=str(snapshot.snapshot_id),
                committed_at=str(iso_utc(snapshot.committed_at)),
                operation=snapshot.operation,
                added_rows=snapshot.added_rows if counted else None,
                added_files=snapshot.added_files,
                total_rows=snapshot.total_rows if counted else None,
            )
            for snapshot in page
        ],
        next_cursor=_next_cursor(page[-1]) if more else None,
    )


def _next_cursor(snapshot: SnapshotInfo) -> str:
    return base64.urlsafe_b64encode(":".join(map(str, snapshot.position)).encode()).decode()
