"""Migration 0019: history entries gain a nullable traceparent (entries from before it have none); the
migrated schema is the models' (SQLite and PostgreSQL alike); and it goes down."""

import pytest
from alembic import command
from sqlalchemy import inspect

from schemas.settings import Settings
from sinks.db.engine import make_engine
from sinks.db.migrate import alembic_config, upgrade
from tests.fixtures.migrations import assert_schema_matches_models

pytestmark = pytest.mark.integration


def _columns(engine: object) -> dict[str, dict[str, object]]:
    return {c["name"]: c for c in inspect(engine).get_columns("webhook_executions")}


def test_history_entries_gain_a_nullable_trace_parent(settings: Settings) -> None:
    url = settings.resolved_database_url
    upgrade(url)
    command.downgrade(alembic_config(url), "0018")
    engine = make_engine(url)
    try:
        assert "trace_parent" not in _columns(engine)
        upgrade(url)
        column = _columns(engine)["trace_parent"]
        assert column["nullable"] is True
        assert_schema_matches_models(engine)
        command.downgrade(alembic_config(url), "0018")
        assert "trace_parent" not in _columns(engine)
        upgrade(url)
    finally:
        engine.dispose()
