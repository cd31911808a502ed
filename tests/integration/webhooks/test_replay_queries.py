"""Issue 24, replay: the reads a replay runs per step look the named executions up by their own index.

Without statistics SQLite's planner preferred the company's history index to the list of execution ids, so
every step walked the company's whole history (a 100,000-execution replay read its history once per 64
ids). Checked with EXPLAIN QUERY PLAN on the statements the functions really run; PostgreSQL plans with
statistics and is left to its planner."""

from __future__ import annotations

import pytest

from sinks.db.webhooks import replays
from tests.fixtures.query_plans import plans, statements
from tests.fixtures.stack import Db

pytestmark = pytest.mark.integration

BY_EXECUTION_ID = "USING INDEX ix_webhook_executions_execution (execution_id=? AND attempt_number=?)"


def test_the_named_executions_are_looked_up_by_id_not_by_walking_the_companys_history(db: Db) -> None:
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner without statistics; PostgreSQL plans with its own")
    ids = [f"{n:032x}" for n in range(20)]
    with db.sessions() as session, statements(db.engine) as seen:
        assert replays.stored_requests(session, "c" * 32, ids) == []
        assert replays.received_times(session, "c" * 32, "w" * 32, ids) == {}
    found = plans(db.engine, seen, "webhook_executions")
    assert len(found) == 2
    for plan in found:
        assert any(BY_EXECUTION_ID in step for step in plan), plan
        assert not any("ix_webhook_executions_status_history" in step for step in plan), plan
        assert not any("ix_webhook_executions_history" in step for step in plan), plan
        assert not any("ix_webhook_payloads_company_id" in step for step in plan), plan
