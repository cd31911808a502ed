"""Reads behind describe and preview: DuckDB over the table's current Iceberg snapshot, with the caller's row
filter applied and hidden columns never selected.

The SQL is assembled from quoted column names of the table's definition, the table's own metadata location
and a row filter that was checked against an allow-list when it was granted, never from request text. A table
in an ``s3://`` warehouse is read with the S3 access of the table's own FileIO (``sinks/duckdb_engine.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlglot

from schemas.column_types import ColumnKind, MaskStrategy, parse_column_type
from sinks.duckdb_engine import connect_to_table
from sinks.iceberg.results import ResultColumn, to_json_rows

TOP_VALUES = 5
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


def preview_rows(
    handle: Any,
    columns: Sequence[dict[str, Any]],
    row_filter: str | None,
    limit: int,
    *,
    decrypt: Callable[[str], str] | None,
) -> list[dict[str, Any]]:
    if handle.current_snapshot() is None or not columns:
        return []
    selected = ", ".join(_quote(c["name"]) for c in columns)
    sql = f"SELECT {selected} FROM {_source(handle, row_filter)} ORDER BY _record_id LIMIT {int(limit)}"
    with connect_to_table(handle) as connection:
        table = connection.execute(sql).to_arrow_table()
    return to_json_rows(table, result_columns(columns), reveal=decrypt is not None, decrypt=decrypt)


def table_stats(
    handle: Any, columns: Sequence[dict[str, Any]], row_filter: str | None
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
    with connect_to_table(handle) as connection:
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
