"""Counters shared by the ingress processes in the metadata DB (table ``rate_counters``).

Each process counts in memory and sends what it added since its last flush here, a batch of counters at a
time (``ingress/shared_counts.py``): one UPSERT row per counter, all in one transaction, answering every
counter's shared total so the process sees what the others added. Rows of windows that ended are deleted
about once a minute by each process, in the same transaction as a flush.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Table, delete, select, tuple_
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker

from sinks.db import write_lock
from sinks.db.models import RateCounter

CLEANUP_SECONDS = 60.0
CHUNK = 256
"""Counters per flush transaction (about 3 ms of SQLite's write lock)."""


@dataclass(frozen=True, order=True)
class CounterDelta:
    """Hits one process adds to the counter ``name`` in the window ``[window_start, window_end)``."""

    name: str
    window_start: int
    window_end: int
    hits: int


def _upsert(dialect: Any) -> Any:
    table = cast(Table, RateCounter.__table__)
    statement = dialect.insert(table)
    return statement.on_conflict_do_update(
        index_elements=["name", "window_start"], set_={"hits": table.c.hits + statement.excluded.hits}
    ).returning(table.c.name, table.c.window_start, table.c.hits)


# Built once per dialect, so every flush is a compiled-statement cache hit.
_ADD = {"postgresql": _upsert(postgresql), "sqlite": _upsert(sqlite)}


def add_and_read(session: Session, deltas: Sequence[CounterDelta]) -> list[int]:
    """Add each delta to its shared counter and answer the counters' totals, in the order of ``deltas``.

    Callers pass the deltas sorted (as :class:`SharedCounterStore` does): on PostgreSQL two processes then
    lock the rows they share in the same order and never deadlock.
    """
    if not deltas:
        return []
    rows = [
        {"name": d.name, "window_start": d.window_start, "window_end": d.window_end, "hits": d.hits}
        for d in deltas
    ]
    # Rows come back in no promised order (SQLite's multi-row RETURNING promises none): matched by key.
    totals = {
        (name, start): int(hits)
        for name, start, hits in session.execute(_ADD[session.get_bind().dialect.name], rows)
    }
    return [totals[(d.name, d.window_start)] for d in deltas]


def read(session: Session, name: str, window_start: int) -> int:
    """One counter's shared total (0 when nothing was counted)."""
    hits = session.scalar(
        select(RateCounter.hits).where(RateCounter.name == name, RateCounter.window_start == window_start)
    )
    return int(hits or 0)


def delete_ended(session: Session, now: float, limit: int) -> int:
    """Delete up to ``limit`` counters of windows that ended before ``now``; answers how many went."""
    ended = session.execute(
        select(RateCounter.name, RateCounter.window_start)
        .where(RateCounter.window_end < int(now))
        .limit(limit)
    ).all()
    if ended:
        keys = [(name, start) for name, start in ended]
        session.execute(
            delete(RateCounter).where(tuple_(RateCounter.name, RateCounter.window_start).in_(keys))
        )
    return len(ended)


class SharedCounterStore:
    """The flush target of one process: a transaction per chunk of counters, each holding SQLite's write
    lock for a few milliseconds at most, so the group commits of deliveries never wait long behind it."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        *,
        cleanup_seconds: float = CLEANUP_SECONDS,
        chunk: int = CHUNK,
    ) -> None:
        self._sessions = sessions
        self._cleanup_seconds = cleanup_seconds
        self._chunk = chunk
        self._next_cleanup = 0.0

    def add_and_read(self, deltas: Sequence[CounterDelta], now: float) -> list[int]:
        ordered = sorted(range(len(deltas)), key=lambda i: deltas[i])
        totals: list[int] = []
        for first in range(0, len(ordered), self._chunk):
            with self._sessions.begin() as session:
                write_lock.take(session)
                totals += add_and_read(session, [deltas[i] for i in ordered[first : first + self._chunk]])
        if now >= self._next_cleanup:
            deleted = self._chunk
            while deleted == self._chunk:
                with self._sessions.begin() as session:
                    write_lock.take(session)
                    deleted = delete_ended(session, now, self._chunk)
            # Spread over the minute, so processes started together do not all clean up at once.
            self._next_cleanup = now + self._cleanup_seconds * random.uniform(0.75, 1.25)  # noqa: S311
        answer = [0] * len(deltas)
        for position, index in enumerate(ordered):
            answer[index] = totals[position]
        return answer
