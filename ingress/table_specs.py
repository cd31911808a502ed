"""Turning table-administration requests into validated column and partition definitions."""

from __future__ import annotations

import re
from typing import Any

from ingress.analytics_errors import analytics_error
from schemas.column_types import ColumnDef, ColumnKind, ColumnTypeError, parse_column_type
from schemas.tables import ColumnSpec, CreateTableRequest, PartitionField

_TRANSFORM = re.compile(r"^(IDENTITY|YEAR|MONTH|DAY|HOUR|BUCKET\[(\d{1,4})\]|TRUNCATE\[(\d{1,4})\])$")
_TIME_TRANSFORMS = {"YEAR", "MONTH", "DAY", "HOUR"}
_TEMPORAL = {ColumnKind.DATE, ColumnKind.TIMESTAMP, ColumnKind.TIMESTAMPTZ}


def column_def(spec: ColumnSpec) -> ColumnDef:
    try:
        return ColumnDef(
            name=spec.name, type=parse_column_type(spec.type), nullable=spec.nullable, masked=spec.masked
        )
    except ColumnTypeError as exc:
        raise analytics_error("INVALID_SCHEMA", f"column {spec.name!r}: {exc}") from exc


def stored_column(spec: ColumnSpec, definition: ColumnDef) -> dict[str, Any]:
    """The column as the registry keeps it (and describe returns it)."""
    return {
        "name": spec.name,
        "type": str(definition.type),
        "nullable": spec.nullable,
        "description": spec.description,
        "synonyms": spec.synonyms,
        "masked": spec.masked,
        "maskStrategy": spec.mask_strategy if spec.masked else None,
    }


def partition_fields(fields: list[PartitionField], columns: dict[str, ColumnDef]) -> list[dict[str, str]]:
    checked = []
    for field in fields:
        transform = field.transform.strip().upper()
        match = _TRANSFORM.match(transform)
        column = columns.get(field.column)
        if column is None:
            raise analytics_error(
                "INVALID_SCHEMA", f"partition column {field.column!r} is not a column of the table"
            )
        if match is None:
            raise analytics_error(
                "INVALID_SCHEMA",
                f"partition transform {field.transform!r} is not one of IDENTITY, YEAR, MONTH, DAY, HOUR, "
                "BUCKET[n], TRUNCATE[n]",
            )
        if transform in _TIME_TRANSFORMS and column.type.kind not in _TEMPORAL:
            raise analytics_error(
                "INVALID_SCHEMA", f"{transform} needs a DATE or TIMESTAMP column, not {column.type}"
            )
        if transform == "HOUR" and column.type.kind is ColumnKind.DATE:
            raise analytics_error("INVALID_SCHEMA", "HOUR needs a TIMESTAMP column")
        if column.masked:
            raise analytics_error(
                "INVALID_SCHEMA", f"masked column {field.column!r} cannot partition a table"
            )
        checked.append({"column": field.column, "transform": transform})
    return checked


def table_definition(
    body: CreateTableRequest,
) -> tuple[list[ColumnDef], list[dict[str, Any]], list[dict[str, str]]]:
    definitions = [column_def(spec) for spec in body.columns]
    stored = [
        stored_column(spec, definition) for spec, definition in zip(body.columns, definitions, strict=True)
    ]
    partitions = partition_fields(body.partition_spec, {d.name: d for d in definitions})
    return definitions, stored, partitions


def definitions_of(stored: list[dict[str, Any]]) -> list[ColumnDef]:
    return [
        ColumnDef(
            name=c["name"], type=parse_column_type(c["type"]), nullable=c["nullable"], masked=c["masked"]
        )
        for c in stored
    ]
