"""The count of a company's active queries (the query-slot check of every /query) finds them through the
state index, however many jobs the company has run.

Without statistics SQLite's planner preferred the company's index and walked every job the company ever ran
for each new query. Checked with EXPLAIN QUERY PLAN on the statement really run; PostgreSQL plans with
statistics and is left to its planner."""

from __future__ import annotations

import pytest

from sinks.db import jobs
from tests.fixtures.query_plans import plans, statements
from tests.fixtures.stack import Db

pytestmark = pytest.mark.integration


def test_active_queries_are_counted_through_the_state_index(db: Db) -> None:
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner without statistics; PostgreSQL plans with its own")
    company = db.create_company()
    with db.sessions.begin() as session, statements(db.engine) as seen:
        assert jobs.active_queries(session, company.company_id) == 0
    found = plans(db.engine, seen, "SELECT count(*)")
    assert len(found) == 1
    steps = [step for step in found[0] if "jobs" in step]
    assert steps and all("ix_jobs_state_created (state=?)" in step for step in steps), found
