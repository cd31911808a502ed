"""Reads behind describe and preview: DuckDB over the table's current Iceberg snapshot, with the caller's row
filter applied and hidden columns never selected. Both read table data and are charged for it against the
company's daily scan allowance by their caller: a preview the bytes of the files it opens (``charge``,
``sinks/preview_plan.py``), describe's statistics every file of the snapshot (:func:`stats_cost`).

The SQL is assembled from quoted column names of the table's definition, the table's own metadata location
and a row filter that was checked against an allow-list when it was granted, never from request text. A table
in an ``s3://`` warehouse is read with the S3 access of the table's own FileIO (``sinks/duckdb_engine.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa
import sqlglot
from pyiceberg.conversions import from_bytes
from pyiceberg.types import IcebergType, ListType, LongType, MapType, StructType

from schemas.column_types import ColumnKind, MaskStrategy, parse_column_type
from sinks.duckdb_engine import Spill, connect_to_table, sql_literal
from sinks.iceberg.results import ResultColumn, to_json_rows
from sinks.preview_plan import DataFile, in_id_order, next_round
from sinks.query_engine import readable_path

TOP_VALUES = 5
RECORD_ID = "_record_id"
_ORDER = "__svc_preview_order"
_NO_ORDER = {ColumnKind.STRING_LIST, ColumnKind.JSON}


@dataclass(frozen=True)
class Summary:
    row_count: int
    data_bytes: int


def summary(handle: Any) -> Summary:
    snapshot = handle.current_snapshot()
    if snapshot is None or snapshot.summary is None:
        return Summary(0, 0)
    values = snapshot.summary.additional_properties
    return Summary(int(values.get("total-records", 0)), int(values.get("total-files-size", 0)))


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def duckdb_predicate(row_filter: str) -> str:
    """A grant's row filter (checked, Trino dialect) as DuckDB SQL."""
    return str(sqlglot.transpile(row_filter, read="trino", write="duckdb")[0])


def _source(handle: Any, row_filter: str | None) -> str:
    location = str(handle.metadata_location).replace("'", "''")
    where = ""
    if row_filter:
        where = " WHERE " + duckdb_predicate(row_filter)
    return f"(SELECT * FROM iceberg_scan('{location}'){where})"


def result_columns(columns: Sequence[dict[str, Any]]) -> list[ResultColumn]:
    return [
        ResultColumn(
            c["name"],
            parse_column_type(c["type"]),
            bool(c["masked"]),
            MaskStrategy(c.get("maskStrategy") or "FULL"),
        )
        for c in columns
    ]


def _free(_size: int) -> None:
    """The charge of a read nobody meters."""


def stats_cost(handle: Any) -> int:
    """What describe's statistics read of a table: every file of its current snapshot (data and delete
    files), as a query that reads the whole table is charged; the several passes over them count once."""
    return summary(handle).data_bytes


def _direct_files(handle: Any, tasks: Sequence[Any]) -> list[DataFile] | None:
    """The snapshot's data files when reading them directly gives its rows: no delete files, and every
    column of the schema written in every file (a column added later is filled in only by Iceberg's
    reader). None: the preview reads the table through ``iceberg_scan``, every file of it."""
    fields = [{field.field_id, *_nested_ids(field.field_type)} for field in handle.schema().fields]
    record_id = handle.schema().find_field(RECORD_ID).field_id
    files = []
    for task in tasks:
        data = task.file
        written = set(data.value_counts or {})
        # A list, map or struct column is counted under its leaves' ids, not its own.
        if task.delete_files or not all(ids & written for ids in fields):
            return None
        bound = (data.lower_bounds or {}).get(record_id)
        first = int(from_bytes(LongType(), bound)) if bound is not None else None
        files.append(
            DataFile(str(data.file_path), int(data.file_size_in_bytes), int(data.record_count), first)
        )
    return files


def _nested_ids(field_type: IcebergType) -> set[int]:
    if isinstance(field_type, ListType):
        return {field_type.element_id, *_nested_ids(field_type.element_type)}
    if isinstance(field_type, MapType):
        return {
            field_type.key_id,
            field_type.value_id,
            *_nested_ids(field_type.key_type),
            *_nested_ids(field_type.value_type),
        }
    if isinstance(field_type, StructType):
        return {i for f in field_type.fields for i in (f.field_id, *_nested_ids(f.field_type))}
    return set()


def _all_files_size(tasks: Sequence[Any]) -> int:
    seen: dict[str, int] = {}
    for task in tasks:
        for data in (task.file, *task.delete_files):
            seen[str(data.file_path)] = int(data.file_size_in_bytes)
    return sum(seen.values())


def preview_rows(
    handle: Any,
    columns: Sequence[dict[str, Any]],
    row_filter: str | None,
    limit: int,
    *,
    decrypt: Callable[[str], str] | None,
    charge: Callable[[int], None] = _free,
    spill: Spill | None = None,
) -> list[dict[str, Any]]:
    """The first ``limit`` rows by ``_record_id``. ``charge`` is called with the bytes of the files about to
    be opened, before they are (it raises to refuse the read)."""
    if handle.current_snapshot() is None or not columns:
        return []
    selected = ", ".join(_quote(c["name"]) for c in columns)
    tasks = list(handle.scan().plan_files())
    direct = _direct_files(handle, tasks)
    if direct == []:  # a snapshot without data files: every row deleted
        return []
    with connect_to_table(handle, spill=spill) as connection:
        if direct is None:
            charge(_all_files_size(tasks))
            sql = (
                f"SELECT {selected} FROM {_source(handle, row_filter)} ORDER BY _record_id LIMIT {int(limit)}"
            )
            table = connection.execute(sql).to_arrow_table()
        else:
            table = _first_rows(connection, direct, selected, row_filter, limit, charge)
    return to_json_rows(table, result_columns(columns), reveal=decrypt is not None, decrypt=decrypt)


def _first_rows(
    connection: duckdb.DuckDBPyConnection,
    files: Sequence[DataFile],
    selected: str,
    row_filter: str | None,
    limit: int,
    charge: Callable[[int], None],
) -> pa.Table:
    where = f" WHERE {duckdb_predicate(row_filter)}" if row_filter else ""
    pending = in_id_order(files)
    kept: pa.Table | None = None
    rows_read = 0
    while True:
        have = 0 if kept is None else kept.num_rows
        last_id = kept.column(_ORDER).to_pylist()[-1] if kept is not None and have else None
        count = next_round(pending, kept=have, limit=limit, last_id=last_id, rows_read=rows_read)
        if count == 0:
            break
        batch, pending = pending[:count], pending[count:]
        charge(sum(file.size for file in batch))
        rows_read += sum(file.rows for file in batch)
        listed = ", ".join(sql_literal(readable_path(file.path)) for file in batch)
        source = f"read_parquet([{listed}], union_by_name = true, hive_partitioning = false)"
        got = connection.execute(
            f"SELECT {selected}, {RECORD_ID} AS {_quote(_ORDER)} FROM {source}{where} "
            f"ORDER BY {RECORD_ID} LIMIT {int(limit)}"
        ).to_arrow_table()
        merged = got if kept is None else pa.concat_tables([kept, got], promote_options="permissive")
        kept = merged.sort_by(_ORDER).slice(0, limit)
    if kept is None:
        raise RuntimeError("a table with a snapshot has no data files to preview")
    return kept.drop_columns([_ORDER])


def table_stats(
    handle: Any,
    columns: Sequence[dict[str, Any]],
    row_filter: str | None,
    *,
    spill: Spill | None = None,
) -> dict[str, dict[str, Any]]:
    """nullCount, distinctCount (approximate), min, max and topValues per visible column. Masked values never
    leave as statistics: a masked column reports only its null and distinct counts."""
    if handle.current_snapshot() is None:
        return {
            c["name"]: {"nullCount": 0, "distinctCount": 0, "min": None, "max": None, "topValues": []}
            for c in columns
        }
    source = _source(handle, row_filter)
    stats: dict[str, dict[str, Any]] = {}
    with connect_to_table(handle, spill=spill) as connection:
        for column, shown in zip(columns, result_columns(columns), strict=True):
            name = _quote(column["name"])
            kind = shown.type.kind
            counted = connection.execute(
                f"SELECT count(*) - count({name}), approx_count_distinct({name}) FROM {source}"
            ).fetchone() or (0, 0)
            entry: dict[str, Any] = {"nullCount": int(counted[0]), "distinctCount": int(counted[1])}
            if shown.masked or kind in _NO_ORDER:
                entry.update(min=None, max=None, topValues=[])
            else:
                bounds = connection.execute(
                    f"SELECT min({name}) AS v FROM {source} UNION ALL SELECT max({name}) FROM {source}"
                )
                low, high = (row["v"] for row in to_json_rows(bounds.to_arrow_table(), [_as(shown, "v")]))
                top = connection.execute(
                    f"SELECT {name} AS v, count(*) AS n FROM {source} WHERE {name} IS NOT NULL "
                    f"GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT {TOP_VALUES}"
                ).to_arrow_table()
                values = to_json_rows(top.select(["v"]), [_as(shown, "v")])
                counts = top.column("n").to_pylist()
                entry.update(
                    min=low,
                    max=high,
                    topValues=[{"value": v["v"], "count": n} for v, n in zip(values, counts, strict=True)],
                )
            stats[column["name"]] = entry
    return stats


def _as(column: ResultColumn, name: str) -> ResultColumn:
    return ResultColumn(name, column.type, column.masked, column.mask_strategy)
