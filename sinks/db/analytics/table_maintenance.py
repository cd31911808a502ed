"""The automatic maintenance's rows (``table_maintenance``): which tables a worker looks at next, and the
lease per table that keeps two workers from maintaining the same table at once (core/leases.py has the
rules every lease follows).

A claim is one conditional UPDATE (``lease_until`` empty or past): on PostgreSQL a second worker's UPDATE
waits for the first one's row lock, then finds the lease taken and changes nothing; on SQLite the database's
single writer does the same. The row is made on the first claim (an insert that ignores an existing row).
Renewal and release name the holder, so a worker whose lease ran out and was taken over cannot extend or end
the new holder's lease.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import ColumnElement, Table, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from sinks.db.models import AnalyticsTable, TableMaintenance

_ROWS = cast(Table, TableMaintenance.__table__)


@dataclass(frozen=True)
class Candidate:
    table_id: str
    company_id: str


@dataclass(frozen=True)
class Claim:
    table_id: str
    company_id: str
    last_expired_at: datetime | None


def _free(now: datetime) -> ColumnElement[bool]:
    return or_(_ROWS.c.lease_until.is_(None), _ROWS.c.lease_until < now)


def candidates(session: Session, now: datetime, limit: int) -> list[Candidate]:
    """Up to ``limit`` tables nobody holds a lease on: the never-checked first, then the oldest-checked."""
    rows = session.execute(
        select(AnalyticsTable.id, AnalyticsTable.company_id)
        .outerjoin(TableMaintenance, TableMaintenance.table_id == AnalyticsTable.id)
        .where(or_(TableMaintenance.lease_until.is_(None), TableMaintenance.lease_until < now))
        .order_by(
            # NULLs sort first on SQLite and last on PostgreSQL: the flag makes both put them first.
            TableMaintenance.last_checked_at.is_not(None),
            TableMaintenance.last_checked_at,
            AnalyticsTable.id,
        )
        .limit(limit)
    )
    return [Candidate(table_id, company_id) for table_id, company_id in rows]


def claim(
    session: Session, candidate: Candidate, *, holder: str, now: datetime, until: datetime
) -> Claim | None:
    """Take the table's lease until ``until`` and note the check; None when another worker holds it."""
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    session.execute(
        dialect.insert(_ROWS)
        .values(table_id=candidate.table_id, company_id=candidate.company_id)
        .on_conflict_do_nothing(index_elements=["table_id"])
    )
    taken = session.execute(
        update(_ROWS)
        .where(_ROWS.c.table_id == candidate.table_id, _free(now))
        .values(lease_until=until, lease_holder=holder, last_checked_at=now)
        .returning(_ROWS.c.last_expired_at)
    ).one_or_none()
    if taken is None:
        return None
    return Claim(candidate.table_id, candidate.company_id, taken[0])


def renew(session: Session, table_ids: list[str], *, holder: str, until: datetime) -> int:
    """Extend this holder's leases on ``table_ids``; how many it still held."""
    if not table_ids:
        return 0
    done = session.execute(
        update(_ROWS)
        .where(_ROWS.c.table_id.in_(table_ids), _ROWS.c.lease_holder == holder)
        .values(lease_until=until)
    )
    return int(done.rowcount)  # type: ignore[attr-defined]


def release(
    session: Session, table_id: str, *, holder: str, now: datetime, compacted: bool, expired: bool
) -> bool:
    """End this holder's lease and note what it did; False when the lease had gone to another worker."""
    values: dict[str, object] = {"lease_until": None, "lease_holder": None}
    if compacted:
        values["last_compacted_at"] = now
    if expired:
        values["last_expired_at"] = now
    done = session.execute(
        update(_ROWS).where(_ROWS.c.table_id == table_id, _ROWS.c.lease_holder == holder).values(**values)
    )
    return bool(done.rowcount)  # type: ignore[attr-defined]


def record_failure(session: Session, table_id: str, error: str, now: datetime) -> None:
    """The table's automatic maintenance failed (what a TABLE_FAILURE alert counts); the last one is kept."""
    session.execute(update(_ROWS).where(_ROWS.c.table_id == table_id).values(failed_at=now, last_error=error))


def state(session: Session, table_id: str) -> TableMaintenance | None:
    return session.get(TableMaintenance, table_id)
