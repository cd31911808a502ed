"""Query results in the object store (one Parquet file per job) and their rendering for the interface:
pages of JSON rows, the preview, CSV and Parquet downloads, with masked columns masked or revealed."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from schemas.column_types import MaskStrategy, parse_column_type
from sinks.iceberg.results import ResultColumn, column_type_of_arrow, to_json_rows

if TYPE_CHECKING:
    from sinks.objectstore import ObjectStore

ROW_GROUP_ROWS = 10_000


def result_key(company_id: str, job_id: str) -> str:
    return f"results/{company_id}/{job_id}.parquet"


def describe_columns(
    schema: pa.Schema, masked: dict[int, dict[str, Any]], json_columns: frozenset[int] = frozenset()
) -> list[dict[str, Any]]:
    """The stored description of each result column; ``masked`` maps an output index to its masked source,
    ``json_columns`` are the string outputs that carry a JSON column (typed JSON, shown parsed)."""
    columns: list[dict[str, Any]] = []
    for index, field in enumerate(schema):
        source = masked.get(index)
        if source is not None:
            columns.append(
                {
                    "name": field.name,
                    "type": "STRING",
                    "masked": True,
                    "maskStrategy": source["maskStrategy"],
                    "tableId": source["tableId"],
                    "column": source["column"],
                }
            )
        elif index in json_columns and (
            pa.types.is_string(field.type) or pa.types.is_large_string(field.type)
        ):
            columns.append({"name": field.name, "type": "JSON"})
        else:
            columns.append({"name": field.name, "type": str(column_type_of_arrow(field.type))})
    return columns


def write_result(store: ObjectStore, key: str, table: pa.Table) -> None:
    filesystem, base = store.arrow_filesystem()
    pq.write_table(table, f"{base}/{key}", filesystem=filesystem, row_group_size=ROW_GROUP_ROWS)


def delete_result(store: ObjectStore, key: str) -> None:
    if store.exists(key):
        store.delete(key)


def read_rows(store: ObjectStore, key: str, offset: int, limit: int) -> pa.Table:
    """Rows ``offset`` to ``offset + limit`` of a stored result, reading only the row groups they lie in."""
    filesystem, base = store.arrow_filesystem()
    with filesystem.open_input_file(f"{base}/{key}") as source:
        parquet = pq.ParquetFile(source)
        groups: list[int] = []
        start = 0
        first_start = 0
        for index in range(parquet.num_row_groups):
            rows = parquet.metadata.row_group(index).num_rows
            if start + rows > offset and start < offset + limit:
                if not groups:
                    first_start = start
                groups.append(index)
            start += rows
        if not groups:
            return parquet.schema_arrow.empty_table()
        table = parquet.read_row_groups(groups)
    return table.slice(offset - first_start, limit)


def result_columns(stored: Sequence[dict[str, Any]]) -> list[ResultColumn]:
    return [
        ResultColumn(
            c["name"],
            parse_column_type(c["type"]),
            bool(c.get("masked")),
            MaskStrategy(c.get("maskStrategy") or "FULL"),
        )
        for c in stored
    ]


def wire_columns(stored: Sequence[dict[str, Any]], revealable: dict[str, bool], reveal: bool) -> list[Any]:
    """Result columns as the interface shows them: name and type, and for masked columns masked,
    revealable, revealed and maskStrategy. ``revealable`` is by table id, for the caller."""
    shown: list[dict[str, Any]] = []
    for column in stored:
        entry: dict[str, Any] = {"name": column["name"], "type": column["type"]}
        if column.get("masked"):
            can = revealable.get(column["tableId"], False)
            entry.update(
                masked=True,
                revealable=can,
                revealed=bool(reveal and can),
                maskStrategy=column["maskStrategy"],
            )
        shown.append(entry)
    return shown


def render(
    table: pa.Table,
    stored: Sequence[dict[str, Any]],
    revealable: dict[str, bool],
    reveal: bool,
    decrypt: Callable[[str], str],
) -> list[dict[str, Any]]:
    """JSON rows. Masked columns are revealed only where asked and allowed; LAST4 needs the plaintext to
    mask, so it is decrypted either way. Columns revealed for some tables only are rendered one by one."""
    columns = result_columns(stored)
    rows: list[dict[str, Any]] = [{} for _ in range(table.num_rows)]
    for index, (column, meta) in enumerate(zip(columns, stored, strict=True)):
        shown = bool(reveal and meta.get("masked") and revealable.get(meta.get("tableId", ""), False))
        values = to_json_rows(
            table.select([index]).rename_columns([column.name]),
            [column],
            reveal=shown,
            decrypt=decrypt if meta.get("masked") else None,
        )
        for row, value in zip(rows, values, strict=True):
            row[column.name] = value[column.name]
    return rows


def csv_chunks(
    store: ObjectStore,
    key: str,
    stored: Sequence[dict[str, Any]],
    revealable: dict[str, bool],
    reveal: bool,
    decrypt: Callable[[str], str],
) -> Iterator[bytes]:
    """The result as CSV, a row group at a time; values as in JSON (nested ones as JSON text)."""
    filesystem, base = store.arrow_filesystem()
    names = [c["name"] for c in stored]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    with filesystem.open_input_file(f"{base}/{key}") as source:
        parquet = pq.ParquetFile(source)
        for index in range(parquet.num_row_groups):
            group = parquet.read_row_group(index)
            for row in render(group, stored, revealable, reveal, decrypt):
                writer.writerow([_csv_value(row[name]) for name in names])
            yield buffer.getvalue().encode()
            buffer.seek(0)
            buffer.truncate()
    if buffer.tell():
        yield buffer.getvalue().encode()


def parquet_bytes(
    store: ObjectStore,
    key: str,
    stored: Sequence[dict[str, Any]],
    revealable: dict[str, bool],
    reveal: bool,
    decrypt: Callable[[str], str],
) -> bytes:
    """The stored result with masked columns replaced by what the caller may see."""
    filesystem, base = store.arrow_filesystem()
    table = pq.read_table(f"{base}/{key}", filesystem=filesystem)
    for index, meta in enumerate(stored):
        if not meta.get("masked"):
            continue
        values = render(table.select([index]), [meta], revealable, reveal, decrypt)
        table = table.set_column(
            index, meta["name"], pa.array([v[meta["name"]] for v in values], pa.string())
        )
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def _csv_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(value, separators=(",", ":"))
    return str(value)
