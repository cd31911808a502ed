"""Rows inserted when their transaction commits, many at a time.

A group commit carries hundreds of small units of work; each inserting its own rows one statement at a time
keeps the metadata DB's single write lock while Python builds every statement. Units that only insert rows
with client-made ids (nothing in the same transaction reads them back) defer them here instead: just before
the commit, each table's rows go in as one executemany, tables in the order they were first deferred (so a
row referenced by a foreign key goes in before the rows that reference it).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, event, insert
from sqlalchemy.orm import Session

_PENDING = "svc.deferred_inserts"


def defer_insert(session: Session, table: Table, row: dict[str, Any]) -> None:
    """Insert ``row`` into ``table`` when the session's transaction commits."""
    pending: dict[Table, list[dict[str, Any]]] = session.info.setdefault(_PENDING, {})
    pending.setdefault(table, []).append(row)


@event.listens_for(Session, "before_commit")
def _insert_deferred(session: Session) -> None:
    pending: dict[Table, list[dict[str, Any]]] | None = session.info.pop(_PENDING, None)
    for table, rows in (pending or {}).items():
        session.execute(insert(table), rows)


@event.listens_for(Session, "after_rollback")
def _drop_deferred(session: Session) -> None:
    session.info.pop(_PENDING, None)
