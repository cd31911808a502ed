"""svcdb operations on analytics tables (used by webhooks and scheduled events), as pure logic.

A typed value ``{columnType, <one value field>}`` becomes a plain JSON value that the table's column type then
converts (so ``integerValue: "42"`` after @@{...} substitution still lands in a LONG column). Where groups
become one SQL predicate with bound parameters, evaluated by DuckDB against the table's current snapshot to
find the ``_record_id`` of every matching row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schemas.column_types import ColumnDef, ColumnKind, ColumnType

RECORD_ID = "_record_id"
_BOOLEAN_WORDS = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}
_COMPARISONS = {
    "EQUALS": "=",
    "NOT_EQUALS": "<>",
    "GREATER_THAN": ">",
    "GREATER_THAN_OR_EQUAL": ">=",
    "LESS_THAN": "<",
    "LESS_THAN_OR_EQUAL": "<=",
}


class SvcDbError(ValueError):
    """An operation that cannot apply to the table (unknown column, wrong value): retrying cannot help."""


def plain_value(typed: dict[str, Any]) -> Any:
    """The JSON value of a typed value; strings from substitution are coerced by the value field's kind."""
    if typed.get("textValue") is not None:
        return str(typed["textValue"])
    if typed.get("integerValue") is not None:
        value = typed["integerValue"]
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                raise SvcDbError(f"integerValue {value!r} is not an integer") from None
        return value
    if typed.get("floatValue") is not None:
        value = typed["floatValue"]
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                raise SvcDbError(f"floatValue {value!r} is not a number") from None
        return value
    if typed.get("booleanValue") is not None:
        value = typed["booleanValue"]
        if isinstance(value, str):
            if value.strip().lower() not in _BOOLEAN_WORDS:
                raise SvcDbError(f"booleanValue {value!r} is not true or false")
            return _BOOLEAN_WORDS[value.strip().lower()]
        return value
    if typed.get("multiSelectValue") is not None:
        return [str(item) for item in typed["multiSelectValue"]]
    for field in ("filePath", "variableValue"):
        if typed.get(field) is not None:
            return str(typed[field])
    return None


def row_of(values: dict[str, dict[str, Any]], columns: list[ColumnDef]) -> dict[str, Any]:
    names = {column.name for column in columns}
    unknown = sorted(set(values) - names)
    if unknown:
        raise SvcDbError(f"unknown columns: {', '.join(unknown)}")
    return {name: plain_value(typed) for name, typed in values.items()}


def duckdb_type(column_type: ColumnType) -> str:
    kind = column_type.kind
    if kind is ColumnKind.DECIMAL:
        return f"DECIMAL({column_type.precision},{column_type.scale})"
    return {
        ColumnKind.STRING: "VARCHAR",
        ColumnKind.JSON: "VARCHAR",
        ColumnKind.BOOLEAN: "BOOLEAN",
        ColumnKind.INT: "INTEGER",
        ColumnKind.LONG: "BIGINT",
        ColumnKind.DOUBLE: "DOUBLE",
        ColumnKind.DATE: "DATE",
        ColumnKind.TIMESTAMP: "TIMESTAMP",
        ColumnKind.TIMESTAMPTZ: "TIMESTAMPTZ",
        ColumnKind.STRING_LIST: "VARCHAR[]",
    }[kind]


@dataclass(frozen=True)
class Predicate:
    sql: str
    parameters: list[Any]


def _condition(condition: dict[str, Any], columns: dict[str, ColumnDef]) -> Predicate:
    name = str(condition["columnName"])
    operator = str(condition["operator"])
    value = condition.get("value")
    if name == RECORD_ID:
        column_type = ColumnType(ColumnKind.LONG)
    else:
        column = columns.get(name)
        if column is None:
            raise SvcDbError(f"unknown column in whereGroups: {name}")
        if column.masked:
            raise SvcDbError(f"masked column {name} cannot be used in a condition (its values are encrypted)")
        column_type = column.type
    quoted = '"' + name.replace('"', '""') + '"'
    if operator == "IS_NULL":
        return Predicate(f"{quoted} IS NULL", [])
    if operator == "IS_NOT_NULL":
        return Predicate(f"{quoted} IS NOT NULL", [])
    scalar = "VARCHAR" if column_type.kind is ColumnKind.STRING_LIST else duckdb_type(column_type)
    if operator == "CONTAINS":
        function = "list_contains" if column_type.kind is ColumnKind.STRING_LIST else "contains"
        return Predicate(f"{function}({quoted}, CAST(? AS VARCHAR))", [str(value)])
    if operator == "IN":
        items = value if isinstance(value, list) else [value]
        if not items:
            return Predicate("FALSE", [])
        marks = ", ".join(f"CAST(? AS {scalar})" for _ in items)
        return Predicate(f"{quoted} IN ({marks})", [str(item) for item in items])
    if operator in _COMPARISONS:
        if value is None:
            raise SvcDbError(f"{operator} on {name} needs a value")
        text = str(value).lower() if isinstance(value, bool) else str(value)
        return Predicate(f"{quoted} {_COMPARISONS[operator]} CAST(? AS {scalar})", [text])
    raise SvcDbError(f"unknown operator {operator}")


def where_predicate(
    groups: list[dict[str, Any]], between_groups: str | None, columns: list[ColumnDef]
) -> Predicate:
    by_name = {column.name: column for column in columns}
    parts: list[str] = []
    parameters: list[Any] = []
    for group in groups:
        joiner = f" {group.get('logicalOperator') or 'AND'} "
        conditions = [_condition(condition, by_name) for condition in group["conditions"]]
        parts.append("(" + joiner.join(c.sql for c in conditions) + ")")
        for condition in conditions:
            parameters += condition.parameters
    return Predicate(f" {between_groups or 'AND'} ".join(parts), parameters)


def record_predicate(record_id: Any) -> Predicate:
    try:
        number = int(str(record_id).strip())
    except ValueError:
        raise SvcDbError(f"recordId {record_id!r} is not a record id") from None
    return Predicate(f"{RECORD_ID} = ?", [number])
