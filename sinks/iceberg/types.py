# mypy: disable-error-code="import-untyped"
"""Per column type: the Iceberg and Arrow types, the schema every table carries, and the conversion of
one JSON value into a value of the type (with the message when it does not fit)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Context, Decimal, InvalidOperation
from typing import Any

import pyarrow as pa
from pyiceberg.schema import Schema
from pyiceberg.types import (
    BooleanType,
    DateType,
    DecimalType,
    DoubleType,
    IcebergType,
    IntegerType,
    ListType,
    LongType,
    NestedField,
    StringType,
    TimestampType,
    TimestamptzType,
)

from schemas.column_types import (
    LOAD_ID_COLUMN,
    RECORD_ID_COLUMN,
    ColumnDef,
    ColumnKind,
    ColumnType,
)

STRING_LIST_ARROW = pa.list_(pa.string())
DATE_PATTERN = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
TIMESTAMP_PATTERN = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})[Tt ](?P<h>\d{2}):(?P<m>\d{2})(?::(?P<s>\d{2})(?:\.(?P<frac>\d+))?)?"
    r"(?P<zone>[Zz]|[+-]\d{2}(?::?\d{2})?)?$"
)
DECIMAL_TEXT = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
# Canonical JSON text: compact, keys sorted, so equal values are equal strings in SQL. One encoder is
# reused because json.dumps with options builds a new one per call.
JSON_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)
_INTEGER_TEXT = re.compile(r"^[+-]?\d{1,20}$")
_INT_RANGE = {ColumnKind.INT: (-(2**31), 2**31 - 1), ColumnKind.LONG: (-(2**63), 2**63 - 1)}
_EXACT_FLOAT = 2**53
# Wide enough for DECIMAL(38,s); the default context (28 digits) would round the largest values.
_DECIMAL_CONTEXT = Context(prec=80)


class CellError(ValueError):
    """One value that does not fit its column; the message names the value and the problem."""


_SIMPLE_ICEBERG: dict[ColumnKind, IcebergType] = {
    ColumnKind.STRING: StringType(),
    ColumnKind.BOOLEAN: BooleanType(),
    ColumnKind.INT: IntegerType(),
    ColumnKind.LONG: LongType(),
    ColumnKind.DOUBLE: DoubleType(),
    ColumnKind.DATE: DateType(),
    ColumnKind.TIMESTAMP: TimestampType(),
    ColumnKind.TIMESTAMPTZ: TimestamptzType(),
    # JSON is stored as its canonical text: every reader (DuckDB included) can parse it, no extension needed.
    ColumnKind.JSON: StringType(),
}

_SIMPLE_ARROW: dict[ColumnKind, pa.DataType] = {
    ColumnKind.STRING: pa.string(),
    ColumnKind.BOOLEAN: pa.bool_(),
    ColumnKind.INT: pa.int32(),
    ColumnKind.LONG: pa.int64(),
    ColumnKind.DOUBLE: pa.float64(),
    ColumnKind.DATE: pa.date32(),
    ColumnKind.TIMESTAMP: pa.timestamp("us"),
    ColumnKind.TIMESTAMPTZ: pa.timestamp("us", tz="UTC"),
    ColumnKind.STRING_LIST: STRING_LIST_ARROW,
    ColumnKind.JSON: pa.string(),
}


def iceberg_type(column_type: ColumnType, element_id: int = 1) -> IcebergType:
    """The Iceberg type; `element_id` is a placeholder that catalogs renumber on create and on add."""
    if column_type.kind is ColumnKind.DECIMAL:
        return DecimalType(column_type.precision or 0, column_type.scale or 0)
    if column_type.kind is ColumnKind.STRING_LIST:
        return ListType(element_id=element_id, element_type=StringType(), element_required=False)
    return _SIMPLE_ICEBERG[column_type.kind]


def arrow_type(column_type: ColumnType) -> pa.DataType:
    if column_type.kind is ColumnKind.DECIMAL:
        return pa.decimal128(column_type.precision or 0, column_type.scale or 0)
    return _SIMPLE_ARROW[column_type.kind]


def iceberg_schema(columns: Sequence[ColumnDef]) -> Schema:
    """User columns in order, then the system columns `_load_id` and `_record_id`."""
    fields: list[NestedField] = []
    next_id = 1
    for column in columns:
        field_id = next_id
        next_id += 1
        element_id = next_id
        if column.type.kind is ColumnKind.STRING_LIST:
            next_id += 1
        fields.append(
            NestedField(
                field_id=field_id,
                name=column.name,
                field_type=iceberg_type(column.type, element_id),
                required=not column.nullable,
            )
        )
    fields.append(NestedField(field_id=next_id, name=LOAD_ID_COLUMN, field_type=StringType(), required=True))
    fields.append(
        NestedField(field_id=next_id + 1, name=RECORD_ID_COLUMN, field_type=LongType(), required=True)
    )
    return Schema(*fields)


def arrow_schema(columns: Sequence[ColumnDef]) -> pa.Schema:
    """The Arrow schema the converter produces; nullability matches the Iceberg schema."""
    fields = [pa.field(c.name, arrow_type(c.type), nullable=c.nullable) for c in columns]
    fields.append(pa.field(LOAD_ID_COLUMN, pa.string(), nullable=False))
    fields.append(pa.field(RECORD_ID_COLUMN, pa.int64(), nullable=False))
    return pa.schema(fields)


# JSON value to column value: one value in, the Python value Arrow takes for the column out, or a
# CellError naming the problem. The converter uses these when a whole-column conversion fails.


def describe_value(value: Any) -> str:
    """`number 12`, `string \"x\"`, `array`: how a message names a JSON value."""
    names = {str: "string", bool: "boolean", int: "number", float: "number", list: "array", dict: "object"}
    if value is None:
        return "null"
    name = names.get(type(value), type(value).__name__)
    if isinstance(value, dict | list):
        return name
    shown = json.dumps(value, ensure_ascii=False) if not isinstance(value, float) else repr(value)
    return f"{name} {shown[:60] + '…' if len(shown) > 60 else shown}"


def _show(value: Any) -> str:
    return describe_value(value).split(" ", 1)[-1]


def _text(value: Any) -> str:
    if type(value) is not str:
        raise CellError(f"expected a string, got {describe_value(value)}")
    try:
        value.encode()
    except UnicodeEncodeError:
        raise CellError("string contains an unpaired surrogate, not valid Unicode") from None
    return value


def _boolean(value: Any) -> bool:
    if type(value) is not bool:
        raise CellError(f"expected true or false, got {describe_value(value)}")
    return value


def _integer(kind: ColumnKind) -> Callable[[Any], int]:
    low, high = _INT_RANGE[kind]

    def convert(value: Any) -> int:
        if type(value) is int:
            number = value
        elif (type(value) is float and value.is_integer() and abs(value) <= _EXACT_FLOAT) or (
            type(value) is str and _INTEGER_TEXT.match(value)
        ):
            number = int(value)
        else:
            raise CellError(f"expected an integer, got {describe_value(value)}")
        if not low <= number <= high:
            raise CellError(f"{_show(value)} is out of range for {kind.value} ({low} to {high})")
        return number

    return convert


def _double(value: Any) -> float:
    if type(value) not in (int, float):
        raise CellError(f"expected a number, got {describe_value(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise CellError(f"{_show(value)} is too large for DOUBLE") from None
    if not math.isfinite(number):
        raise CellError(f"{_show(value)} is not a finite number")
    return number


def _decimal(column_type: ColumnType) -> Callable[[Any], Decimal]:
    precision, scale = column_type.precision or 0, column_type.scale or 0
    quantum = Decimal(1).scaleb(-scale)

    def convert(value: Any) -> Decimal:
        if type(value) is str and DECIMAL_TEXT.match(value):
            text = value
        elif type(value) in (int, float) and (type(value) is int or math.isfinite(value)):
            text = repr(value)
        else:
            raise CellError(
                f"expected a decimal number (preferably as a string), got {describe_value(value)}"
            )
        try:
            number = Decimal(text)
            exact = number.quantize(quantum, context=_DECIMAL_CONTEXT)
        except InvalidOperation:
            raise CellError(f"{_show(value)} has more digits than {column_type} holds") from None
        if exact != number:
            raise CellError(f"{_show(value)} has more than {scale} decimal places for {column_type}")
        if exact and exact.adjusted() + 1 > precision - scale:
            raise CellError(
                f"{_show(value)} has more than {precision - scale} digits before the decimal point "
                f"for {column_type}"
            )
        return exact

    return convert


def _date(value: Any) -> date:
    found = DATE_PATTERN.match(value) if type(value) is str else None
    if found is None:
        raise CellError(f"expected a date as a YYYY-MM-DD string, got {describe_value(value)}")
    try:
        return date(int(found.group(1)), int(found.group(2)), int(found.group(3)))
    except ValueError as error:
        raise CellError(f"{_show(value)} is not a valid date: {error}") from None


def _timestamp(zoned: bool) -> Callable[[Any], datetime]:
    name = "TIMESTAMPTZ" if zoned else "TIMESTAMP"

    def convert(value: Any) -> datetime:
        found = TIMESTAMP_PATTERN.match(value) if type(value) is str else None
        if found is None:
            raise CellError(
                "expected an ISO-8601 timestamp string YYYY-MM-DDTHH:MM:SS[.ffffff][Z|±HH:MM], "
                f"got {describe_value(value)}"
            )
        frac, zone = found.group("frac") or "", found.group("zone")
        if len(frac) > 6:
            raise CellError(f"{_show(value)} has more than 6 fractional digits (microseconds)")
        if zoned and zone is None:
            raise CellError(f"{_show(value)} has no zone offset; {name} needs Z or ±HH:MM")
        tz = UTC
        if zone and zone not in "Zz":
            digits = zone[1:].replace(":", "")
            offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0))
            if offset >= timedelta(hours=24):
                raise CellError(f"{_show(value)} has an invalid zone offset")
            tz = timezone(-offset if zone[0] == "-" else offset)
        try:
            day = date.fromisoformat(found.group("date"))
            moment = datetime(
                day.year, day.month, day.day, int(found.group("h")), int(found.group("m")),
                int(found.group("s") or 0), int(frac.ljust(6, "0")), tzinfo=tz,
            )  # fmt: skip
            return moment.astimezone(UTC)
        except (ValueError, OverflowError) as error:
            raise CellError(f"{_show(value)} is not a valid timestamp: {error}") from None

    return convert


def _json(value: Any) -> str:
    try:
        text = JSON_ENCODER.encode(value)
    except (ValueError, TypeError, RecursionError) as error:
        raise CellError(f"not a JSON value: {error}") from None
    try:
        text.encode()
    except UnicodeEncodeError:
        raise CellError("string contains an unpaired surrogate, not valid Unicode") from None
    return text


def _string_list(value: Any) -> list[str]:
    if type(value) is not list:
        raise CellError(f"expected an array of strings, got {describe_value(value)}")
    for position, element in enumerate(value):
        if type(element) is not str:
            raise CellError(f"element {position} is {describe_value(element)}, expected a string")
        _text(element)
    return value


def cell_converter(column_type: ColumnType) -> Callable[[Any], Any]:
    kind = column_type.kind
    if kind in _INT_RANGE:
        return _integer(kind)
    if kind is ColumnKind.DECIMAL:
        return _decimal(column_type)
    if kind in (ColumnKind.TIMESTAMP, ColumnKind.TIMESTAMPTZ):
        return _timestamp(kind is ColumnKind.TIMESTAMPTZ)
    simple: dict[ColumnKind, Callable[[Any], Any]] = {
        ColumnKind.STRING: _text,
        ColumnKind.BOOLEAN: _boolean,
        ColumnKind.DOUBLE: _double,
        ColumnKind.DATE: _date,
        ColumnKind.JSON: _json,
        ColumnKind.STRING_LIST: _string_list,
    }
    return simple[kind]
