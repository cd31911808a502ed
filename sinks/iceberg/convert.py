# mypy: disable-error-code="import-untyped"
"""JSON rows (as /append-rows receives them) to an Arrow table of the table's schema; bad rows reported.

Each column is converted as a whole: its values are pulled out of the rows once, checked in one cheap
pass and handed to Arrow in one call. Only a column that fails that pass is walked cell by cell, which
is where the per-row messages come from, so valid input never pays for error reporting.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

from schemas.column_types import LOAD_ID_COLUMN, RECORD_ID_COLUMN, SYSTEM_COLUMNS, ColumnDef, ColumnKind
from sinks.iceberg.types import (
    DECIMAL_TEXT,
    JSON_ENCODER,
    CellError,
    arrow_schema,
    arrow_type,
    cell_converter,
    describe_value,
)

_MIN_MICROS = -62_135_596_800_000_000  # 0001-01-01T00:00:00Z
_MAX_MICROS = 253_402_300_799_999_999  # 9999-12-31T23:59:59.999999Z
_EMPTY: dict[str, Any] = {}
# LZ4 shrinks typical rows well for little CPU; zstd packs tighter but takes about three times as long.
_IPC_OPTIONS = ipc.IpcWriteOptions(compression="lz4")


@dataclass(frozen=True)
class RowError:
    index: int
    message: str


@dataclass(frozen=True)
class ConvertResult:
    table: pa.Table
    accepted_indexes: list[int]
    errors: list[RowError]


def rows_to_arrow(
    columns: Sequence[ColumnDef],
    rows: Sequence[Any],
    *,
    load_id: str,
    first_record_id: int,
    encrypt: Callable[[str], str] | None = None,
) -> ConvertResult:
    """Convert `rows`; refused rows are left out and reported, `_record_id` numbers the accepted ones."""
    if encrypt is None and any(c.masked for c in columns):
        raise ValueError("the table has masked columns: an encrypt function is required")
    problems: dict[int, list[str]] = {}
    objects = _check_shapes(columns, rows, problems)
    misshapen = set(problems)
    arrays: list[pa.Array] = []
    for column in columns:
        array, bad = _convert_column(column, [row.get(column.name) for row in objects])
        for index, message in bad.items():
            if index not in misshapen:
                problems.setdefault(index, []).append(f'column "{column.name}": {message}')
        arrays.append(array)
    keep = [i not in problems for i in range(len(rows))]
    if problems:
        mask = pa.array(keep, pa.bool_())
        arrays = [pc.filter(array, mask) for array in arrays]
    accepted = [i for i, ok in enumerate(keep) if ok]
    if encrypt is not None:
        arrays = [_encrypt(a, encrypt) if c.masked else a for c, a in zip(columns, arrays, strict=True)]
    size = len(accepted)
    arrays.append(repeated(load_id, size))
    arrays.append(sequence(first_record_id, size))
    table = pa.Table.from_arrays(arrays, schema=arrow_schema(columns))
    errors = [RowError(index, "; ".join(messages)) for index, messages in sorted(problems.items())]
    return ConvertResult(table=table, accepted_indexes=accepted, errors=errors)


def to_ipc(table: pa.Table) -> bytes:
    """Accepted rows as they wait in the metadata DB for the table writer: the user columns (the writer
    sets `_load_id` and `_record_id` when it commits) as one LZ4-compressed Arrow IPC stream."""
    table = table.drop_columns([c for c in (LOAD_ID_COLUMN, RECORD_ID_COLUMN) if c in table.column_names])
    sink = pa.BufferOutputStream()
    with ipc.new_stream(sink, table.schema, options=_IPC_OPTIONS) as stream:
        stream.write_table(table)
    return bytes(sink.getvalue())


def from_ipc(data: bytes) -> pa.Table:
    with ipc.open_stream(data) as reader:
        return reader.read_all()


def repeated(text: str, count: int) -> pa.Array:
    return pa.repeat(pa.scalar(text, pa.string()), count)


def sequence(first: int, count: int) -> pa.Array:
    """first, first+1, ... built in Arrow: ten times faster than from a Python range."""
    return pc.add(pc.cumulative_sum(pa.repeat(pa.scalar(1, pa.int64()), count)), first - 1)


def _check_shapes(
    columns: Sequence[ColumnDef], rows: Sequence[Any], problems: dict[int, list[str]]
) -> list[dict[str, Any]]:
    """Rows as dicts; a row that is not an object or names unknown columns is refused here."""
    known = {c.name for c in columns}
    objects: list[dict[str, Any]] = []
    for index, row in enumerate(rows):
        if type(row) is not dict:
            problems[index] = [f"row must be a JSON object, got {describe_value(row)}"]
            objects.append(_EMPTY)
            continue
        if not row.keys() <= known:
            extra = row.keys() - known
            system = sorted(name for name in extra if name in SYSTEM_COLUMNS)
            names = ", ".join(f'"{name}"' for name in sorted(extra)[:5])
            problems[index] = [
                f'column "{system[0]}" is a system column and is set by the service'
                if system
                else f"unknown column{'s' if len(extra) > 1 else ''} {names}"
            ]
        objects.append(row)
    return objects


def _convert_column(column: ColumnDef, values: list[Any]) -> tuple[pa.Array, dict[int, str]]:
    target = arrow_type(column.type)
    fast = _FAST_PATHS.get(column.type.kind)
    if fast is not None and (column.nullable or None not in values):
        try:
            array = fast(values, target)
        except (pa.ArrowException, OverflowError, UnicodeEncodeError, ValueError, TypeError, RecursionError):
            array = None
        if array is not None:
            return array, {}
    convert = cell_converter(column.type)
    out: list[Any] = []
    bad: dict[int, str] = {}
    for index, value in enumerate(values):
        if value is None:
            if not column.nullable:
                bad[index] = "is required and missing or null"
            out.append(None)
            continue
        try:
            out.append(convert(value))
        except CellError as error:
            bad[index] = str(error)
            out.append(None)
    return pa.array(out, target), bad


def _encrypt(array: pa.Array, encrypt: Callable[[str], str]) -> pa.Array:
    return pa.array([None if v is None else encrypt(v) for v in array.to_pylist()], pa.string())


# Fast paths: None (or an exception) when any value is not plainly valid; the cell path then explains.
# Arrow's own conversions refuse the wrong JSON kinds (a number for a string, 1 for a boolean, ...);
# where they would be lenient (1.5 into an INT, "ab" into a list) the inferred type is checked first.
_DATE_RE2 = r"^\d{4}-\d{2}-\d{2}$"
_NAIVE_RE2 = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$"
_ZONED_RE2 = _NAIVE_RE2[:-1] + r"(Z|[+-]\d{2}(:?\d{2})?)$"
_DECIMAL_RE2 = DECIMAL_TEXT.pattern


def _all(mask: pa.Array) -> bool:
    return pc.all(mask).as_py() is not False


def _fast_strict(values: list[Any], target: pa.DataType) -> pa.Array | None:
    return pa.array(values, target)


def _fast_integer(values: list[Any], target: pa.DataType) -> pa.Array | None:
    inferred = pa.array(values)
    return inferred.cast(target) if inferred.type in (pa.int64(), pa.null()) else None


def _fast_double(values: list[Any], target: pa.DataType) -> pa.Array | None:
    inferred = pa.array(values)
    if inferred.type not in (pa.float64(), pa.int64(), pa.null()):
        return None
    array = inferred.cast(target)
    return array if _all(pc.is_finite(array)) else None


def _fast_decimal(values: list[Any], target: pa.DataType) -> pa.Array | None:
    texts = pa.array(values, pa.string())
    return pc.cast(texts, target) if _all(pc.match_substring_regex(texts, _DECIMAL_RE2)) else None


def _fast_date(values: list[Any], target: pa.DataType) -> pa.Array | None:
    texts = pa.array(values, pa.string())
    if not _all(pc.match_substring_regex(texts, _DATE_RE2)):
        return None
    days = pc.cast(texts, target)
    # Arrow parses year 0000, which Python's date and Iceberg readers cannot hold.
    return days if _all(pc.greater_equal(days, pa.scalar(date(1, 1, 1), pa.date32()))) else None


def _fast_timestamp(values: list[Any], target: pa.DataType) -> pa.Array | None:
    texts = pa.array(values, pa.string())
    zoned = pc.match_substring_regex(texts, _ZONED_RE2)
    if target.tz is not None:
        return _in_range(pc.cast(texts, target), target) if _all(zoned) else None
    if not _all(pc.or_(zoned, pc.match_substring_regex(texts, _NAIVE_RE2))):
        return None
    # A TIMESTAMP is a UTC wall time: naive text is read as UTC, an offset is applied, the zone dropped.
    texts = pc.if_else(zoned, texts, pc.binary_join_element_wise(texts, "Z", ""))
    return _in_range(pc.cast(texts, pa.timestamp("us", tz="UTC")), target)


def _in_range(utc: pa.Array, target: pa.DataType) -> pa.Array | None:
    """The values as `target` when all fall in years 1 to 9999 once offsets are applied."""
    micros = utc.cast(pa.int64())
    bounds = pc.min_max(micros).as_py()
    if bounds["min"] is not None and not _MIN_MICROS <= bounds["min"] <= bounds["max"] <= _MAX_MICROS:
        return None
    return micros.cast(target)


def _fast_json(values: list[Any], target: pa.DataType) -> pa.Array | None:
    encode = JSON_ENCODER.encode
    return pa.array([None if v is None else encode(v) for v in values], target)


def _fast_string_list(values: list[Any], target: pa.DataType) -> pa.Array | None:
    if not all(v is None or type(v) is list for v in values):
        return None
    array = pa.array(values, target)
    return array if pc.list_flatten(array).null_count == 0 else None


_FAST_PATHS: dict[ColumnKind, Callable[[list[Any], pa.DataType], pa.Array | None]] = {
    ColumnKind.STRING: _fast_strict,
    ColumnKind.BOOLEAN: _fast_strict,
    ColumnKind.INT: _fast_integer,
    ColumnKind.LONG: _fast_integer,
    ColumnKind.DOUBLE: _fast_double,
    ColumnKind.DECIMAL: _fast_decimal,
    ColumnKind.DATE: _fast_date,
    ColumnKind.TIMESTAMP: _fast_timestamp,
    ColumnKind.TIMESTAMPTZ: _fast_timestamp,
    ColumnKind.JSON: _fast_json,
    ColumnKind.STRING_LIST: _fast_string_list,
}
