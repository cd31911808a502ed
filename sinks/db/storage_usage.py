"""Rows and bytes per kind of record and company, summed by the database (`svc admin storage`).

Each kind is one GROUP BY over its table: no row is loaded into Python. ``bytes`` is the sum of the lengths,
in bytes, of the columns that grow with each record (bodies, headers, variables, responses, SQL); the fixed
columns, the row's own overhead and the indexes are not in it. The table's real size on disk, indexes
included, is read separately (:func:`table_bytes`), for every company at once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, LargeBinary, Select, cast, func, literal, select, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import InstrumentedAttribute, Session

from schemas.storage import DatabaseSize, RecordKind, RecordUsage
from sinks.db.models import (
    Base,
    Job,
    RateCounter,
    ScheduledEventRun,
    TableWrite,
    Upload,
    WebhookDedup,
    WebhookExecution,
    WebhookPayload,
    WebhookReplay,
)

Column = InstrumentedAttribute[Any]


@dataclass(frozen=True)
class KindColumns:
    """Where one kind of record lives: its table, its company column (None: the kind has none), the columns
    whose lengths make its ``bytes`` and the column of the bytes it names in the object store."""

    model: type[Base]
    company: Column | None
    grows: tuple[Column, ...]
    referenced: Column | None = None


KINDS: dict[RecordKind, KindColumns] = {
    RecordKind.WEBHOOK_EXECUTIONS: KindColumns(
        WebhookExecution,
        WebhookExecution.company_id,
        (
            WebhookExecution.transformed_variables,
            WebhookExecution.transform_error,
            WebhookExecution.resource_request_json,
            WebhookExecution.resource_response_json,
            WebhookExecution.error_message,
        ),
    ),
    RecordKind.WEBHOOK_PAYLOADS: KindColumns(
        WebhookPayload,
        WebhookPayload.company_id,
        (WebhookPayload.request_payload, WebhookPayload.request_headers, WebhookPayload.request_query_params),
        WebhookPayload.body_bytes,
    ),
    RecordKind.SCHEDULED_RUNS: KindColumns(
        ScheduledEventRun,
        ScheduledEventRun.company_id,
        (ScheduledEventRun.response_json, ScheduledEventRun.error_message, ScheduledEventRun.attempts_json),
    ),
    RecordKind.JOBS: KindColumns(
        Job,
        Job.company_id,
        (
            Job.sql,
            Job.plan_json,
            Job.tables_json,
            Job.result_columns_json,
            Job.error_message,
            Job.error_hint,
            Job.rejected_sample_json,
            Job.notes_json,
            Job.policy_json,
        ),
    ),
    RecordKind.UPLOADS: KindColumns(
        Upload, Upload.company_id, (Upload.s3_key, Upload.store_upload_id), Upload.size_bytes
    ),
    RecordKind.TABLE_WRITES: KindColumns(
        TableWrite,
        TableWrite.company_id,
        (TableWrite.payload_json, TableWrite.payload_rows, TableWrite.error_message),
    ),
    RecordKind.REPLAYS: KindColumns(WebhookReplay, WebhookReplay.company_id, ()),
    RecordKind.DEDUP_KEYS: KindColumns(WebhookDedup, WebhookDedup.company_id, (WebhookDedup.dedup_key,)),
    RecordKind.RATE_COUNTERS: KindColumns(RateCounter, None, (RateCounter.name,)),
}


def counted(kind: RecordKind) -> str:
    """What ``bytes`` and ``referencedBytes`` count for ``kind``, in words for the report."""
    found = KINDS[kind]
    names = ", ".join(column.key for column in found.grows) or "nothing (fixed-size rows)"
    if found.referenced is not None:
        names += f"; referenced: {found.referenced.key} (in the object store)"
    return names


def _length(dialect: str, column: Column) -> ColumnElement[Any]:
    # Bytes, not characters: SQLite's length() counts a text's characters, its blob's bytes.
    measured = func.length(cast(column, LargeBinary)) if dialect == "sqlite" else func.octet_length(column)
    return func.coalesce(measured, 0)


def _statement(dialect: str, kind: KindColumns, company_id: str | None) -> Select[Any]:
    lengths: ColumnElement[Any] = literal(0)
    for column in kind.grows:
        lengths = lengths + _length(dialect, column)
    referenced = kind.referenced if kind.referenced is not None else literal(0)
    company = kind.company if kind.company is not None else literal(None)
    statement = select(
        company, func.count(), func.coalesce(func.sum(lengths), 0), func.coalesce(func.sum(referenced), 0)
    ).select_from(kind.model)
    if kind.company is None:
        return statement
    if company_id is not None:
        statement = statement.where(kind.company == company_id)
    return statement.group_by(kind.company)


def record_usage(session: Session, company_id: str | None = None) -> list[RecordUsage]:
    """Every kind's rows and bytes per company; with ``company_id``, that company's alone (a kind that
    belongs to no company, the rate counters, is then left out). A kind without rows has no entry."""
    dialect = session.get_bind().dialect.name
    found: list[RecordUsage] = []
    for kind, columns in KINDS.items():
        if columns.company is None and company_id is not None:
            continue
        for company, rows, length, referenced in session.execute(_statement(dialect, columns, company_id)):
            if rows:
                found.append(
                    RecordUsage(
                        kind=kind,
                        company_id=company,
                        rows=int(rows),
                        bytes=int(length),
                        referenced_bytes=int(referenced),
                    )
                )
    return found


def table_bytes(session: Session) -> dict[RecordKind, int]:
    """Each kind's table on disk with its indexes, in bytes: PostgreSQL's ``pg_total_relation_size``;
    SQLite's ``dbstat`` table (it reads every page of the file), or nothing where SQLite was built
    without it."""
    tables = {columns.model.__tablename__: kind for kind, columns in KINDS.items()}
    if session.get_bind().dialect.name != "sqlite":
        sized = session.execute(
            text(
                "SELECT name, pg_total_relation_size(to_regclass(name)) FROM unnest(CAST(:names AS text[]))"
                " AS name"
            ),
            {"names": list(tables)},
        )
        return {tables[name]: int(size) for name, size in sized if size is not None}
    statement = text(
        "SELECT coalesce(m.tbl_name, d.name), sum(d.pgsize) FROM dbstat AS d "
        "LEFT JOIN sqlite_master AS m ON m.name = d.name GROUP BY 1"
    )
    try:
        sized = session.execute(statement)
    except OperationalError as exc:
        if "dbstat" not in str(exc):
            raise
        return {}
    return {tables[name]: int(size) for name, size in sized if name in tables}


def database_size(session: Session, database_file: str | None) -> DatabaseSize:
    """The whole database: on SQLite the file ``database_file`` names, its WAL and its free pages; on
    PostgreSQL the server's ``pg_database_size``."""
    if session.get_bind().dialect.name != "sqlite":
        size = session.execute(text("SELECT pg_database_size(current_database())")).scalar_one()
        return DatabaseSize(backend="postgresql", file_bytes=int(size))
    page = int(session.execute(text("PRAGMA page_size")).scalar_one())
    free = int(session.execute(text("PRAGMA freelist_count")).scalar_one())
    return DatabaseSize(
        backend="sqlite",
        file_bytes=_file_bytes(database_file),
        wal_bytes=_file_bytes(f"{database_file}-wal") if database_file else None,
        free_bytes=free * page,
    )


def _file_bytes(path: str | None) -> int:
    if not path:
        return 0
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0
