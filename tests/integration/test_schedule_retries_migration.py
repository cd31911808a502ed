"""Migration 0021 (scheduler retries): rows from before it keep today's behaviour (no retry, the widest event
age, no dead letter, nothing pending), the models match the migrated schema, and it goes down and up again."""

from __future__ import annotations

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
_EVENT_COLUMNS = {"max_retry_attempts", "max_event_age_seconds", "dead_letter_enabled"}
_RUN_COLUMNS = {"retry_at", "attempts_json", "dead_letter_at"}
# Written as SQL: the models' own inserts would name the columns this revision adds.
_BEFORE = [
    "INSERT INTO scheduled_events (id, company_id, owner_id, name, spec_json, action_type, config_json,"
    " enabled, anchor_at, created_at, updated_at)"
    " VALUES ('e1', 'c1', 'u1', 'e', '{}', 'INVOKE_TOOL', '{}', :on, :t, :t, :t)",
    "INSERT INTO scheduled_event_runs (id, event_id, company_id, scheduled_for, status, attempt, action_type,"
    " queued_at) VALUES ('r1', 'e1', 'c1', :t, 'FAILED', 1, 'INVOKE_TOOL', :t)",
]


def _columns(engine: object, table: str) -> set[str]:
    return {c["name"] for c in inspect(engine).get_columns(table)}


def test_schedule_retries_migrate_up_and_down(settings: Settings) -> None:
    url = settings.resolved_database_url
    upgrade(url)
    command.downgrade(alembic_config(url), "0020")
    engine = make_engine(url)
    try:
        assert not _EVENT_COLUMNS & _columns(engine, "scheduled_events")
        assert not _RUN_COLUMNS & _columns(engine, "scheduled_event_runs")
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
            assert (event.max_retry_attempts, event.max_event_age_seconds) == (0, 86400)
            assert event.dead_letter_enabled is False
            run = session.scalar(select(ScheduledEventRun).where(ScheduledEventRun.id == "r1"))
            assert run is not None
            assert (run.retry_at, run.attempts_json, run.dead_letter_at) == (None, None, None)
        assert_schema_matches_models(engine, only=_TABLES)
        command.downgrade(alembic_config(url), "0020")
        assert not _RUN_COLUMNS & _columns(engine, "scheduled_event_runs")
        upgrade(url)
    finally:
        engine.dispose()
