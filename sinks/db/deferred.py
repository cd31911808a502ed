"""Writes a unit of work leaves for its transaction's commit, gathered and done together just before it.

A group commit carries hundreds of small units of work; each writing its own rows one statement at a time
keeps the metadata DB's single write lock while Python builds every statement. Writes that nothing in the
same transaction reads back are gathered in the session instead (`gathered`) and written by one flush per
kind just before the commit (`at_commit`), in the order the kinds were registered; a rollback drops them.

Deferred inserts are one kind: each table's rows go in as one executemany, tables in the order they were
first deferred (so a row referenced by a foreign key goes in before the rows that reference it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Insert, Table, event, insert
from sqlalchemy.orm import Session

_FLUSHES: dict[str, Callable[[Session, Any], None]] = {}
_INSERTS = "svc.deferred_inserts"


def at_commit(name: str, flush: Callable[[Session, Any], None]) -> None:
    """Register ``flush``: it gets what units of work `gathered` under ``name`` just before each commit."""
    _FLUSHES[name] = flush


def gathered(session: Session, name: str, empty: Callable[[], Any]) -> Any:
    """The transaction's collection under ``name`` (``empty()`` the first time), for a unit to add to."""
    collection = session.info.get(name)
    if collection is None:
        collection = session.info[name] = empty()
    return collection


def defer_insert(session: Session, table: Table, row: dict[str, Any]) -> None:
    """Insert ``row`` into ``table`` when the session's transaction commits."""
    pending: dict[Table, list[dict[str, Any]]] = gathered(session, _INSERTS, dict)
    pending.setdefault(table, []).append(row)


# One INSERT construct per table, built once: a new construct per flush cost a cache-key walk each time, and
# the ORM session's handling of a Core statement costs more than running it (this runs in every group
# commit of the trigger's hot path).
_STATEMENTS: dict[Table, Insert] = {}


def _insert_rows(session: Session, pending: dict[Table, list[dict[str, Any]]]) -> None:
    connection = session.connection()
    for table, rows in pending.items():
        statement = _STATEMENTS.get(table)
        if statement is None:
            statement = _STATEMENTS[table] = insert(table)
        connection.execute(statement, rows)


at_commit(_INSERTS, _insert_rows)


@event.listens_for(Session, "before_commit")
def _flush_gathered(session: Session) -> None:
    for name, flush in _FLUSHES.items():
        collection = session.info.pop(name, None)
        if collection:
            flush(session, collection)


@event.listens_for(Session, "after_rollback")
def _drop_gathered(session: Session) -> None:
    for name in _FLUSHES:
        session.info.pop(name, None)
