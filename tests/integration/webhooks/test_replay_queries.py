"""Issue 24, replay: the reads a replay runs per step look the named executions up by their own index.

Without statistics SQLite's planner preferred the company's history index to the list of execution ids, so
every step walked the company's whole history (a 100,000-execution replay read its history once per 64
ids). Checked with EXPLAIN QUERY PLAN on the statements the functions really run; PostgreSQL plans with
statistics and is left to its planner."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Connection

from sinks.db import replays
from tests.fixtures.stack import Db

pytestmark = pytest.mark.integration

BY_EXECUTION_ID = "USING INDEX ix_webhook_executions_execution (execution_id=? AND attempt_number=?)"


@contextmanager
def _statements(db: Db) -> Iterator[list[tuple[str, Any]]]:
    seen: list[tuple[str, Any]] = []

    def note(
        _conn: Connection, _cursor: Any, statement: str, params: Any, _context: Any, _many: bool
    ) -> None:
        seen.append((statement, params))

    event.listen(db.engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", note)


def _plans(db: Db, statements: list[tuple[str, Any]]) -> list[list[str]]:
    with db.engine.connect() as connection:
        return [
            [row[3] for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", params)]
            for statement, params in statements
        ]


def test_the_named_executions_are_looked_up_by_id_not_by_walking_the_companys_history(db: Db) -> None:
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner without statistics; PostgreSQL plans with its own")
    ids = [f"{n:032x}" for n in range(20)]
    with db.sessions() as session, _statements(db) as seen:
        assert replays.stored_requests(session, "c" * 32, ids) == []
        assert replays.received_times(session, "c" * 32, "w" * 32, ids) == {}
    plans = _plans(
        db, [(statement, params) for statement, params in seen if "webhook_executions" in statement]
    )
    assert len(plans) == 2
    for plan in plans:
        assert any(BY_EXECUTION_ID in step for step in plan), plan
        assert not any("ix_webhook_executions_status_history" in step for step in plan), plan
        assert not any("ix_webhook_executions_history" in step for step in plan), plan
        assert not any("ix_webhook_payloads_company_id" in step for step in plan), plan
