"""Turning table-administration requests into validated column and partition definitions."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy.orm import Session

from ingress.analytics.coded_errors import analytics_error
from schemas.column_types import ColumnDef, ColumnKind, ColumnTypeError, parse_column_type
from schemas.tables import ColumnSpec, CreateTableRequest, PartitionField
from sinks.credentials import new_id
from sinks.db.analytics import tables
from sinks.db.models import AnalyticsTable
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.exceptions import InvalidSchema

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


def _semantics(body: CreateTableRequest) -> dict[str, Any]:
    return {
        "measures": [m.model_dump(by_alias=True) for m in body.measures],
        "joins": [j.model_dump(by_alias=True) for j in body.joins],
        "verifiedQueries": [q.model_dump(by_alias=True) for q in body.verified_queries],
    }


def register_table(
    session: Session, catalog: Any, company_id: str, created_by: str, body: CreateTableRequest
) -> AnalyticsTable:
    """Create the Iceberg table and its registry row (the poweruser API and `svc admin create-table`)."""
    definitions, stored, partitions = table_definition(body)
    if tables.by_sql_name(session, company_id, body.sql_name) is not None:
        raise analytics_error("INVALID_SCHEMA", f"sqlName {body.sql_name!r} is already used by another table")
    table_id = new_id()
    # The Iceberg table first: the catalog writes to the same database, and on SQLite it must not wait for
    # the caller's own open transaction. If the registry row then fails, the orphan table holds no rows.
    spec = [(p["column"], p["transform"]) for p in partitions]
    try:
        iceberg.create_table(catalog, company_id, table_id, definitions, spec)
    except InvalidSchema as refused:
        # What only the catalog knows (a transform the column's type cannot take, BUCKET[0]): still a 400.
        raise analytics_error(
            "INVALID_SCHEMA", str(refused), "Fix the partition spec or the column types and create again"
        ) from None
    return tables.create(
        session,
        company_id,
        created_by,
        table_id=table_id,
        sql_name=body.sql_name,
        name=body.name,
        description=body.description,
        grain=body.grain,
        columns=stored,
        partition_spec=partitions,
        semantics=_semantics(body),
    )
