# mypy: disable-error-code="import-untyped"
"""Arrow results to JSON rows exactly as the interface's "Values in results" table says.

LONG is a number up to 2^53-1 in magnitude and a string beyond (JavaScript clients lose digits past
that); DECIMAL is a string keeping its scale ("12.50"); DATE is "YYYY-MM-DD"; TIMESTAMP and TIMESTAMPTZ
are "YYYY-MM-DDTHH:MM:SS.ffffffZ" (a TIMESTAMP holds a UTC wall time, so it is rendered the same way);
STRING_LIST is an array; JSON is the parsed value; DOUBLE NaN and infinities, which JSON cannot carry,
are the strings "NaN", "Infinity" and "-Infinity". Masked columns show mask text unless revealed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from schemas.column_types import (
    LOAD_ID_COLUMN,
    RECORD_ID_COLUMN,
    ColumnDef,
    ColumnKind,
    ColumnType,
    MaskStrategy,
)

MAX_EXACT_INTEGER = 2**53 - 1
MASK_TEXT = "••••••••"
_TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S"
_SYSTEM_TYPES = {LOAD_ID_COLUMN: ColumnType(ColumnKind.STRING), RECORD_ID_COLUMN: ColumnType(ColumnKind.LONG)}


@dataclass(frozen=True)
class ResultColumn:
    name: str
    type: ColumnType
    masked: bool = False
    mask_strategy: MaskStrategy = MaskStrategy.FULL


def mask_value(plaintext: str, strategy: MaskStrategy) -> str:
    """FULL hides everything, length included; LAST4 keeps the last four characters (e.g. of an account)."""
    if strategy is MaskStrategy.LAST4 and len(plaintext) > 4:
        return "••••" + plaintext[-4:]
    return MASK_TEXT


def column_type_of_arrow(data_type: pa.DataType) -> ColumnType:
    """The interface type a query result column reports; JSON and masking need the table's definition."""
    if pa.types.is_boolean(data_type):
        return ColumnType(ColumnKind.BOOLEAN)
    if pa.types.is_integer(data_type):
        narrow = data_type.bit_width < 32 or (
            data_type.bit_width == 32 and pa.types.is_signed_integer(data_type)
        )
        return ColumnType(ColumnKind.INT if narrow else ColumnKind.LONG)
    if pa.types.is_floating(data_type):
        return ColumnType(ColumnKind.DOUBLE)
    if pa.types.is_decimal(data_type):
        return ColumnType(ColumnKind.DECIMAL, data_type.precision, data_type.scale)
    if pa.types.is_date(data_type):
        return ColumnType(ColumnKind.DATE)
    if pa.types.is_timestamp(data_type):
        return ColumnType(ColumnKind.TIMESTAMPTZ if data_type.tz else ColumnKind.TIMESTAMP)
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        return ColumnType(ColumnKind.STRING_LIST)
    return ColumnType(ColumnKind.STRING)


def result_columns(schema: pa.Schema, defined: Mapping[str, ColumnDef] | None = None) -> list[ResultColumn]:
    """Result columns for `schema`; a name found in `defined` takes that column's type and masking."""
    defined = defined or {}
    columns: list[ResultColumn] = []
    for field in schema:
        column = defined.get(field.name)
        if column is not None:
            columns.append(ResultColumn(field.name, column.type, column.masked))
        else:
            kind = _SYSTEM_TYPES.get(field.name) or column_type_of_arrow(field.type)
            columns.append(ResultColumn(field.name, kind))
    return columns


def to_json_rows(
    table: pa.Table,
    columns: Sequence[ResultColumn] | None = None,
    *,
    reveal: bool = False,
    decrypt: Callable[[str], str] | None = None,
) -> list[dict[str, Any]]:
    """Rows as JSON-ready dicts keyed by column name, in the table's column order."""
    columns = list(columns) if columns is not None else result_columns(table.schema)
    if len(columns) != table.num_columns:
        raise ValueError(f"{len(columns)} result columns given for a table of {table.num_columns}")
    values = [column_values(table.column(i), column, reveal, decrypt) for i, column in enumerate(columns)]
    return rows_of([column.name for column in columns], values)


def rows_of(names: Sequence[str], values: Sequence[list[Any]]) -> list[dict[str, Any]]:
    """Rows as dicts from each column's JSON-ready values."""
    return [dict(zip(names, row, strict=True)) for row in zip(*values, strict=True)]


def column_values(
    data: pa.ChunkedArray, column: ResultColumn, reveal: bool, decrypt: Callable[[str], str] | None
) -> list[Any]:
    if column.masked:
        return _masked(data.to_pylist(), column, reveal, decrypt)
    kind = column.type.kind
    if kind in (ColumnKind.TIMESTAMP, ColumnKind.TIMESTAMPTZ):
        # strftime renders in the type's zone, so every zone is first converted to UTC.
        micros = data.cast(pa.timestamp("us", tz="UTC" if data.type.tz else None), safe=False)
        text = pc.strftime(micros, format=_TIMESTAMP_FORMAT)
        # Arrow's %S carries the fraction at the column's unit; microseconds give the fixed six digits.
        return [None if t is None else t + "Z" for t in text.to_pylist()]
    if kind is ColumnKind.DATE:
        return [None if d is None else d.isoformat() for d in data.to_pylist()]
    if kind is ColumnKind.DECIMAL:
        return [None if d is None else _decimal_text(d) for d in data.to_pylist()]
    if kind is ColumnKind.LONG:
        return [
            v if v is None or -MAX_EXACT_INTEGER <= v <= MAX_EXACT_INTEGER else str(v)
            for v in data.to_pylist()
        ]
    if kind is ColumnKind.DOUBLE:
        return [_double(v) for v in data.to_pylist()]
    if kind is ColumnKind.JSON:
        return [None if v is None else json.loads(v) for v in data.to_pylist()]
    return list(data.to_pylist())


def _masked(
    values: list[Any], column: ResultColumn, reveal: bool, decrypt: Callable[[str], str] | None
) -> list[Any]:
    if not reveal and column.mask_strategy is MaskStrategy.FULL:
        return [None if v is None else MASK_TEXT for v in values]
    if decrypt is None:
        raise ValueError(f'column "{column.name}": a decrypt function is required to reveal or partly mask')
    if reveal:
        return [None if v is None else decrypt(v) for v in values]
    return [None if v is None else mask_value(decrypt(v), column.mask_strategy) for v in values]


def _decimal_text(value: Decimal) -> str:
    return format(value, "f")


def _double(value: float | None) -> float | str | None:
    if value is None or math.isfinite(value):
        return value
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"
