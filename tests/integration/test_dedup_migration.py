"""Migration 0017 (trigger deduplication): the migrated schema is the models' (SQLite and PostgreSQL alike),
its primary key refuses a second row for one webhook and key, and it goes down and up again."""

from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from sqlalchemy import inspect
from sqlalchemy.exc import IntegrityError

from schemas.settings import Settings
from sinks.db import tenancy
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from sinks.db.models import WebhookDedup
from sinks.db.webhooks import definitions
from tests.fixtures.migrations import assert_schema_matches_models

pytestmark = pytest.mark.integration

NOW = datetime(2026, 2, 3, 9, 0, tzinfo=UTC)


def test_the_dedup_table_matches_the_model_and_its_key_is_unique(settings: Settings) -> None:
    url = settings.resolved_database_url
    upgrade(url)
    engine = make_engine(url)
    sessions = make_sessions(engine)
    try:
        assert_schema_matches_models(engine)
        with sessions.begin() as session:
            company = tenancy.create_company(session, "Acme", "admin@acme.test")
            viewer = definitions.Viewer(company.company_id, company.user_id, True)
            webhook_id = definitions.create(session, viewer, {"name": "orders"})[0].id

        def claim(execution_id: str) -> WebhookDedup:
            return WebhookDedup(
                webhook_id=webhook_id,
                dedup_key="evt_1",
                company_id=company.company_id,
                execution_id=execution_id,
                seen_at=NOW,
                expires_at=NOW + timedelta(days=1),
            )

        with sessions.begin() as session:
            session.add(claim("a" * 32))
        with pytest.raises(IntegrityError), sessions.begin() as session:
            session.add(claim("b" * 32))
        command.downgrade(alembic_config(url), "0016")
        assert "webhook_dedup" not in set(inspect(engine).get_table_names())
        upgrade(url)
        assert "webhook_dedup" in set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
