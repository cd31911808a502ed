"""Migration 0022 (scheduler catch-up): events from before it keep today's one-hour catch-up window and take
overlapPolicy SKIP and flexibleTimeWindow OFF, the models match the migrated schema, and it goes down and up
again."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import insert, inspect, select, text

from schemas.settings import Settings
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from sinks.db.models import Company, ScheduledEvent, User
from tests.fixtures.migrations import assert_schema_matches_models

pytestmark = pytest.mark.integration

CREATED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
# Written as SQL: the model's own insert would name the column this revision adds.
_BEFORE = (
    "INSERT INTO scheduled_events (id, company_id, owner_id, name, spec_json, action_type, config_json,"
    " enabled, anchor_at, created_at, updated_at)"
    " VALUES ('e1', 'c1', 'u1', 'e', '{}', 'INVOKE_TOOL', '{}', :on, :t, :t, :t)"
)


def _columns(engine: object, table: str = "scheduled_events") -> set[str]:
    return {c["name"] for c in inspect(engine).get_columns(table)}


def test_schedule_catchup_migrates_up_and_down(settings: Settings) -> None:
    url = settings.resolved_database_url
    upgrade(url)
    command.downgrade(alembic_config(url), "0021")
    engine = make_engine(url)
    try:
        assert not {"catchup_window_seconds", "overlap_policy", "flex_window_minutes"} & _columns(engine)
        with engine.begin() as connection:
            connection.execute(insert(Company).values(id="c1", name="Acme", created_at=CREATED))
            connection.execute(
                insert(User).values(id="u1", company_id="c1", email="a@acme.test", created_at=CREATED)
            )
            connection.execute(text(_BEFORE), {"t": CREATED.replace(tzinfo=None), "on": True})
        upgrade(url)
        with make_sessions(engine).begin() as session:
            event = session.scalar(select(ScheduledEvent).where(ScheduledEvent.id == "e1"))
            assert event is not None and event.catchup_window_seconds == 3600
            assert (event.overlap_policy, event.flex_window_minutes) == ("SKIP", None)
        assert_schema_matches_models(engine, only=("scheduled_events", "scheduled_event_runs"))
        command.downgrade(alembic_config(url), "0021")
        assert "catchup_window_seconds" not in _columns(engine)
        assert "buffered" not in _columns(engine, "scheduled_event_runs")
        upgrade(url)
    finally:
        engine.dispose()
