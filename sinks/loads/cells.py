"""One value at a time: whether a file value fits a column type, its converted value, and why not.

The vectorised converter in `columns.py` decides most cells; these rules decide only the cells it could
not (a cast that failed on them), and give the message of a rejected cell. Where the JSON rules of
`/append-rows` read text the same way (integers, decimals, dates, timestamps, JSON), they are reused so a
value means the same thing in both paths.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from schemas.column_types import ColumnDef, ColumnKind, ColumnType
from sinks.iceberg.types import DECIMAL_TEXT, CellError, cell_converter

BOOLEAN_TEXTS: tuple[str, ...] = ("true", "t", "1", "yes", "false", "f", "0", "no")
"""Accepted boolean texts, lower-cased: the first half means true."""

_DOUBLE_TEXT = re.compile(r"^[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|nan|inf|infinity)$", re.IGNORECASE)
_ISO_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SHOWN_CHARS = 60

TextRule = Callable[[str], Any]


def show(value: Any) -> str:
    """A value as a message quotes it: text in double quotes, cut to 60 characters."""
    if isinstance(value, str):
        cut = value if len(value) <= _SHOWN_CHARS else value[:_SHOWN_CHARS] + "…"
        return json.dumps(cut, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, date | datetime):
        return value.isoformat()
    return str(value) if isinstance(value, Decimal) else repr(value)


def text_rule(
    column_type: ColumnType, *, date_format: str | None = None, timestamp_format: str | None = None
) -> TextRule:
    """The rule for a trimmed, non-empty text: returns the value Arrow takes, or raises CellError."""
    kind = column_type.kind
    if kind in (ColumnKind.INT, ColumnKind.LONG):
        return _integer(column_type)
    if kind is ColumnKind.DECIMAL:
        return _decimal(column_type)
    if kind is ColumnKind.DATE:
        return _date_with(date_format) if date_format else _iso_date
    if kind in (ColumnKind.TIMESTAMP, ColumnKind.TIMESTAMPTZ):
        return _timestamp(kind is ColumnKind.TIMESTAMPTZ, timestamp_format)
    rules: dict[ColumnKind, TextRule] = {
        ColumnKind.STRING: str,
        ColumnKind.BOOLEAN: _boolean,
        ColumnKind.DOUBLE: _double,
        ColumnKind.STRING_LIST: _string_list,
        ColumnKind.JSON: _json,
    }
    return rules[kind]


def value_message(value: Any, arrow_type: str, column: ColumnDef) -> str:
    """Why a non-text file value (a Parquet int, float, timestamp ...) was refused by its column."""
    if column.masked:
        return f"a {arrow_type} value cannot be loaded into the {column.type} column"
    return f"{show(value)} ({arrow_type}) does not fit {column.type}"


def _integer(column_type: ColumnType) -> TextRule:
    convert = cell_converter(column_type)

    def rule(text: str) -> int:
        try:
            return int(convert(text))
        except CellError as error:
            if "out of range" in str(error):
                raise
            raise CellError(f"{show(text)} is not an integer") from None

    return rule


def _decimal(column_type: ColumnType) -> TextRule:
    convert = cell_converter(column_type)

    def rule(text: str) -> Any:
        if not DECIMAL_TEXT.match(text):
            raise CellError(f"{show(text)} is not a {column_type}")
        return convert(text)

    return rule


def _boolean(text: str) -> bool:
    lowered = text.lower()
    if lowered not in BOOLEAN_TEXTS:
        raise CellError(f"{show(text)} is not a BOOLEAN (true/false, t/f, 1/0, yes/no)")
    return BOOLEAN_TEXTS.index(lowered) < len(BOOLEAN_TEXTS) // 2


def _double(text: str) -> float:
    if not _DOUBLE_TEXT.match(text):
        raise CellError(f"{show(text)} is not a DOUBLE")
    return float(text)


_ISO_DATE = cell_converter(ColumnType(ColumnKind.DATE))


def _iso_date(text: str) -> date:
    value: date = _ISO_DATE(text)
    return value


def _date_with(date_format: str) -> TextRule:
    def rule(text: str) -> date:
        try:
            return datetime.strptime(text, date_format).replace(tzinfo=UTC).date()
        except ValueError:
            raise CellError(f'{show(text)} is not a date in the format "{date_format}"') from None

    return rule


_ISO_TIMESTAMP = cell_converter(ColumnType(ColumnKind.TIMESTAMP))


def _timestamp(zoned: bool, timestamp_format: str | None) -> TextRule:
    """Text to a UTC instant: an offset is applied, a text without one is taken as UTC."""

    def parse(text: str) -> datetime:
        if timestamp_format:
            try:
                moment = datetime.strptime(text, timestamp_format)  # noqa: DTZ007 - a naive text is UTC
            except ValueError:
                raise CellError(
                    f'{show(text)} is not a timestamp in the format "{timestamp_format}"'
                ) from None
            try:
                return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
            except OverflowError:
                raise CellError(f"{show(text)} is outside the years 1 to 9999 in UTC") from None
        if _ISO_DATE_ONLY.match(text):
            return datetime.combine(_iso_date(text), datetime.min.time(), UTC)
        value: datetime = _ISO_TIMESTAMP(text)
        return value

    def rule(text: str) -> datetime:
        moment = parse(text)
        return moment if zoned else moment.replace(tzinfo=None)

    return rule


_LIST = cell_converter(ColumnType(ColumnKind.STRING_LIST))
_JSON = cell_converter(ColumnType(ColumnKind.JSON))


def _string_list(text: str) -> list[str]:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise CellError(f"{show(text)} is not a JSON array of strings") from None
    result: list[str] = _LIST(value)
    return result


def _json(text: str) -> str:
    """The canonical text `/append-rows` stores for the same JSON value."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise CellError(f"{show(text)} is not valid JSON ({error})") from None
    result: str = _JSON(value)
    return result
