"""The count of a company's active queries (the query-slot check of every /query) finds them through the
state index, however many jobs the company has run; the sweep of orphaned result files finds the jobs that
name its keys through their index.

Without statistics SQLite's planner preferred the company's index and walked every job the company ever ran
for each new query. Checked with EXPLAIN QUERY PLAN on the statement really run; PostgreSQL plans with
statistics and is left to its planner."""

from __future__ import annotations

import pytest

from sinks.db.analytics import jobs
from sinks.job_results import result_key
from sinks.result_orphans import named_keys
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


def test_the_orphan_sweep_looks_result_keys_up_by_their_index(db: Db) -> None:
    """Without ``ix_jobs_result_key`` each page of a thousand listed result files walked every job."""
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner without statistics; PostgreSQL plans with its own")
    company = db.create_company()
    owners = {
        result_key(company.company_id, f"{n:032x}"): (company.company_id, f"{n:032x}") for n in range(5)
    }
    with db.sessions() as session, statements(db.engine) as seen:
        assert named_keys(session, owners) == set()
    found = plans(db.engine, seen, "FROM jobs")
    assert len(found) == 1
    steps = [step for step in found[0] if "jobs" in step]
    assert steps and not any(step.startswith("SCAN jobs") for step in steps), found
    assert any("ix_jobs_result_key (result_key=?)" in step for step in steps), found
