"""Migration 0015 (issue 25, scheduler controls): events from before it have no window and no pause and keep
actionAfterCompletion NONE, their runs are fires of the schedule (not /run-now); the migrated tables are the
models' (SQLite and PostgreSQL alike); and it goes down."""

from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import insert, inspect, select, text

from schemas.settings import Settings
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from sinks.db.models import Company, ScheduledEvent, ScheduledEventRun, User
from tests.fixtures.migrations import assert_schema_matches_models

pytestmark = pytest.mark.integration

CREATED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
# The tables this revision changes: its schema check looks at these alone (other revisions have theirs).
_TABLES = {"scheduled_events", "scheduled_event_runs"}
_EVENT_COLUMNS = {"start_date", "end_date", "paused_until", "action_after_completion"}
# Written as SQL: the models' own inserts would name the columns this revision adds.
_BEFORE = [
    "INSERT INTO scheduled_events (id, company_id, owner_id, name, spec_json, action_type, config_json,"
    " enabled, anchor_at, created_at, updated_at)"
    " VALUES ('e1', 'c1', 'u1', 'e', '{}', 'INVOKE_TOOL', '{}', :on, :t, :t, :t)",
    "INSERT INTO scheduled_event_runs (id, event_id, company_id, scheduled_for, status, attempt, action_type,"
    " queued_at) VALUES ('r1', 'e1', 'c1', :t, 'SUCCEEDED', 1, 'INVOKE_TOOL', :t)",
]


def test_schedule_controls_migrate_up_and_down(settings: Settings) -> None:
    url = settings.resolved_database_url
    upgrade(url)
    command.downgrade(alembic_config(url), "0014")
    engine = make_engine(url)
    try:
        assert not _EVENT_COLUMNS & {c["name"] for c in inspect(engine).get_columns("scheduled_events")}
        with engine.begin() as connection:
            connection.execute(insert(Company).values(id="c1", name="Acme", created_at=CREATED))
            connection.execute(
                insert(User).values(id="u1", company_id="c1", email="a@acme.test", created_at=CREATED)
            )
            naive = CREATED.replace(tzinfo=None)  # the columns store naive UTC
            for statement in _BEFORE:
                connection.execute(text(statement), {"t": naive, "on": True})
        upgrade(url)
        with make_sessions(engine).begin() as session:
            event = session.scalar(select(ScheduledEvent).where(ScheduledEvent.id == "e1"))
            assert event is not None
            assert (event.start_date, event.end_date, event.paused_until) == (None, None, None)
            assert event.action_after_completion == "NONE"
            assert event.created_at == CREATED
            assert (
                session.scalar(select(ScheduledEventRun.manual).where(ScheduledEventRun.id == "r1")) is False
            )
        assert_schema_matches_models(engine, only=_TABLES)
        command.downgrade(alembic_config(url), "0014")
        assert "manual" not in {c["name"] for c in inspect(engine).get_columns("scheduled_event_runs")}
        upgrade(url)
    finally:
        engine.dispose()
