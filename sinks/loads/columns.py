# mypy: disable-error-code="import-untyped"
"""A file column (Arrow array of any type) to a table column's Arrow type, with a mask of refused cells.

The work is done by whole-array Arrow kernels. A cast either converts every cell or raises; when it
raises, the array is halved until the failing cells are isolated (about 2·n elements re-cast for one bad
cell), and only those cells go through the per-cell rules of `cells.py`. So a clean column costs one cast,
and a column with a few bad values costs a few more, never a Python loop over the column. STRING_LIST and
JSON texts are parsed cell by cell: there is no Arrow kernel for them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import date
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from schemas.column_types import ColumnDef, ColumnKind
from sinks.iceberg.convert import sequence
from sinks.iceberg.types import CellError, arrow_type
from sinks.loads.cells import BOOLEAN_TEXTS, TextRule, text_rule

_MIN_MICROS = -62_135_596_800_000_000  # 0001-01-01T00:00:00Z
_MAX_MICROS = 253_402_300_799_999_999  # 9999-12-31T23:59:59.999999Z
_MIN_DAY = (date(1, 1, 1) - date(1970, 1, 1)).days
_MAX_DAY = (date(9999, 12, 31) - date(1970, 1, 1)).days
_UTC_MICROS = pa.timestamp("us", tz="UTC")
_BOOLEAN_SET = pa.array(BOOLEAN_TEXTS, pa.string())
_CAST_ERRORS = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, OverflowError)

Cast = Callable[[pa.Array], pa.Array]
Converted = tuple[pa.Array, pa.Array | None]
"""The column's values (null where empty or refused) and a mask of refused cells (None: none refused)."""


class _Unconverted(Exception):
    """A kernel that does not raise by itself left a non-null text without a value."""


def is_text(data_type: pa.DataType) -> bool:
    return bool(pa.types.is_string(data_type) or pa.types.is_large_string(data_type)) or (
        hasattr(pa.types, "is_string_view") and pa.types.is_string_view(data_type)
    )


def convert_column(
    raw: pa.Array, column: ColumnDef, *, date_format: str | None = None, timestamp_format: str | None = None
) -> Converted:
    """One file column as `column`'s Arrow type; a null in a required column is left to the caller."""
    target = arrow_type(column.type)
    if isinstance(raw, pa.ChunkedArray):
        raw = raw.combine_chunks()
    if pa.types.is_dictionary(raw.type):
        raw = raw.dictionary_decode()
    if pa.types.is_null(raw.type):
        return pa.nulls(len(raw), target), None
    if is_text(raw.type):
        texts = raw if pa.types.is_string(raw.type) else pc.cast(raw, pa.string())
        rule = text_rule(column.type, date_format=date_format, timestamp_format=timestamp_format)
        return _from_text(texts, column, rule, date_format, timestamp_format)
    return _from_values(raw, column, target)


# Text (every CSV column, string columns of Parquet files)


def _from_text(
    texts: pa.Array, column: ColumnDef, rule: TextRule, date_format: str | None, timestamp_format: str | None
) -> Converted:
    kind = column.type.kind
    target = arrow_type(column.type)
    if kind is ColumnKind.STRING:
        return texts, None
    if kind in (ColumnKind.STRING_LIST, ColumnKind.JSON):
        return _cell_by_cell(_normalized(texts), rule, target)
    cast = _text_cast(column, target, date_format, timestamp_format)
    try:
        # Clean files pass here in one kernel call: no trimming, no empty fields.
        return _in_range(cast(texts), kind), None
    except (*_CAST_ERRORS, _Unconverted):
        pass
    cleaned = _normalized(texts)
    # Cells of the wrong shape are set aside by one vectorised test, so that splitting the array to find
    # the cells a cast fails on is left to rare value errors (an overflow, a 30 February).
    screened = _screen(cleaned, kind, date_format, timestamp_format)
    misshapen = None
    if screened is not None:
        misshapen = pc.fill_null(pc.and_not(pc.is_valid(cleaned), screened), False)
        candidates = pc.if_else(screened, cleaned, pa.scalar(None, pa.string()))
    else:
        candidates = cleaned
    values, suspects = _isolate(candidates, cast, target)
    if misshapen is not None and _any_true(misshapen):
        suspects = misshapen if suspects is None else pc.or_(suspects, misshapen)
    if suspects is None:
        return _in_range_mask(values, kind)
    return _decide(cleaned, values, suspects, rule, target, kind)


_SHAPES: dict[ColumnKind, str] = {
    # What Arrow's casts read; other texts go to the per-cell rules (which accept "+5", for one).
    ColumnKind.INT: r"^-?\d+$",
    ColumnKind.LONG: r"^-?\d+$",
    ColumnKind.DOUBLE: r"^[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|(?i:nan|inf|infinity))$",
    ColumnKind.DECIMAL: r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$",
    ColumnKind.DATE: r"^\d{4}-\d{2}-\d{2}$",
    ColumnKind.TIMESTAMP: (
        r"^\d{4}-\d{2}-\d{2}([T ]\d{2}(:\d{2}(:\d{2}(\.\d{1,6})?)?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$"
    ),
}
_SHAPES[ColumnKind.TIMESTAMPTZ] = _SHAPES[ColumnKind.TIMESTAMP]


def _screen(
    texts: pa.Array, kind: ColumnKind, date_format: str | None, timestamp_format: str | None
) -> pa.Array | None:
    """True for the texts the kernel cast may read, false for those it cannot; None: no screen."""
    if kind is ColumnKind.BOOLEAN:
        return pc.is_valid(pc.index_in(pc.utf8_lower(texts), value_set=_BOOLEAN_SET))
    fmt = date_format if kind is ColumnKind.DATE else timestamp_format
    if fmt and kind in (ColumnKind.DATE, ColumnKind.TIMESTAMP, ColumnKind.TIMESTAMPTZ):
        parsed = pc.strptime(
            texts, format=fmt, unit="s" if kind is ColumnKind.DATE else "us", error_is_null=True
        )
        return pc.fill_null(pc.equal(pc.strftime(parsed, format=fmt), texts), False)
    shape = _SHAPES.get(kind)
    return None if shape is None else pc.match_substring_regex(texts, shape)


def _normalized(texts: pa.Array) -> pa.Array:
    """Surrounding white space removed; an empty (or blank) field is null."""
    trimmed = pc.utf8_trim_whitespace(texts)
    return pc.if_else(pc.equal(trimmed, ""), pa.scalar(None, pa.string()), trimmed)


def _text_cast(
    column: ColumnDef, target: pa.DataType, date_format: str | None, timestamp_format: str | None
) -> Cast:
    kind = column.type.kind
    if kind is ColumnKind.BOOLEAN:
        return _boolean_cast
    if kind is ColumnKind.DATE and date_format:
        return lambda texts: pc.cast(_strptime(texts, date_format, "s"), target)
    if kind in (ColumnKind.TIMESTAMP, ColumnKind.TIMESTAMPTZ):
        if timestamp_format:
            return lambda texts: _as_utc(_strptime(texts, timestamp_format, "us")).cast(target)
        return lambda texts: _iso_timestamp(texts).cast(target)
    return lambda texts: pc.cast(texts, target)


def _boolean_cast(texts: pa.Array) -> pa.Array:
    # Arrow's cast reads exactly true/false (any case) and 1/0, a subset of BOOLEAN_TEXTS meaning the same,
    # at a tenth of the cost of looking every text up; the other spellings take the lookup.
    with contextlib.suppress(pa.ArrowInvalid):
        return pc.cast(texts, pa.bool_())
    positions = pc.index_in(texts, value_set=_BOOLEAN_SET)
    if positions.null_count != texts.null_count:
        positions = pc.index_in(pc.utf8_lower(texts), value_set=_BOOLEAN_SET)
        if positions.null_count != texts.null_count:
            raise _Unconverted
    return pc.less(positions, len(BOOLEAN_TEXTS) // 2)


def _strptime(texts: pa.Array, fmt: str, unit: str) -> pa.Array:
    parsed = pc.strptime(texts, format=fmt, unit=unit, error_is_null=True)
    # Arrow's strptime rolls impossible dates over (31/02 becomes 03/03): a value is kept only when it
    # prints back to the same text; the others go to Python's strptime, which refuses them.
    if parsed.null_count != texts.null_count or not _all_true(
        pc.equal(pc.strftime(parsed, format=fmt), texts)
    ):
        raise _Unconverted
    return parsed


def _as_utc(moments: pa.Array) -> pa.Array:
    if moments.type.tz is not None:
        return moments.cast(_UTC_MICROS)
    return moments.cast(pa.timestamp("us")).cast(pa.int64()).cast(_UTC_MICROS)


def _iso_timestamp(texts: pa.Array) -> pa.Array:
    """ISO-8601 texts all with an offset or all without (taken as UTC); `_isolate` splits mixed arrays."""
    try:
        return pc.cast(texts, _UTC_MICROS)
    except pa.ArrowInvalid:
        return _as_utc(pc.cast(texts, pa.timestamp("us")))


# Values of other Arrow types (Parquet)

_NUMERIC = (pa.types.is_integer, pa.types.is_floating, pa.types.is_decimal)
_TEMPORAL = (pa.types.is_timestamp, pa.types.is_date)
_SOURCES: dict[ColumnKind, tuple[Callable[[pa.DataType], bool], ...]] = {
    ColumnKind.BOOLEAN: (pa.types.is_boolean,),
    ColumnKind.INT: _NUMERIC,
    ColumnKind.LONG: _NUMERIC,
    ColumnKind.DOUBLE: _NUMERIC,
    ColumnKind.DECIMAL: _NUMERIC,
    ColumnKind.DATE: _TEMPORAL,
    ColumnKind.TIMESTAMP: _TEMPORAL,
    ColumnKind.TIMESTAMPTZ: _TEMPORAL,
    ColumnKind.STRING_LIST: (
        lambda t: (pa.types.is_list(t) or pa.types.is_large_list(t)) and is_text(t.value_type),
    ),
}


def _from_values(raw: pa.Array, column: ColumnDef, target: pa.DataType) -> Converted:
    kind = column.type.kind
    if raw.type == target:
        values = raw
    elif not any(accepts(raw.type) for accepts in _SOURCES.get(kind, ())):
        # A type that has no lossless reading as the column's type: every value is refused, none coerced.
        return pa.nulls(len(raw), target), pc.is_valid(raw)
    else:
        values, suspects = _isolate(raw, _exact_cast(raw.type, target), target)
        if suspects is not None:
            return values, suspects
    if kind is ColumnKind.STRING_LIST:
        return values, _lists_with_nulls(values)
    return _in_range_mask(values, kind)


def _exact_cast(source: pa.DataType, target: pa.DataType) -> Cast:
    """A safe cast that also refuses what Arrow's safe cast rounds: 0.125 to DECIMAL(p,2), 10:00 to a date."""
    # The two casts Arrow's safe mode lets round or truncate; every other one raises on a lossy value.
    check_back = (pa.types.is_decimal(target) and pa.types.is_floating(source)) or (
        pa.types.is_date(target) and (pa.types.is_timestamp(source) or pa.types.is_date64(source))
    )

    def cast(values: pa.Array) -> pa.Array:
        result = pc.cast(values, target)
        if check_back and not _all_true(pc.equal(pc.cast(result, source, safe=False), values)):
            raise _Unconverted
        return result

    return cast


def _lists_with_nulls(lists: pa.Array) -> pa.Array | None:
    """Rows whose list holds a null element (a STRING_LIST holds strings only)."""
    elements = pc.list_flatten(lists)
    if elements.null_count == 0:
        return None
    rows = pc.filter(pc.list_parent_indices(lists), pc.is_null(elements))
    return pc.is_in(sequence(0, len(lists)), value_set=rows.cast(pa.int64()))


# Shared


def _isolate(values: pa.Array, cast: Cast, target: pa.DataType) -> tuple[pa.Array, pa.Array | None]:
    """`cast` applied to `values`; cells it fails on are null in the result and true in the mask."""
    try:
        return cast(values), None
    except (*_CAST_ERRORS, _Unconverted):
        pass
    pieces: list[pa.Array] = []
    failed: list[int] = []

    def split(offset: int, length: int) -> None:
        try:
            pieces.append(cast(values.slice(offset, length)))
            return
        except (*_CAST_ERRORS, _Unconverted):
            pass
        if length == 1:
            pieces.append(pa.nulls(1, target))
            failed.append(offset)
            return
        half = length // 2
        split(offset, half)
        split(offset + half, length - half)

    split(0, len(values))
    result = pa.concat_arrays([piece.cast(target) for piece in pieces])
    return result, _mask(len(values), failed)


def _decide(
    texts: pa.Array,
    values: pa.Array,
    suspects: pa.Array,
    rule: TextRule,
    target: pa.DataType,
    kind: ColumnKind,
) -> Converted:
    """Apply the per-cell rule to the cells the kernels failed on: a cell it accepts takes its value."""
    positions = pc.indices_nonzero(suspects).to_pylist()
    accepted: dict[int, Any] = {}
    for position in positions:
        with contextlib.suppress(CellError, ValueError, OverflowError):
            accepted[position] = rule(texts[position].as_py())
    if accepted:
        values = pc.replace_with_mask(
            values, _mask(len(values), list(accepted)), pa.array(list(accepted.values()), target)
        )
    refused = [p for p in positions if p not in accepted]
    values, out_of_range = _in_range_mask(values, kind)
    bad = _mask(len(values), refused) if refused else None
    if out_of_range is not None:
        bad = out_of_range if bad is None else pc.or_(bad, out_of_range)
    return values, bad


def _cell_by_cell(texts: pa.Array, rule: TextRule, target: pa.DataType) -> Converted:
    out: list[Any] = []
    refused: list[int] = []
    for position, text in enumerate(texts.to_pylist()):
        if text is None:
            out.append(None)
            continue
        try:
            out.append(rule(text))
        except CellError:
            out.append(None)
            refused.append(position)
    return pa.array(out, target), _mask(len(out), refused) if refused else None


def _in_range(values: pa.Array, kind: ColumnKind) -> pa.Array:
    """`values` when every date or timestamp is within years 1 to 9999; raises otherwise."""
    values, out_of_range = _in_range_mask(values, kind)
    if out_of_range is not None:
        raise _Unconverted
    return values


def _in_range_mask(values: pa.Array, kind: ColumnKind) -> Converted:
    """`values` and the mask of those outside years 1 to 9999 (compared as integers: Python's dates
    cannot hold them)."""
    if kind is ColumnKind.DATE:
        low, high, numbers = _MIN_DAY, _MAX_DAY, values.cast(pa.int32())
    elif kind in (ColumnKind.TIMESTAMP, ColumnKind.TIMESTAMPTZ):
        low, high, numbers = _MIN_MICROS, _MAX_MICROS, values.cast(pa.int64())
    else:
        return values, None
    bounds = pc.min_max(numbers).as_py()
    if bounds["min"] is None or (low <= bounds["min"] and bounds["max"] <= high):
        return values, None
    return values, pc.fill_null(pc.or_(pc.less(numbers, low), pc.greater(numbers, high)), False)


def _all_true(mask: pa.Array) -> bool:
    return pc.all(mask).as_py() is not False


def _any_true(mask: pa.Array) -> bool:
    return pc.any(mask).as_py() is True


def _mask(length: int, positions: list[int]) -> pa.Array:
    """A boolean array of `length`, true at `positions`."""
    if not positions:
        return pa.repeat(pa.scalar(False), length)
    return pc.is_in(sequence(0, length), value_set=pa.array(positions, pa.int64()))
