"""Migration 0016 (webhook replay): the migrated schema is the models' (SQLite and PostgreSQL alike), a
company's replay slots are reserved consecutively on the backend, and it goes down."""

from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import insert, inspect

from schemas.settings import Settings
from sinks.db import replays
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from sinks.db.models import Base, Company

pytestmark = pytest.mark.integration

NOW = datetime(2026, 2, 3, 9, 0, tzinfo=UTC)


def test_replay_tables_match_the_models_and_reserve_consecutive_slots(settings: Settings) -> None:
    url = settings.resolved_database_url
    upgrade(url)
    engine = make_engine(url)
    sessions = make_sessions(engine)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "include_object": _ours}
            )
            assert compare_metadata(context, Base.metadata) == []
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


def _ours(obj: object, name: str | None, type_: str, reflected: bool, _compare_to: object) -> bool:
    # The Iceberg SQL catalog's own tables share the database (as in the migrations' env.py).
    return not (type_ == "table" and reflected and name not in Base.metadata.tables)
