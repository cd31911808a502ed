"""The 22 TPC-H queries (Trino dialect), their DuckDB translation, and a comparison of two results as the
interface renders them (DECIMAL as strings, DATE as YYYY-MM-DD, DOUBLE within a relative tolerance),
in order where the query sorts and as multisets where it does not (or between rows that tie)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import zip_longest
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import sqlglot
from sqlglot import expressions as exp

from sinks.iceberg.results import to_json_rows

QUERIES = Path(__file__).resolve().parent / "queries"
QUERY_NUMBERS: tuple[int, ...] = tuple(range(1, 23))
RELATIVE_TOLERANCE = 1e-9


@cache
def trino_sql(number: int) -> str:
    return (QUERIES / f"q{number:02d}.sql").read_text()


@cache
def duckdb_sql(number: int) -> str:
    """The query as DuckDB runs it, translated by sqlglot as the service's SQL front does."""
    translated = sqlglot.transpile(trino_sql(number), read="trino", write="duckdb")
    if len(translated) != 1:
        raise ValueError(f"q{number:02d} holds {len(translated)} statements")
    return translated[0]


@cache
def order_positions(number: int) -> tuple[int, ...]:
    """Result column positions the outer ORDER BY sorts on (every TPC-H sort key is an output column)."""
    statement = sqlglot.parse_one(trino_sql(number), read="trino")
    if not isinstance(statement, exp.Select):
        raise ValueError(f"q{number:02d} is not a SELECT")
    order = statement.args.get("order")
    if order is None:
        return ()
    outputs = [projection.alias_or_name for projection in statement.expressions]
    positions: list[int] = []
    for ordered in order.expressions:
        key = ordered.this
        if not isinstance(key, exp.Column) or key.name not in outputs:
            raise ValueError(f"q{number:02d} sorts on {key.sql()}, which is not an output column")
        positions.append(outputs.index(key.name))
    return tuple(positions)


@dataclass(frozen=True)
class Result:
    columns: list[str]
    rows: list[list[Any]]


def result_of_arrow(table: pa.Table) -> Result:
    """An Arrow result rendered by the service's own renderer (``to_json_rows``)."""
    rows = to_json_rows(table)
    return Result(list(table.column_names), [list(row.values()) for row in rows])


def result_of_json(columns: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]]) -> Result:
    """A result as the HTTP API answers it: result columns and rows keyed by column name."""
    names = [str(column["name"]) for column in columns]
    return Result(names, [[row.get(name) for name in names] for row in rows])


def duckdb_on(tables: Mapping[str, pa.Table], *, threads: int = 2) -> duckdb.DuckDBPyConnection:
    """A plain DuckDB connection where each Arrow table is a view under its TPC-H name."""
    connection = duckdb.connect(":memory:", config={"threads": threads})
    connection.execute("SET TimeZone = 'UTC'")
    for name, table in tables.items():
        connection.register(name, table)
    return connection


def expected_result(connection: duckdb.DuckDBPyConnection, number: int) -> Result:
    return result_of_arrow(connection.execute(duckdb_sql(number)).to_arrow_table())


def differences(
    expected: Result, actual: Result, order: Sequence[int] = (), *, compare_names: bool = True
) -> list[str]:
    """What differs between two results; empty when they agree.

    With ``order`` (the sort key positions), rows must come in the expected order of their keys; rows
    whose keys tie may come in any order among themselves.
    """
    problems: list[str] = []
    if compare_names and expected.columns != actual.columns:
        problems.append(f"columns {actual.columns}, expected {expected.columns}")
    if len(expected.columns) != len(actual.columns):
        return [*problems, f"{len(actual.columns)} columns, expected {len(expected.columns)}"]
    if len(expected.rows) != len(actual.rows):
        problems.append(f"{len(actual.rows)} rows, expected {len(expected.rows)}")
    expected_runs = _runs(expected.rows, order)
    actual_runs = _runs(actual.rows, order)
    nothing: list[list[Any]] = []
    for index, (want, got) in enumerate(zip_longest(expected_runs, actual_runs, fillvalue=nothing)):
        if order and want and got and not _same_row(_keys(want, order), _keys(got, order)):
            problems.append(f"sort keys at run {index}: {_keys(got, order)}, expected {_keys(want, order)}")
            break
        pairs = zip_longest(sorted(want, key=_sort_key), sorted(got, key=_sort_key))
        mismatch = next(((w, g) for w, g in pairs if w is None or g is None or not _same_row(w, g)), None)
        if mismatch is not None:
            problems.append(f"row {mismatch[1]!r}, expected {mismatch[0]!r}")
            break
    return problems


def _runs(rows: list[list[Any]], order: Sequence[int]) -> list[list[list[Any]]]:
    """Consecutive rows with equal sort keys; without sort keys, one run of every row."""
    if not order:
        return [rows]
    runs: list[list[list[Any]]] = []
    for row in rows:
        if runs and _same_row([runs[-1][0][i] for i in order], [row[i] for i in order]):
            runs[-1].append(row)
        else:
            runs.append([row])
    return runs


def _keys(run: list[list[Any]], order: Sequence[int]) -> list[Any]:
    return [run[0][i] for i in order]


def _sort_key(row: list[Any]) -> tuple[str, ...]:
    # Doubles to 9 significant digits, so values equal within the tolerance sort alike.
    return tuple(f"{value:.9g}" if isinstance(value, float) else repr(value) for value in row)


def _same_row(want: Sequence[Any], got: Sequence[Any]) -> bool:
    return len(want) == len(got) and all(_same_value(w, g) for w, g in zip(want, got, strict=True))


def _same_value(want: Any, got: Any) -> bool:
    if isinstance(want, float) or isinstance(got, float):
        numbers = (int, float)
        if isinstance(want, bool) or isinstance(got, bool):
            return False
        if not isinstance(want, numbers) or not isinstance(got, numbers):
            return bool(want == got)
        return math.isclose(want, got, rel_tol=RELATIVE_TOLERANCE, abs_tol=1e-12)
    return type(want) is type(got) and bool(want == got)
