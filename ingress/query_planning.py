"""From a caller's SQL to a query plan: parse and check it, resolve its tables to what the caller may see,
rewrite it for DuckDB and bound the bytes it scans. Every refusal is an analytics error with its code.
Parsing and compiling run where ``ingress/sql_analysis.py`` says (a sandbox worker by default)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from core.policy import TablePolicy
from core.sql.front import CompiledQuery, QueryColumn, QueryTable, SqlError
from ingress import sql_analysis
from ingress.analytics_errors import analytics_error
from ingress.job_access import table_policy
from ingress.sql_analysis import SqlAnalysis
from schemas.admin import Principal
from schemas.column_types import LOAD_ID_COLUMN, RECORD_ID_COLUMN, ColumnKind, ColumnType, parse_column_type
from schemas.jobs import MaskedPlan, QueryPlan, ViewPlan
from sinks.db import tables
from sinks.db.models import AnalyticsTable
from sinks.iceberg.read_cache import TableReads
from sinks.table_reads import duckdb_predicate

_SYSTEM = (
    QueryColumn(LOAD_ID_COLUMN, ColumnType(ColumnKind.STRING)),
    QueryColumn(RECORD_ID_COLUMN, ColumnType(ColumnKind.LONG)),
)


@dataclass(frozen=True)
class Resolved:
    table: AnalyticsTable
    access: tables.TableAccess
    visible: list[dict[str, Any]]


@dataclass(frozen=True)
class Planned:
    compiled: CompiledQuery
    resolved: dict[str, Resolved]  # by SQL name
    estimated_bytes: int

    @property
    def table_ids(self) -> list[str]:
        return [self.resolved[name].table.id for name in self.compiled.tables]

    def runner_policy(self) -> dict[str, TablePolicy]:
        """The caller's effective policy on every table the query reads, stored with its job so that its
        output is only ever served under a grant at least as broad (``ingress/job_access.py``)."""
        found = (self.resolved[name] for name in self.compiled.tables)
        return {r.table.id: table_policy(r.table, r.access) for r in found}

    def partition_hint(self) -> str:
        parts = []
        for name in self.compiled.tables:
            spec = json.loads(self.resolved[name].table.partition_spec_json)
            columns = [f"{p['column']} ({p['transform']})" for p in spec]
            if columns:
                parts.append(f"{name}: {', '.join(columns)}")
        if not parts:
            return "None of the tables is partitioned; select fewer columns or add a LIMIT on a smaller table"
        return "Filter on the partition columns to scan less: " + "; ".join(parts)


def sql_error(error: SqlError) -> Exception:
    return analytics_error(error.code, error.message, error.hint)


def parse(sql: str, caller: Principal, analysis: SqlAnalysis) -> tuple[str, ...]:
    """The names of the tables ``sql`` reads, once it is parsed and checked."""
    try:
        return sql_analysis.table_names(sql, caller.company_id, analysis)
    except SqlError as error:
        raise sql_error(error) from error


def resolve(session: Session, caller: Principal, names: tuple[str, ...]) -> dict[str, Resolved]:
    """The tables by SQL name as the caller may read them; unknown and unreadable read the same."""
    found: dict[str, Resolved] = {}
    for name in names:
        table = tables.by_sql_name(session, caller.company_id, name)
        access = (
            tables.access(session, caller.company_id, caller.user_id, caller.is_admin, table.id)
            if table is not None
            else tables.NO_ACCESS
        )
        if table is None or not access.allows("READ"):
            raise analytics_error("UNKNOWN_TABLE", f'Table "{name}" does not exist or you cannot read it')
        visible = [c for c in json.loads(table.columns_json) if c["name"] not in access.hidden_columns]
        found[name] = Resolved(table, access, visible)
    return found


def query_table(name: str, resolved: Resolved) -> QueryTable:
    columns = tuple(
        QueryColumn(c["name"], parse_column_type(c["type"]), bool(c["masked"])) for c in resolved.visible
    )
    partitions = tuple(p["column"] for p in json.loads(resolved.table.partition_spec_json))
    return QueryTable(name, columns + _SYSTEM, partitions)


def plan(session: Session, reads: TableReads, caller: Principal, sql: str, analysis: SqlAnalysis) -> Planned:
    resolved = resolve(session, caller, parse(sql, caller, analysis))
    shapes = tuple((name, query_table(name, found)) for name, found in resolved.items())
    try:
        compiled, predicates = sql_analysis.compiled(sql, shapes, caller.company_id, analysis)
    except SqlError as error:
        raise sql_error(error) from error
    estimated = 0
    for name, found in resolved.items():
        handle = reads.table(found.table.company_id, found.table.id)
        occurrences = predicates.get(name) or [[]]
        estimated += sum(reads.estimate(handle, conjuncts) for conjuncts in occurrences)
    return Planned(compiled, resolved, estimated)


def query_plan(
    planned: Planned, *, max_rows: int, max_result_bytes: int, timeout_seconds: float
) -> QueryPlan:
    views = []
    for name in planned.compiled.tables:
        found = planned.resolved[name]
        columns = [c["name"] for c in found.visible] + [LOAD_ID_COLUMN, RECORD_ID_COLUMN]
        row_filter = duckdb_predicate(found.access.row_filter) if found.access.row_filter else None
        views.append(
            ViewPlan(
                view=planned.compiled.views[name],
                table_id=found.table.id,
                columns=columns,
                row_filter=row_filter,
            )
        )
    masked = []
    for index, output in enumerate(planned.compiled.masked_outputs):
        if output is None:
            continue
        found = planned.resolved[output.table]
        column = next(c for c in found.visible if c["name"] == output.column)
        masked.append(
            MaskedPlan(
                index=index,
                table_id=found.table.id,
                column=output.column,
                mask_strategy=column.get("maskStrategy") or "FULL",
                revealable=found.access.can_reveal,
            )
        )
    return QueryPlan(
        sql=planned.compiled.sql,
        views=views,
        masked=masked,
        json_columns=[i for i, carries in enumerate(planned.compiled.json_outputs) if carries],
        max_rows=max_rows,
        max_result_bytes=max_result_bytes,
        timeout_seconds=timeout_seconds,
    )
