"""Migration 0012: every resource registered before versions existed gets version 1, PUBLISHED, at its
endpoint, and the migrated schema is the models' schema (on SQLite and PostgreSQL alike)."""

from datetime import UTC, datetime

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import insert, select

from schemas.settings import Settings
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from sinks.db.models import Base, Company, HandlerResource, ResourceVersion

pytestmark = pytest.mark.integration


def test_existing_resources_become_version_one_published(settings: Settings) -> None:
    url = settings.resolved_database_url
    upgrade(url)
    command.downgrade(alembic_config(url), "0011")
    engine = make_engine(url)
    sessions = make_sessions(engine)
    created = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    try:
        with sessions.begin() as session:
            session.execute(insert(Company).values(id="c1", name="Acme", created_at=created))
            for resource_id, endpoint in (("r1", "http://127.0.0.1:9/a"), ("r2", "kafka://agents")):
                session.execute(
                    insert(HandlerResource).values(
                        id=resource_id,
                        company_id="c1",
                        type="TOOL",
                        name=resource_id,
                        endpoint=endpoint,
                        created_at=created,
                    )
                )
        upgrade(url)
        with sessions() as session:
            versions = session.scalars(select(ResourceVersion).order_by(ResourceVersion.resource_id)).all()
            assert [
                (v.resource_id, v.version_number, v.state, v.endpoint, v.created_at) for v in versions
            ] == [
                ("r1", 1, "PUBLISHED", "http://127.0.0.1:9/a", created),
                ("r2", 1, "PUBLISHED", "kafka://agents", created),
            ]
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection,
                opts={"compare_type": True, "include_object": _ours},
            )
            assert compare_metadata(context, Base.metadata) == []
    finally:
        engine.dispose()


def _ours(obj: object, name: str | None, type_: str, reflected: bool, _compare_to: object) -> bool:
    # The Iceberg SQL catalog's own tables share the database (as in the migrations' env.py).
    return not (type_ == "table" and reflected and name not in Base.metadata.tables)
