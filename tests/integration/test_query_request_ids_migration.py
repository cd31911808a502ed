"""Migration 0014: jobs from before it keep no requestId, any number of jobs without one live side by side
while a user's requestId names one job; the migrated schema is the models' (SQLite and PostgreSQL alike);
and it goes down."""

from datetime import UTC, datetime
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import insert, inspect, select
from sqlalchemy.exc import IntegrityError

from schemas.settings import Settings
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from sinks.db.models import AnalyticsTable, Base, Company, Job, User

pytestmark = pytest.mark.integration

CREATED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _job(job_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": job_id,
        "company_id": "c1",
        "table_id": "t1",
        "kind": "QUERY",
        "state": "SUCCEEDED",
        "created_by": "u1",
        "created_at": CREATED,
        **extra,
    }


def test_request_ids_are_unique_per_user_and_optional(settings: Settings) -> None:
    url = settings.resolved_database_url
    upgrade(url)
    command.downgrade(alembic_config(url), "0013")
    engine = make_engine(url)
    sessions = make_sessions(engine)
    try:
        assert "request_id" not in {c["name"] for c in inspect(engine).get_columns("jobs")}
        with sessions.begin() as session:
            session.execute(insert(Company).values(id="c1", name="Acme", created_at=CREATED))
            for user_id in ("u1", "u2"):
                session.execute(
                    insert(User).values(
                        id=user_id, company_id="c1", email=f"{user_id}@acme.test", created_at=CREATED
                    )
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
            session.execute(insert(Job).values(_job("before")))
        upgrade(url)
        with sessions.begin() as session:
            assert session.scalar(select(Job.request_id).where(Job.id == "before")) is None
            session.execute(insert(Job).values(_job("without")))
            session.execute(insert(Job).values(_job("mine", request_id="r1", request_digest="d")))
            session.execute(insert(Job).values(_job("theirs", created_by="u2", request_id="r1")))
        with pytest.raises(IntegrityError), sessions.begin() as session:
            session.execute(insert(Job).values(_job("again", request_id="r1")))
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "include_object": _ours}
            )
            assert compare_metadata(context, Base.metadata) == []
        command.downgrade(alembic_config(url), "0013")
        assert "request_id" not in {c["name"] for c in inspect(engine).get_columns("jobs")}
        upgrade(url)
    finally:
        engine.dispose()


def _ours(obj: object, name: str | None, type_: str, reflected: bool, _compare_to: object) -> bool:
    # The Iceberg SQL catalog's own tables share the database (as in the migrations' env.py).
    return not (type_ == "table" and reflected and name not in Base.metadata.tables)
