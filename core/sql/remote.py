"""The SQL front as sandbox tasks: its inputs and outputs as JSON, and the task functions a worker runs.

The ingress hands the analysis of a caller's SQL to a sandbox worker (a subprocess with a CPU budget), so no
company's SQL holds an ingress thread, or the GIL, for long. Worker and ingress exchange JSON only (no
pickle: the same workers run untrusted scripts), so every value that crosses is encoded here, typed:

- the visible tables: ``QueryTable`` → ``{"sqlName", "columns": [{"name", "type", "masked"}],
  "partitionColumns", "asOf"}`` with the type as the interface writes it (``DECIMAL(12,2)``) and ``asOf``
  null, ``{"snapshotId": "<digits>"}`` (a string: 64-bit ids) or ``{"timestamp": "<ISO, UTC>"}``;
- a table's reading: ``TableRef`` → ``{"name", "asOf"}``;
- the compiled query: ``CompiledQuery`` → ``{"sql", "views", "outputNames", "maskedOutputs", "tables",
  "jsonOutputs", "refs"}``;
- partition predicates: ``[column, op, value]`` with the value tagged by its Python type (``{"date":
  "2024-01-05"}``, ``{"decimal": "10.50"}``, ``{"datetime": "2024-01-05T10:00:00+00:00"}``, ...), so dates,
  timestamps (aware or naive), decimals and floats come back equal;
- a refusal: ``{"error": {"code", "message", "hint"}}``, returned as data rather than raised.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from core.sql.budget import too_deep
from core.sql.front import compile_query, parse_query, partition_predicates
from core.sql.model import (
    AsOf,
    CompiledQuery,
    MaskedOutput,
    Predicate,
    QueryColumn,
    QueryTable,
    SqlError,
    TableRef,
)
from schemas.column_types import parse_column_type

Predicates = dict[str, list[list[Predicate]]]


def encode_as_of(as_of: AsOf | None) -> dict[str, Any] | None:
    if as_of is None:
        return None
    if as_of.snapshot_id is not None:
        return {"snapshotId": str(as_of.snapshot_id)}
    return {"timestamp": as_of.moment.isoformat()}


def decode_as_of(data: Mapping[str, Any] | None) -> AsOf | None:
    if data is None:
        return None
    if data.get("snapshotId") is not None:
        return AsOf(snapshot_id=int(data["snapshotId"]))
    return AsOf(timestamp=datetime.fromisoformat(str(data["timestamp"])))


def encode_ref(ref: TableRef) -> dict[str, Any]:
    return {"name": ref.name, "asOf": encode_as_of(ref.as_of)}


def decode_ref(data: Mapping[str, Any]) -> TableRef:
    return TableRef(str(data["name"]), decode_as_of(data.get("asOf")))


def encode_table(table: QueryTable) -> dict[str, Any]:
    return {
        "sqlName": table.sql_name,
        "columns": [{"name": c.name, "type": str(c.type), "masked": c.masked} for c in table.columns],
        "partitionColumns": list(table.partition_columns),
        "asOf": encode_as_of(table.as_of),
    }


def decode_table(data: Mapping[str, Any]) -> QueryTable:
    columns = tuple(
        QueryColumn(str(c["name"]), parse_column_type(str(c["type"])), bool(c["masked"]))
        for c in data["columns"]
    )
    partitions = tuple(str(p) for p in data["partitionColumns"])
    return QueryTable(str(data["sqlName"]), columns, partitions, decode_as_of(data.get("asOf")))


def encode_compiled(compiled: CompiledQuery) -> dict[str, Any]:
    return {
        "sql": compiled.sql,
        "views": dict(compiled.views),
        "outputNames": list(compiled.output_names),
        "maskedOutputs": [
            None if m is None else {"table": m.table, "column": m.column} for m in compiled.masked_outputs
        ],
        "tables": list(compiled.tables),
        "jsonOutputs": list(compiled.json_outputs),
        "refs": list(compiled.refs),
    }


def decode_compiled(data: Mapping[str, Any]) -> CompiledQuery:
    return CompiledQuery(
        sql=str(data["sql"]),
        views={str(k): str(v) for k, v in data["views"].items()},
        output_names=tuple(str(n) for n in data["outputNames"]),
        masked_outputs=tuple(
            None if m is None else MaskedOutput(str(m["table"]), str(m["column"]))
            for m in data["maskedOutputs"]
        ),
        tables=tuple(str(t) for t in data["tables"]),
        json_outputs=tuple(bool(j) for j in data["jsonOutputs"]),
        refs=tuple(str(r) for r in data["refs"]),
    )


def encode_value(value: object) -> dict[str, Any]:
    """A predicate's literal, tagged with its type (bool before int: a bool is an int in Python)."""
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": str(value)}
    if isinstance(value, float):
        return {"float": repr(value)}  # repr round-trips exactly, inf included
    if isinstance(value, Decimal):
        return {"decimal": str(value)}
    if isinstance(value, str):
        return {"str": value}
    if isinstance(value, datetime):  # before date: a datetime is a date
        return {"datetime": value.isoformat()}
    if isinstance(value, date):
        return {"date": value.isoformat()}
    if isinstance(value, list):
        return {"list": [encode_value(v) for v in value]}
    raise TypeError(f"a predicate value cannot be {type(value).__name__}")


_DECODERS: dict[str, Any] = {
    "bool": bool,
    "int": int,
    "float": float,
    "decimal": Decimal,
    "str": str,
    "datetime": datetime.fromisoformat,
    "date": date.fromisoformat,
}


def decode_value(data: Mapping[str, Any]) -> object:
    ((tag, raw),) = data.items()
    if tag == "list":
        return [decode_value(v) for v in raw]
    if tag not in _DECODERS:
        raise ValueError(f"unknown predicate value type {tag!r}")
    return _DECODERS[tag](raw)


def encode_predicates(predicates: Predicates) -> dict[str, Any]:
    return {
        name: [[[column, op, encode_value(value)] for column, op, value in conjuncts] for conjuncts in found]
        for name, found in predicates.items()
    }


def decode_predicates(data: Mapping[str, Any]) -> Predicates:
    return {
        str(name): [[(str(c), str(op), decode_value(v)) for c, op, v in conjuncts] for conjuncts in found]
        for name, found in data.items()
    }


def encode_error(error: SqlError) -> dict[str, Any]:
    return {"error": {"code": error.code, "message": error.message, "hint": error.hint}}


def decode_error(data: Mapping[str, Any]) -> SqlError | None:
    """The refusal a task answered, or None when it answered a result."""
    error = data.get("error")
    if error is None:
        return None
    return SqlError(
        str(error["code"]), str(error["message"]), None if error["hint"] is None else str(error["hint"])
    )


def parse_task(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The sandbox task "sql_parse": ``{"sql"}`` → ``{"tables": [names], "refs": [ref]}`` or ``{"error"}``."""
    try:
        parsed = parse_query(str(payload["sql"]))
        return {"tables": list(parsed.table_names), "refs": [encode_ref(ref) for ref in parsed.refs]}
    except SqlError as error:
        return encode_error(error)
    except RecursionError:
        return encode_error(too_deep())


def compile_task(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The sandbox task "sql_compile": ``{"sql", "tables": [table]}`` → ``{"compiled", "predicates"}`` or
    ``{"error"}``; the tables are the ones the caller may see, exactly as ``encode_table`` writes them."""
    try:
        tables = {t.ref.key: t for t in (decode_table(data) for data in payload["tables"])}
        parsed = parse_query(str(payload["sql"]))
        compiled = compile_query(parsed, tables)
        predicates = partition_predicates(parsed, tables)
    except SqlError as error:
        return encode_error(error)
    except RecursionError:
        return encode_error(too_deep())
    return {"compiled": encode_compiled(compiled), "predicates": encode_predicates(predicates)}


def warm_up() -> None:
    """Pay sqlglot's one-time costs (dialect, tokenizer and optimizer set-up) when a sandbox worker starts,
    not inside the first company's CPU budget."""
    table = QueryTable("t", (QueryColumn("a", parse_column_type("LONG")),))
    compile_task(
        {"sql": "SELECT a, count(*) AS n FROM t WHERE a > 1 GROUP BY a", "tables": [encode_table(table)]}
    )
