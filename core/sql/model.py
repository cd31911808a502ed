"""Shapes shared by the SQL front: the tables a caller may read, the parsed and compiled query, the error."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property

from sqlglot import exp

from schemas.column_types import ColumnType

MAX_SQL_BYTES = 100 * 1024
VIEW_SUFFIX = "#svc"

# (column, op, value): op is one of = != < <= > >= in; value is a Python literal (a list for "in").
Predicate = tuple[str, str, object]


class SqlError(Exception):
    """A refused query: ``code`` is PARSE_ERROR, FORBIDDEN_CONSTRUCT, UNKNOWN_TABLE or UNKNOWN_COLUMN."""

    def __init__(self, code: str, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint

    def __repr__(self) -> str:
        return f"SqlError({self.code!r}, {self.message!r}, {self.hint!r})"


@dataclass(frozen=True)
class AsOf:
    """One time-travel clause (``core.sql.as_of``): a snapshot id, or an aware UTC timestamp."""

    snapshot_id: int | None = None
    timestamp: datetime | None = None

    @property
    def moment(self) -> datetime:
        if self.timestamp is None:
            raise ValueError("this AS OF clause names a snapshot id, not a moment")
        return self.timestamp

    @property
    def key(self) -> str:
        if self.snapshot_id is not None:
            return f"version={self.snapshot_id}"
        return f"timestamp={_text(self.moment)}"

    @property
    def clause(self) -> str:
        if self.snapshot_id is not None:
            return f"FOR VERSION AS OF {self.snapshot_id}"
        return f"FOR TIMESTAMP AS OF TIMESTAMP '{_text(self.moment)} UTC'"


def _text(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


@dataclass(frozen=True)
class TableRef:
    """A table as one query reads it: now (``as_of`` None), or as of a snapshot or a moment. ``key`` tells
    the readings of one table apart (lower case: sqlglot normalises names); ``label`` names it to people."""

    name: str
    as_of: AsOf | None = None

    @property
    def key(self) -> str:
        return self.name if self.as_of is None else f"{self.name}@{self.as_of.key}"

    @property
    def label(self) -> str:
        return self.name if self.as_of is None else f"{self.name} {self.as_of.clause}"


@dataclass(frozen=True)
class QueryColumn:
    name: str
    type: ColumnType
    masked: bool = False


@dataclass(frozen=True)
class QueryTable:
    """A table as one caller sees it: only the visible columns, in table order; as of a snapshot, only the
    visible columns it had then."""

    sql_name: str
    columns: tuple[QueryColumn, ...]
    partition_columns: tuple[str, ...] = ()
    as_of: AsOf | None = None

    @property
    def ref(self) -> TableRef:
        return TableRef(self.sql_name, self.as_of)

    def column(self, name: str) -> QueryColumn | None:
        return self._by_name.get(name)

    @cached_property
    def _by_name(self) -> dict[str, QueryColumn]:
        # A lookup per column reference: a scan of the columns would make wide tables quadratic.
        by_name: dict[str, QueryColumn] = {}
        for column in self.columns:
            by_name.setdefault(column.name, column)
        return by_name


@dataclass(frozen=True)
class ParsedQuery:
    tree: exp.Expr
    table_names: tuple[str, ...]
    tokens: int = 0  # the text's size as core.sql.budget counts it
    # Every distinct reading of a table (a table read now and as of a snapshot is two), in order.
    refs: tuple[TableRef, ...] = ()


@dataclass(frozen=True)
class MaskedOutput:
    table: str
    column: str


@dataclass(frozen=True)
class CompiledQuery:
    sql: str
    views: dict[str, str]
    output_names: tuple[str, ...]
    masked_outputs: tuple[MaskedOutput | None, ...]
    tables: tuple[str, ...] = field(default=())  # SQL names, each once
    json_outputs: tuple[bool, ...] = field(default=())
    refs: tuple[str, ...] = field(default=())  # TableRef keys, each once: the keys of ``views``


def view_name(sql_name: str) -> str:
    """The name of the per-query view of a table; ``#`` keeps it out of reach of plain identifiers."""
    return f"{sql_name}{VIEW_SUFFIX}"


def columns_hint(tables: list[QueryTable]) -> str | None:
    """``Available columns in t: a, b`` for each table, joined by ``; ``."""
    parts = [f"Available columns in {t.ref.label}: {', '.join(c.name for c in t.columns)}" for t in tables]
    return "; ".join(parts) or None
