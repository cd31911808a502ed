"""Analytics column types, column names and the schema changes allowed on a live table."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class ColumnTypeError(ValueError):
    """A column type, name or definition the interface does not allow (INVALID_SCHEMA)."""


class ColumnKind(StrEnum):
    STRING = "STRING"
    BOOLEAN = "BOOLEAN"
    INT = "INT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    DECIMAL = "DECIMAL"
    DATE = "DATE"
    TIMESTAMP = "TIMESTAMP"
    TIMESTAMPTZ = "TIMESTAMPTZ"
    STRING_LIST = "STRING_LIST"
    JSON = "JSON"


class MaskStrategy(StrEnum):
    """How a masked value is shown to a caller who may not reveal it."""

    FULL = "FULL"
    LAST4 = "LAST4"


MAX_DECIMAL_PRECISION = 38
LOAD_ID_COLUMN = "_load_id"
RECORD_ID_COLUMN = "_record_id"
SYSTEM_COLUMNS: tuple[str, ...] = (LOAD_ID_COLUMN, RECORD_ID_COLUMN)

_COLUMN_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_DECIMAL = re.compile(r"^DECIMAL\s*\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$")


@dataclass(frozen=True)
class ColumnType:
    kind: ColumnKind
    precision: int | None = None
    scale: int | None = None

    def __post_init__(self) -> None:
        if self.kind is ColumnKind.DECIMAL:
            if self.precision is None or self.scale is None:
                raise ColumnTypeError("DECIMAL needs a precision and a scale, e.g. DECIMAL(12,2)")
            if not 1 <= self.precision <= MAX_DECIMAL_PRECISION:
                raise ColumnTypeError(
                    f"DECIMAL precision must be between 1 and {MAX_DECIMAL_PRECISION}, got {self.precision}"
                )
            if not 0 <= self.scale <= self.precision:
                raise ColumnTypeError(
                    f"DECIMAL scale must be between 0 and the precision {self.precision}, got {self.scale}"
                )
        elif self.precision is not None or self.scale is not None:
            raise ColumnTypeError(f"{self.kind} takes no precision or scale")

    def __str__(self) -> str:
        if self.kind is ColumnKind.DECIMAL:
            return f"DECIMAL({self.precision},{self.scale})"
        return self.kind.value


def parse_column_type(text: str) -> ColumnType:
    """Read a type as the interface writes it: `LONG`, `DECIMAL(12,2)`; case and spaces are forgiven."""
    if not isinstance(text, str):
        raise ColumnTypeError(f"column type must be a string, got {type(text).__name__}")
    cleaned = text.strip().upper()
    match = _DECIMAL.match(cleaned)
    if match:
        return ColumnType(ColumnKind.DECIMAL, int(match.group(1)), int(match.group(2)))
    if cleaned == ColumnKind.DECIMAL:
        raise ColumnTypeError("DECIMAL needs a precision and a scale, e.g. DECIMAL(12,2)")
    try:
        kind = ColumnKind(cleaned)
    except ValueError:
        allowed = ", ".join(k.value for k in ColumnKind if k is not ColumnKind.DECIMAL)
        raise ColumnTypeError(f"unknown column type {text!r}; use one of {allowed} or DECIMAL(p,s)") from None
    return ColumnType(kind)


def validate_column_name(name: str) -> str:
    """A user column name: lower-case SQL identifier, at most 63 characters, not starting with `_`."""
    if not isinstance(name, str) or not _COLUMN_NAME.match(name):
        raise ColumnTypeError(
            f"invalid column name {name!r}: use 1 to 63 characters of a-z, 0-9 and _, "
            "not starting with a digit"
        )
    if name.startswith("_"):
        raise ColumnTypeError(f"column name {name!r} is reserved: names starting with _ are system columns")
    return name


def is_safe_widening(old: ColumnType, new: ColumnType) -> bool:
    """True when every value of `old` is exactly a value of `new`, so existing data files stay valid."""
    if old == new:
        return True
    if old.kind is ColumnKind.INT and new.kind is ColumnKind.LONG:
        return True
    if old.kind is ColumnKind.DECIMAL and new.kind is ColumnKind.DECIMAL:
        # Iceberg only promotes decimal precision; a scale change would reinterpret stored values.
        return old.scale == new.scale and (new.precision or 0) >= (old.precision or 0)
    return False


@dataclass(frozen=True)
class ColumnDef:
    """A user column of an analytics table."""

    name: str
    type: ColumnType
    nullable: bool = True
    masked: bool = False

    def __post_init__(self) -> None:
        validate_column_name(self.name)
        if self.masked and self.type.kind is not ColumnKind.STRING:
            raise ColumnTypeError(f"column {self.name!r}: only STRING columns can be masked, not {self.type}")


def validate_columns(columns: list[ColumnDef]) -> None:
    """A table's column list: at least one column, names unique."""
    if not columns:
        raise ColumnTypeError("a table needs at least one column")
    seen: set[str] = set()
    for column in columns:
        if column.name in seen:
            raise ColumnTypeError(f"duplicate column name {column.name!r}")
        seen.add(column.name)
