"""The history's search reads one range of the history index, never the webhook's whole history.

A time range and a status are a range of ``ix_webhook_executions_history`` (or its per-status twin), read
newest first up to the search limit; a body text joins only that window's payload rows by their key; one
execution's attempts come from the execution's own index. Checked with EXPLAIN QUERY PLAN on the statements
``history_search.find`` really runs; PostgreSQL plans with statistics and is left to its planner."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from schemas.webhooks import ExecutionStatus
from sinks.db.webhooks import executions, history_search
from sinks.db.webhooks.history_search import HistorySearch
from tests.fixtures.query_plans import plans, statements
from tests.fixtures.stack import Db

pytestmark = pytest.mark.integration

SINCE = datetime(2026, 11, 1, tzinfo=UTC)
UNTIL = datetime(2026, 11, 2, tzinfo=UTC)
RANGE = "SEARCH webhook_executions USING COVERING INDEX ix_webhook_executions_history"
STATUS_RANGE = "SEARCH webhook_executions USING COVERING INDEX ix_webhook_executions_status_history"
PAYLOAD_BY_ID = "SEARCH webhook_payloads USING INDEX sqlite_autoindex_webhook_payloads_1 (id=?)"


def _plan(db: Db, search: HistorySearch) -> list[str]:
    with db.sessions() as session, statements(db.engine) as seen:
        assert history_search.find(session, "c" * 32, "w" * 32, search).ids == []
    found = plans(db.engine, seen, "webhook_executions")
    assert len(found) == 1
    return found[0]


@pytest.fixture
def sqlite_db(db: Db) -> Db:
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner without statistics; PostgreSQL plans with its own")
    return db


def test_a_time_range_is_a_range_of_the_covering_history_index(sqlite_db: Db) -> None:
    plan = _plan(sqlite_db, HistorySearch(since=SINCE, until=UNTIL))
    assert plan == [f"{RANGE} (company_id=? AND webhook_id=? AND queued_at>? AND queued_at<?)"]
    plan = _plan(sqlite_db, HistorySearch(ExecutionStatus.FAILED, since=SINCE))
    assert plan == [f"{STATUS_RANGE} (company_id=? AND webhook_id=? AND status=? AND queued_at>?)"]


def test_a_body_text_reads_the_payloads_of_the_window_only_by_their_key(sqlite_db: Db) -> None:
    plan = _plan(sqlite_db, HistorySearch(until=UNTIL, body_contains="ord-1"))
    entries = [step for step in plan if "webhook_executions" in step]
    assert entries == [
        "SEARCH webhook_executions USING INDEX ix_webhook_executions_history "
        "(company_id=? AND webhook_id=? AND queued_at<?)"
    ]
    assert [step for step in plan if "webhook_payloads" in step] == [PAYLOAD_BY_ID]
    assert not any(step.startswith("SCAN webhook_") for step in plan), plan


def test_one_executions_attempts_come_from_the_execution_index(sqlite_db: Db) -> None:
    plan = _plan(sqlite_db, HistorySearch(execution_id="e" * 32))
    entries = [step for step in plan if "webhook_executions" in step]
    assert entries == [
        "SEARCH webhook_executions USING INDEX ix_webhook_executions_execution (execution_id=?)"
    ]


def test_the_delivery_stats_count_a_window_from_the_covering_indexes_alone(sqlite_db: Db) -> None:
    with sqlite_db.sessions() as session, statements(sqlite_db.engine) as seen:
        assert executions.attempt_groups(session, "c" * 32, "w" * 32, SINCE, 60, 1_000) == ([], False)
    cutoff, counted = plans(sqlite_db.engine, seen, "webhook_executions")
    assert cutoff == [f"{RANGE} (company_id=? AND webhook_id=? AND queued_at>?)"]
    assert counted[0] == f"{STATUS_RANGE} (company_id=? AND webhook_id=? AND status=? AND queued_at>?)"
    assert not any("webhook_executions USING INDEX" in step or step.startswith("SCAN") for step in counted)
