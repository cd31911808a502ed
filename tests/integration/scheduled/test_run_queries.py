"""A scheduled run's claim finds the runs by their primary key, however many runs are QUEUED.

Without statistics SQLite's planner preferred the status index to the list of run ids, so each claim walked
every QUEUED run (at 10,000 schedules, thousands). Checked with EXPLAIN QUERY PLAN on the statement the
claim really runs; PostgreSQL plans with statistics and is left to its planner."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sinks.db import scheduled_runs
from tests.fixtures.query_plans import plans, statements
from tests.fixtures.stack import Db

pytestmark = pytest.mark.integration

BY_ID = "USING INDEX sqlite_autoindex_scheduled_event_runs_1 (id=?)"
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def test_the_claim_of_runs_looks_them_up_by_id(db: Db) -> None:
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner without statistics; PostgreSQL plans with its own")
    with db.sessions.begin() as session, statements(db.engine) as seen:
        ids = [f"{n:032x}" for n in range(20)]
        assert scheduled_runs.claim_runs(session, ids, NOW, NOW + timedelta(seconds=30)) == []
    found = plans(db.engine, seen, "UPDATE scheduled_event_runs")
    assert len(found) == 1
    steps = [step for step in found[0] if "scheduled_event_runs" in step]
    assert steps and all(BY_ID in step for step in steps), found
