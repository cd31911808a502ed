"""From a caller's SQL to a query plan: parse and check it, resolve its tables to what the caller may see,
rewrite it for DuckDB and bound the bytes it scans. Every refusal is an analytics error with its code.
Parsing and compiling run where ``ingress/analytics/sql_analysis.py`` says (a sandbox worker by default).

A table read as of a snapshot (``core.sql.as_of``) is pinned to that snapshot here, so the estimate and the
job read the same files; the caller's grant of today (hidden columns, row filter, masking) applies to it
exactly as to the table now, and only the columns it had then (of those the caller sees) can be named."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session

from core.policy import TablePolicy
from core.sql.as_of import SnapshotNotFound, filter_columns
from core.sql.front import CompiledQuery, QueryColumn, QueryTable, SqlError, TableRef
from ingress.analytics import sql_analysis
from ingress.analytics.coded_errors import analytics_error
from ingress.analytics.job_access import table_policy
from ingress.analytics.sql_analysis import SqlAnalysis
from schemas.admin import Principal
from schemas.column_types import LOAD_ID_COLUMN, RECORD_ID_COLUMN, ColumnKind, ColumnType, parse_column_type
from schemas.jobs import MaskedPlan, QueryPlan, ViewPlan
from sinks.db.analytics import tables
from sinks.db.models import AnalyticsTable
from sinks.iceberg import snapshots
from sinks.iceberg.read_cache import TableReads
from sinks.table_reads import duckdb_predicate

Known = tuple[AnalyticsTable, tables.TableAccess] | None
"""A table and the caller's access to it, read already in the planning session."""

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
class Reading:
    """One reading of a table by the query: now (``snapshot_id`` None, the snapshot current when the job
    runs), or pinned to a snapshot, with the names of the columns it had (``columns``; None: now)."""

    ref: TableRef
    found: Resolved
    snapshot_id: int | None = None
    columns: frozenset[str] | None = None

    @property
    def pinned(self) -> bool:
        return self.ref.as_of is not None

    def has(self, name: str) -> bool:
        return self.columns is None or name in self.columns

    @property
    def visible(self) -> list[dict[str, Any]]:
        """The caller's visible columns (today's grant) that this reading has."""
        return [c for c in self.found.visible if self.has(c["name"])]


@dataclass(frozen=True)
class Planned:
    compiled: CompiledQuery
    resolved: dict[str, Resolved]  # by SQL name
    estimated_bytes: int
    readings: dict[str, Reading] = field(default_factory=dict)  # by TableRef key
    # The snapshot each reading reads as planned (by TableRef key): its pinned one, or the table's current
    # one when it was planned (None: no snapshot yet); the estimate counted these files.
    read_snapshots: dict[str, int | None] = field(default_factory=dict)

    @property
    def table_ids(self) -> list[str]:
        return [self.resolved[name].table.id for name in self.compiled.tables]

    def runner_policy(self) -> dict[str, TablePolicy]:
        """The caller's effective policy on every table the query reads, stored with its job so that its
        output is only ever served under a grant at least as broad (``ingress/analytics/job_access.py``)."""
        found = (self.resolved[name] for name in self.compiled.tables)
        return {r.table.id: table_policy(r.table, r.access) for r in found}

    def column_types(self) -> list[list[str]]:
        """Per view, in the plan's order, the type of each column the caller sees: a widened column changes
        the result's column types but neither the plan nor the snapshot (``core/sql/cache_key.py``)."""
        return [[c["type"] for c in self.readings[key].visible] for key in self.compiled.refs]

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


def parse(sql: str, caller: Principal, analysis: SqlAnalysis) -> tuple[TableRef, ...]:
    """The readings of tables ``sql`` makes, once it is parsed and checked."""
    try:
        return sql_analysis.table_refs(sql, caller.company_id, analysis)
    except SqlError as error:
        raise sql_error(error) from error


def resolve(
    session: Session, caller: Principal, names: tuple[str, ...], known: Known = None
) -> dict[str, Resolved]:
    """The tables by SQL name as the caller may read them; unknown and unreadable read the same. ``known``:
    a table and the caller's access to it, read already in this session (the call's resource table)."""
    found: dict[str, Resolved] = {}
    for name in names:
        table: AnalyticsTable | None
        if known is not None and known[0].sql_name == name:
            table, access = known
        else:
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


def query_table(reading: Reading) -> QueryTable:
    columns = tuple(
        QueryColumn(c["name"], parse_column_type(c["type"]), bool(c["masked"])) for c in reading.visible
    )
    system = tuple(c for c in _SYSTEM if reading.has(c.name))
    partitions = tuple(p["column"] for p in json.loads(reading.found.table.partition_spec_json))
    return QueryTable(reading.ref.name, columns + system, partitions, reading.ref.as_of)


def read_as_of(reads: TableReads, ref: TableRef, found: Resolved, now: datetime) -> Reading:
    """The reading ``ref`` makes of its table: now, or pinned to the snapshot its AS OF clause names (a
    moment in the future pins the current one). An unknown snapshot id, or a moment before the table's
    oldest snapshot, is 404 NOT_FOUND."""
    if ref.as_of is None:
        return Reading(ref, found)
    handle = reads.table(found.table.company_id, found.table.id)
    try:
        snapshot_id = snapshots.pin(handle, ref, now)
    except SnapshotNotFound as missing:
        raise analytics_error("NOT_FOUND", missing.message, missing.hint) from None
    return Reading(ref, found, snapshot_id, snapshots.columns_at(handle, snapshot_id))


def plan(
    session: Session,
    reads: TableReads,
    caller: Principal,
    sql: str,
    analysis: SqlAnalysis,
    known: Known = None,
) -> Planned:
    refs = parse(sql, caller, analysis)
    resolved = resolve(session, caller, tuple(dict.fromkeys(ref.name for ref in refs)), known)
    now = datetime.now(UTC)
    readings = {ref.key: read_as_of(reads, ref, resolved[ref.name], now) for ref in refs}
    shapes = tuple((key, query_table(reading)) for key, reading in readings.items())
    try:
        compiled, predicates = sql_analysis.compiled(sql, shapes, caller.company_id, analysis)
    except SqlError as error:
        raise sql_error(error) from error
    estimated = 0
    read_snapshots: dict[str, int | None] = {}
    for key, reading in readings.items():
        handle = reads.table(reading.found.table.company_id, reading.found.table.id)
        read_snapshots[key] = reading.snapshot_id if reading.pinned else _current_snapshot_id(handle)
        occurrences = predicates.get(key) or [[]]
        estimated += sum(reads.estimate(handle, c, reading.snapshot_id) for c in occurrences)
    return Planned(compiled, resolved, estimated, readings, read_snapshots)


def _current_snapshot_id(handle: Any) -> int | None:
    current = handle.current_snapshot()
    return None if current is None else int(current.snapshot_id)


def query_plan(
    planned: Planned, *, max_rows: int, max_result_bytes: int, timeout_seconds: float
) -> QueryPlan:
    views = [_view_plan(planned, key) for key in planned.compiled.refs]
    masked = []
    for index, output in enumerate(planned.compiled.masked_outputs):
        if output is None:
            continue
        found = planned.readings[output.table].found  # the reading's key: the table now or as of
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


def _view_plan(planned: Planned, key: str) -> ViewPlan:
    """The view of one reading: today's grant (hidden columns, row filter) over the snapshot it reads."""
    reading = planned.readings[key]
    access = reading.found.access
    columns = [c["name"] for c in reading.visible]
    columns += [name for name in (LOAD_ID_COLUMN, RECORD_ID_COLUMN) if reading.has(name)]
    absent: list[str] = []
    if access.row_filter and reading.columns is not None:
        absent = sorted(filter_columns(access.row_filter) - reading.columns)
    return ViewPlan(
        view=planned.compiled.views[key],
        table_id=reading.found.table.id,
        columns=columns,
        row_filter=duckdb_predicate(access.row_filter) if access.row_filter else None,
        snapshot_id=reading.snapshot_id if reading.pinned else None,
        read_snapshot_id=planned.read_snapshots.get(key, reading.snapshot_id),
        absent_columns=absent,
    )
