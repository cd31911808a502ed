"""Migration 0016 (webhook replay): the migrated schema is the models' (SQLite and PostgreSQL alike), a
company's replay slots are reserved consecutively on the backend, and it goes down."""

from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from sqlalchemy import insert, inspect

from schemas.settings import Settings
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from sinks.db.models import Company
from sinks.db.webhooks import replays
from tests.fixtures.migrations import assert_schema_matches_models

pytestmark = pytest.mark.integration

NOW = datetime(2026, 2, 3, 9, 0, tzinfo=UTC)


def test_replay_tables_match_the_models_and_reserve_consecutive_slots(settings: Settings) -> None:
    url = settings.resolved_database_url
    upgrade(url)
    engine = make_engine(url)
    sessions = make_sessions(engine)
    try:
        assert_schema_matches_models(engine)
        with sessions.begin() as session:
            session.execute(insert(Company).values(id="c1", name="Acme", created_at=NOW))
        with sessions.begin() as session:
            first = replays.reserve(session, "c1", 3, NOW, rate=10)
        with sessions.begin() as session:
            second = replays.reserve(session, "c1", 2, NOW + timedelta(milliseconds=1), rate=10)
        step = timedelta(milliseconds=100)
        assert first == [NOW, NOW + step, NOW + 2 * step]
        assert second == [NOW + 3 * step, NOW + 4 * step]
        command.downgrade(alembic_config(url), "0015")
        tables = set(inspect(engine).get_table_names())
        assert not {"webhook_replays", "replay_pacers"} & tables
        upgrade(url)
        assert {"webhook_replays", "replay_pacers"} <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
