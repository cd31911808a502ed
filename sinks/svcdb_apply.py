"""Apply one svcdb operation to an Iceberg table, exactly once per operation id (see ``core/svcdb.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
from pyiceberg.expressions import AlwaysFalse, BooleanExpression, In

from core.svcdb import RECORD_ID, Predicate, SvcDbError, record_predicate, row_of, where_predicate
from schemas.column_types import ColumnDef
from sinks.duckdb_engine import connect_to_table
from sinks.iceberg import writer
from sinks.iceberg.convert import rows_to_arrow


def _converted(
    columns: list[ColumnDef], row: dict[str, Any], op_id: str, encrypt: Callable[[str], str]
) -> pa.Table:
    result = rows_to_arrow(columns, [row], load_id=op_id, first_record_id=0, encrypt=encrypt)
    if result.errors:
        raise SvcDbError(result.errors[0].message)
    return result.table


def matching_ids(handle: Any, predicate: Predicate) -> list[int]:
    if handle.current_snapshot() is None:
        return []
    with connect_to_table(handle) as connection:
        rows = connection.execute(
            f"SELECT {RECORD_ID} FROM iceberg_scan(?) WHERE {predicate.sql}",  # noqa: S608 - bound parameters only
            [handle.metadata_location, *predicate.parameters],
        ).fetchall()
    return [int(row[0]) for row in rows]


def _target(handle: Any, op: dict[str, Any], columns: list[ColumnDef]) -> list[int]:
    if op.get("recordId") is not None:
        return matching_ids(handle, record_predicate(op["recordId"]))
    if op.get("whereGroups"):
        return matching_ids(
            handle, where_predicate(op["whereGroups"], op.get("groupsLogicalOperator"), columns)
        )
    raise SvcDbError(f"{op['operation']} needs recordId or whereGroups")


def _ids_filter(ids: list[int]) -> BooleanExpression:
    return In(term=RECORD_ID, literals=set(ids)) if ids else AlwaysFalse()


def _updater(
    columns: list[ColumnDef], values: dict[str, Any], op_id: str, encrypt: Callable[[str], str]
) -> Callable[[pa.Table], pa.Table]:
    changed = [column for column in columns if column.name in values]
    new = _converted(changed, values, op_id, encrypt) if changed else None

    def replace(matched: pa.Table) -> pa.Table:
        result = matched
        for column in changed:
            assert new is not None  # noqa: S101 - changed is non-empty here
            scalar = new.column(column.name)[0]
            array = pa.array([scalar.as_py()] * matched.num_rows, type=new.schema.field(column.name).type)
            result = result.set_column(result.schema.get_field_index(column.name), column.name, array)
        return result

    return replace


def apply(
    handle: Any, columns: list[ColumnDef], op: dict[str, Any], op_id: str, encrypt: Callable[[str], str]
) -> str:
    """Run INSERT, UPDATE, UPSERT or DELETE; returns a short account of what changed."""
    operation = op["operation"]
    values = row_of(op.get("values") or {}, columns)
    if operation == "INSERT":
        outcome = writer.append(handle, [(op_id, _converted(columns, values, op_id, encrypt))])
        return f"inserted {outcome.rows} row(s)"
    ids = _target(handle, op, columns)
    if operation == "DELETE":
        removed = writer.delete_rows(handle, _ids_filter(ids), op_id)
        return f"deleted {removed.rows_removed} row(s)"
    if operation == "UPSERT" and not ids:
        outcome = writer.append(handle, [(op_id, _converted(columns, values, op_id, encrypt))])
        return f"inserted {outcome.rows} row(s)"
    if operation in ("UPDATE", "UPSERT"):
        updated = writer.overwrite_rows(
            handle, _ids_filter(ids), _updater(columns, values, op_id, encrypt), op_id
        )
        return f"updated {updated.rows_written} row(s)"
    raise SvcDbError(f"unknown operation {operation}")
