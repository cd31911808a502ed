"""Giving the space of deleted rows back to the file system: SQLite's incremental vacuum, a few pages a call.

A SQLite file never shrinks by itself: pages freed by a DELETE go to the file's free list and are reused by
later writes. In incremental auto-vacuum mode (set when the file is created, `engine.py`, or by migration
0026) ``PRAGMA incremental_vacuum`` moves pages from the end of the file into free ones and cuts the end
off, so the file shrinks at the next checkpoint of the WAL. It writes, so it runs under the write lock:
:func:`reclaim` moves at most ``max_pages`` pages a call, which keeps the lock as briefly as a group commit
holds it; a sweep calls it again, in a new transaction, while it answers ``max_pages``.

PostgreSQL needs nothing here: autovacuum makes deleted rows' space reusable (docs/operations.md).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from sinks.db import write_lock

RECLAIM_PAGES = 64
"""Pages one :func:`reclaim` call gives back by default (256 KiB at SQLite's 4 KiB pages): about as long
under the write lock as a busy group commit (docs/performance.md)."""

INCREMENTAL = 2
"""``PRAGMA auto_vacuum``'s answer in incremental mode (0: none, 1: full)."""


def reclaim(session: Session, max_pages: int = RECLAIM_PAGES) -> int:
    """Give up to ``max_pages`` free pages of a SQLite file back to the file system, in the session's
    transaction (the caller commits); answers how many. 0 on PostgreSQL, and on a SQLite file not in
    incremental auto-vacuum mode (not migrated yet), where the pragma would do nothing.

    Call it first in a new transaction, or after the deletions it follows in theirs: it takes the write lock
    as every writer does (`write_lock.take`)."""
    if max_pages < 1:
        raise ValueError("max_pages must be at least 1")
    connection = session.connection()
    if connection.dialect.name != "sqlite":
        return 0
    write_lock.take(session)
    if connection.exec_driver_sql("PRAGMA auto_vacuum").scalar() != INCREMENTAL:
        return 0
    free = int(connection.exec_driver_sql("PRAGMA freelist_count").scalar() or 0)
    pages = min(free, max_pages)
    # Python's sqlite3 steps a statement that returns no columns once, and this pragma moves one page per
    # step: asked for N pages it would move one. So one page per statement, N statements.
    for _ in range(pages):
        connection.exec_driver_sql("PRAGMA incremental_vacuum(1)")
    return pages
