"""Bytes each company's query jobs are estimated to scan, per UTC day, counted as the jobs are recorded.

One counter per company and day in ``read_charges`` (beside the bytes describe and preview read), added to in
the transaction that records the job, so checking the daily allowance costs one read however many queries the
day had; a job's ``bytes_scanned`` is fixed when it is created, so the counter is exact. The additions of a
group commit are gathered and written once, sorted by company, just before it commits (the same rows in the
same order in every transaction: two processes' commits never wait on each other in a cycle).
"""

from __future__ import annotations

from datetime import date
from typing import Any, cast

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from sinks.db.deferred import at_commit, gathered
from sinks.db.models import ReadCharge

_PENDING = "svc.pending_query_scans"


def _upsert(dialect: Any, column: str) -> Any:
    table = cast(Table, ReadCharge.__table__)
    statement = dialect.insert(table)
    return statement.on_conflict_do_update(
        index_elements=["company_id", "day"],
        set_={column: table.c[column] + statement.excluded[column]},
    )


_ADD = {"postgresql": _upsert(postgresql, "query_bytes"), "sqlite": _upsert(sqlite, "query_bytes")}
_READ = {"postgresql": _upsert(postgresql, "bytes_read"), "sqlite": _upsert(sqlite, "bytes_read")}


def add_read(session: Session, company_id: str, day: date, size: int) -> None:
    """Add ``size`` bytes read by describe or preview to the company's day, now. An upsert, as the query
    counter's: the day's row may be inserted by either, in another transaction, at the same moment."""
    connection = session.connection()
    row = {"company_id": company_id, "day": day, "bytes_read": size, "query_bytes": 0}
    connection.execute(_READ[connection.dialect.name], [row])


def count(session: Session, company_id: str, day: date, size: int) -> None:
    """Add a query job's ``size`` estimated bytes to the company's total of ``day`` when the transaction
    commits."""
    if size > 0:
        pending: dict[tuple[str, date], int] = gathered(session, _PENDING, dict)
        pending[(company_id, day)] = pending.get((company_id, day), 0) + size


def _write(session: Session, pending: dict[tuple[str, date], int]) -> None:
    rows = [
        {"company_id": company_id, "day": day, "bytes_read": 0, "query_bytes": size}
        for (company_id, day), size in sorted(pending.items())
    ]
    if rows:
        connection = session.connection()
        connection.execute(_ADD[connection.dialect.name], rows)


at_commit(_PENDING, _write)
