"""Migration 0028 (alerts): the migrated schema is the models' (SQLite and PostgreSQL alike), the evaluator's
reads of failures use the partial indexes of failures (SQLite's plan), and it goes down."""

from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import inspect

from schemas.alerts import ConditionType
from schemas.settings import Settings
from sinks.db.alerts import findings
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from tests.fixtures.migrations import assert_schema_matches_models
from tests.fixtures.query_plans import plans, statements

pytestmark = pytest.mark.integration

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
TABLES = {"alert_rules", "alerts", "alert_items", "alert_notifications"}
INDEXES = {
    ("webhook_executions", "ix_webhook_executions_failed"),
    ("scheduled_event_runs", "ix_scheduled_event_runs_failed"),
    ("table_writes", "ix_table_writes_failed"),
}


def test_alert_tables_match_the_models_and_go_down(settings: Settings) -> None:
    url = settings.resolved_database_url
    upgrade(url)
    engine = make_engine(url)
    try:
        assert_schema_matches_models(engine)
        command.downgrade(alembic_config(url), "0027")
        inspector = inspect(engine)
        assert not TABLES & set(inspector.get_table_names())
        for table, index in INDEXES:
            assert index not in {item["name"] for item in inspector.get_indexes(table)}
        assert "failed_at" not in {column["name"] for column in inspector.get_columns("table_maintenance")}
        upgrade(url)
        assert set(inspect(engine).get_table_names()) >= TABLES
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("condition", "table", "index"),
    [
        (ConditionType.WEBHOOK_FAILURES, "webhook_executions", "ix_webhook_executions_failed"),
        (ConditionType.SCHEDULED_RUN, "scheduled_event_runs", "ix_scheduled_event_runs_failed"),
        (ConditionType.TABLE_FAILURE, "table_writes", "ix_table_writes_failed"),
    ],
)
def test_the_reads_of_failures_walk_the_partial_index_of_failures(
    settings: Settings, condition: ConditionType, table: str, index: str
) -> None:
    if not settings.resolved_database_url.startswith("sqlite"):
        pytest.skip("SQLite's plan: PostgreSQL's depends on its statistics")
    url = settings.resolved_database_url
    upgrade(url)
    engine = make_engine(url)
    sessions = make_sessions(engine)
    try:
        with statements(engine) as seen, sessions() as session:
            findings.groups(session, condition, "c1", None, NOW, NOW)
            findings.groups(session, condition, "c1", "s1", NOW, NOW)
            findings.items(session, condition, "c1", "s1", NOW, NOW, 10)
        found = plans(engine, seen, table)
        assert len(found) == 3
        for steps in found:
            assert any(index in step for step in steps), steps
    finally:
        engine.dispose()
