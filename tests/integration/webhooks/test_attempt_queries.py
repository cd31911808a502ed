"""The worker's per-attempt statements find the attempts by their primary key, whatever the history holds.

Without statistics SQLite's planner preferred an equality on the company (or the status) to the list of
attempt ids: the claim of a batch walked every execution the company ever had, and with 100,000 executions
in the history that was half of an idle-looking worker's CPU at 100 deliveries a second. Checked with
EXPLAIN QUERY PLAN on the statements the functions really run; PostgreSQL plans with statistics and is left
to its planner."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from schemas.deliveries import DeliveryTask
from sinks.db.webhooks import delivery_attempts, delivery_sweeps
from sinks.db.webhooks.delivery_attempts import Finish
from tests.fixtures.query_plans import plans, statements
from tests.fixtures.stack import Db

pytestmark = pytest.mark.integration

BY_ID = "USING INDEX sqlite_autoindex_webhook_executions_1 (id=?)"
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def _task(number: int) -> DeliveryTask:
    return DeliveryTask(
        entry_id=f"{number:032x}",
        execution_id=f"{number:032x}",
        webhook_id="w" * 32,
        company_id="c" * 32,
        attempt_number=1,
    )


def test_claims_outcomes_and_lease_renewals_look_attempts_up_by_id(db: Db) -> None:
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner without statistics; PostgreSQL plans with its own")
    tasks = [_task(number) for number in range(20)]
    finished = [Finish(task, True, None, None, None, NOW, None, NOW) for task in tasks]
    with db.sessions.begin() as session, statements(db.engine) as seen:
        assert delivery_attempts.claim(session, tasks, NOW, NOW + timedelta(seconds=30)) == []
        assert delivery_attempts.finish_all(session, finished) == [None] * len(tasks)
        assert delivery_sweeps.renew_leases(session, [task.entry_id for task in tasks], NOW) == 0
    found = plans(db.engine, seen, "webhook_executions")
    assert len(found) == 3  # the claim, the read of the attempts still PROCESSING, the renewal
    for plan in found:
        steps = [step for step in plan if "webhook_executions" in step]
        assert steps and all(BY_ID in step for step in steps), plan
