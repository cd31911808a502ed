"""Analytics table definitions, grants and accepted writes; every query is scoped by company."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, exists, insert, select, update
from sqlalchemy.orm import Session

from sinks.db.models import AnalyticsTable, TableGrant, TableWrite, utcnow


@dataclass(frozen=True)
class TableAccess:
    """What one caller may do with one table: its level, hidden columns, row filter, and whether to reveal."""

    level: str | None
    hidden_columns: frozenset[str] = field(default_factory=frozenset)
    row_filter: str | None = None
    can_reveal: bool = False

    def allows(self, needed: str) -> bool:
        order = {"READ": 1, "WRITE": 2}
        return self.level is not None and order[self.level] >= order[needed]


ADMIN_ACCESS = TableAccess(level="WRITE", can_reveal=True)
NO_ACCESS = TableAccess(level=None)


def get(session: Session, company_id: str, table_id: str) -> AnalyticsTable | None:
    return session.scalar(
        select(AnalyticsTable).where(AnalyticsTable.company_id == company_id, AnalyticsTable.id == table_id)
    )


def by_sql_name(session: Session, company_id: str, sql_name: str) -> AnalyticsTable | None:
    return session.scalar(
        select(AnalyticsTable).where(
            AnalyticsTable.company_id == company_id, AnalyticsTable.sql_name == sql_name
        )
    )


def access(session: Session, company_id: str, user_id: str, is_admin: bool, table_id: str) -> TableAccess:
    if is_admin:
        return ADMIN_ACCESS
    grant = session.scalar(
        select(TableGrant).where(
            TableGrant.company_id == company_id,
            TableGrant.table_id == table_id,
            TableGrant.user_id == user_id,
        )
    )
    if grant is None:
        return NO_ACCESS
    return _access_of(grant)


def _access_of(grant: TableGrant) -> TableAccess:
    return TableAccess(
        level=grant.level,
        hidden_columns=frozenset(json.loads(grant.hidden_columns_json)),
        row_filter=grant.row_filter,
        can_reveal=grant.can_reveal,
    )


def readable(
    session: Session, company_id: str, user_id: str, is_admin: bool
) -> list[tuple[AnalyticsTable, TableAccess]]:
    """The company's tables this user may read, by SQL name, each with the user's access (two queries)."""
    listed = session.scalars(
        select(AnalyticsTable)
        .where(AnalyticsTable.company_id == company_id)
        .order_by(AnalyticsTable.sql_name)
    ).all()
    if is_admin:
        return [(table, ADMIN_ACCESS) for table in listed]
    grants = {
        grant.table_id: grant
        for grant in session.scalars(
            select(TableGrant).where(TableGrant.company_id == company_id, TableGrant.user_id == user_id)
        )
    }
    return [(table, _access_of(grants[table.id])) for table in listed if table.id in grants]


def visible_columns(table: AnalyticsTable, access: TableAccess) -> list[dict[str, Any]]:
    """The table's stored columns less those the caller's grant hides."""
    columns: list[dict[str, Any]] = json.loads(table.columns_json)
    return [column for column in columns if column["name"] not in access.hidden_columns]


def create(
    session: Session,
    company_id: str,
    created_by: str,
    *,
    table_id: str,
    sql_name: str,
    name: str,
    description: str | None,
    grain: str | None,
    columns: list[dict[str, Any]],
    partition_spec: list[dict[str, Any]],
    semantics: dict[str, Any],
) -> AnalyticsTable:
    now = utcnow()
    table = AnalyticsTable(
        id=table_id,
        company_id=company_id,
        sql_name=sql_name,
        name=name,
        description=description,
        grain=grain,
        columns_json=json.dumps(columns),
        partition_spec_json=json.dumps(partition_spec),
        semantics_json=json.dumps(semantics),
        semantics_version=1,
        created_by=created_by,
        created_at=now,
        updated_at=now,
    )
    session.add(table)
    session.flush()
    return table


def set_grant(
    session: Session,
    table: AnalyticsTable,
    user_id: str,
    level: str,
    row_filter: str | None,
    hidden_columns: list[str],
    can_reveal: bool,
) -> None:
    grant = session.get(TableGrant, (table.id, user_id))
    if grant is None:
        grant = TableGrant(table_id=table.id, user_id=user_id, company_id=table.company_id)
        session.add(grant)
    grant.level = level
    grant.row_filter = row_filter
    grant.hidden_columns_json = json.dumps(sorted(set(hidden_columns)))
    grant.can_reveal = can_reveal
    session.flush()


def add_write(
    session: Session,
    *,
    write_id: str,
    table_id: str,
    company_id: str,
    kind: str,
    payload: Any,
    row_count: int,
    now: datetime,
    created_by: str | None = None,
) -> str:
    session.add(
        TableWrite(
            id=write_id,
            created_by=created_by,
            table_id=table_id,
            company_id=company_id,
            kind=kind,
            payload_json=json.dumps(payload, separators=(",", ":")),
            row_count=row_count,
            status="PENDING",
            created_at=now,
            dispatched_at=now,
        )
    )
    session.flush()
    return write_id


def add_append(
    session: Session,
    *,
    write_id: str,
    table_id: str,
    company_id: str,
    rows: bytes,
    row_count: int,
    now: datetime,
    created_by: str | None = None,
) -> str:
    """An append's accepted rows (Arrow IPC from `convert.to_ipc`), PENDING for the table's writer."""
    # A Core INSERT on the session's connection, with bound parameters: half the CPU of the ORM's insert
    # paths, and the statement compiles once.
    session.connection().execute(
        insert(TableWrite),
        {
            "id": write_id,
            "created_by": created_by,
            "table_id": table_id,
            "company_id": company_id,
            "kind": "APPEND",
            "payload_json": "null",
            "payload_rows": rows,
            "row_count": row_count,
            "status": "PENDING",
            "created_at": now,
            "dispatched_at": now,
        },
    )
    return write_id


# Writes not yet ended: accepted (PENDING) or taken by a writer (WRITING).
_ACTIVE = ("PENDING", "WRITING")


def pending_writes(session: Session, table_id: str, ids: list[str]) -> list[TableWrite]:
    return list(
        session.scalars(
            select(TableWrite)
            .where(TableWrite.table_id == table_id, TableWrite.id.in_(ids), TableWrite.status == "PENDING")
            .order_by(TableWrite.created_at, TableWrite.id)
        )
    )


def take_writes(session: Session, table_id: str, ids: list[str], now: datetime) -> list[TableWrite]:
    """The writer takes these writes (PENDING → WRITING, an APPEND job's RUNNING) before it commits them,
    in the order they were accepted. A write already WRITING is taken again: its last writer died or gave
    up, and the snapshot ledger skips what that writer had committed. A write cancelled meanwhile is not."""
    session.execute(
        update(TableWrite)
        .where(TableWrite.table_id == table_id, TableWrite.id.in_(ids), TableWrite.status.in_(_ACTIVE))
        .values(status="WRITING", dispatched_at=now)
        .execution_options(synchronize_session=False)
    )
    return list(
        session.scalars(
            select(TableWrite)
            .where(TableWrite.table_id == table_id, TableWrite.id.in_(ids), TableWrite.status == "WRITING")
            .order_by(TableWrite.created_at, TableWrite.id)
        )
    )


def mark_committed(session: Session, ids: list[str], now: datetime) -> None:
    # One UPDATE, without loading the payloads it clears: the rows now live in Iceberg.
    session.execute(
        update(TableWrite)
        .where(TableWrite.id.in_(ids))
        .values(status="COMMITTED", committed_at=now, payload_json="null", payload_rows=None)
        .execution_options(synchronize_session=False)
    )


def mark_failed(session: Session, ids: list[str], message: str, now: datetime) -> None:
    session.execute(
        update(TableWrite)
        .where(TableWrite.id.in_(ids))
        .values(status="FAILED", error_message=message, committed_at=now)
        .execution_options(synchronize_session=False)
    )


def write_state(session: Session, write_id: str) -> tuple[str, str | None] | None:
    row = session.execute(
        select(TableWrite.status, TableWrite.error_message).where(TableWrite.id == write_id)
    ).first()
    return (row[0], row[1]) if row is not None else None


# The reconciler's timer asks every few seconds and nearly always finds none: a prebuilt EXISTS answers that
# for a fraction of what the ORM query costs, which an idle worker would pay.
_STALE_PROBE = select(
    exists().where(TableWrite.status.in_(_ACTIVE), TableWrite.dispatched_at < bindparam("before"))
)


def stale_writes(session: Session, before: datetime, limit: int) -> list[TableWrite]:
    if not session.connection().execute(_STALE_PROBE, {"before": before}).scalar():
        return []
    found = list(
        session.scalars(
            select(TableWrite)
            .where(TableWrite.status.in_(_ACTIVE), TableWrite.dispatched_at < before)
            .order_by(TableWrite.created_at)
            .limit(limit)
        )
    )
    return found


def touch_load(session: Session, table_id: str, now: datetime) -> None:
    """Record that rows were loaded into the table (describe's lastLoadAt)."""
    table = session.get(AnalyticsTable, table_id)
    if table is not None:
        table.last_load_at = now
