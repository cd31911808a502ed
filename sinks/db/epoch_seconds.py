"""Whole seconds since 1970 of a UTC timestamp column, computed by the database, alike on SQLite and
PostgreSQL."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import BigInteger


class epoch_seconds(FunctionElement[int]):
    """``epoch_seconds(column)``: what ``int(moment.timestamp())`` is for the column's value, truncated to
    the second (a cast alone rounds on PostgreSQL, which would move 10:00:59.7 into the next minute)."""

    type = BigInteger()
    inherit_cache = True


@compiles(epoch_seconds, "sqlite")
def _sqlite(element: epoch_seconds, compiler: SQLCompiler, **kw: Any) -> str:
    return f"CAST(strftime('%s', {compiler.process(element.clauses, **kw)}) AS INTEGER)"


@compiles(epoch_seconds, "postgresql")
def _postgresql(element: epoch_seconds, compiler: SQLCompiler, **kw: Any) -> str:
    return f"CAST(floor(extract(epoch FROM {compiler.process(element.clauses, **kw)})) AS BIGINT)"
