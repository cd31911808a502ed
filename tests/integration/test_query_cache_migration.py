"""Migration 0018: jobs from before it have no result-cache key; the migrated schema is the models' (SQLite
and PostgreSQL alike); and it goes down."""

from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import insert, inspect, select

from schemas.settings import Settings
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from sinks.db.models import AnalyticsTable, Company, Job, User
from tests.fixtures.migrations import assert_schema_matches_models

pytestmark = pytest.mark.integration

CREATED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_jobs_gain_a_nullable_cache_key(settings: Settings) -> None:
    url = settings.resolved_database_url
    upgrade(url)
    command.downgrade(alembic_config(url), "0017")
    engine = make_engine(url)
    sessions = make_sessions(engine)
    try:
        assert "cache_key" not in {c["name"] for c in inspect(engine).get_columns("jobs")}
        with sessions.begin() as session:
            session.execute(insert(Company).values(id="c1", name="Acme", created_at=CREATED))
            session.execute(
                insert(User).values(id="u1", company_id="c1", email="u1@acme.test", created_at=CREATED)
            )
            session.execute(
                insert(AnalyticsTable).values(
                    id="t1",
                    company_id="c1",
                    sql_name="orders",
                    name="Orders",
                    columns_json="[]",
                    created_by="u1",
                )
            )
            session.execute(
                insert(Job).values(
                    id="before",
                    company_id="c1",
                    table_id="t1",
                    kind="QUERY",
                    state="SUCCEEDED",
                    created_by="u1",
                    created_at=CREATED,
                )
            )
        upgrade(url)
        with sessions() as session:
            assert session.execute(
                select(Job.cache_key, Job.cached_from).where(Job.id == "before")
            ).one() == (
                None,
                None,
            )
        indexes = {i["name"]: i["column_names"] for i in inspect(engine).get_indexes("jobs")}
        assert indexes["ix_jobs_cache_key"] == ["company_id", "cache_key"]
        assert_schema_matches_models(engine)
        command.downgrade(alembic_config(url), "0017")
        assert "cache_key" not in {c["name"] for c in inspect(engine).get_columns("jobs")}
        upgrade(url)
    finally:
        engine.dispose()
