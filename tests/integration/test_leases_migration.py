"""Migration 0013: a run RUNNING before leases existed has none after the upgrade and is judged by the old
grace rule; the migrated schema is the models' schema (on SQLite and PostgreSQL alike); and it goes down."""

from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import column as sql_column
from sqlalchemy import insert, inspect, select
from sqlalchemy import table as sql_table
from sqlalchemy.sql.expression import TableClause

from schemas.settings import Settings
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from sinks.db.models import Base, Company, ScheduledEventRun, User
from sinks.db.scheduled import sweeps

pytestmark = pytest.mark.integration

STARTED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
GRACE = timedelta(seconds=20)


def test_runs_from_before_leases_keep_the_grace_rule(settings: Settings) -> None:
    url = settings.resolved_database_url
    upgrade(url)
    command.downgrade(alembic_config(url), "0012")
    engine = make_engine(url)
    sessions = make_sessions(engine)
    try:
        assert "lease_until" not in {c["name"] for c in inspect(engine).get_columns("scheduled_event_runs")}
        with sessions.begin() as session:
            session.execute(insert(Company).values(id="c1", name="Acme", created_at=STARTED))
            session.execute(
                insert(User).values(id="u1", company_id="c1", email="a@acme.test", created_at=STARTED)
            )
            session.execute(
                insert(_as_of_0012("scheduled_events")).values(
                    id="e1",
                    company_id="c1",
                    owner_id="u1",
                    name="e",
                    spec_json="{}",
                    action_type="INVOKE_TOOL",
                    config_json="{}",
                    enabled=True,
                    anchor_at=STARTED,
                    created_at=STARTED,
                    updated_at=STARTED,
                )
            )
            session.execute(
                insert(_as_of_0012("scheduled_event_runs")).values(
                    id="r1",
                    event_id="e1",
                    company_id="c1",
                    scheduled_for=STARTED,
                    status="RUNNING",
                    attempt=1,
                    action_type="INVOKE_TOOL",
                    queued_at=STARTED,
                    started_at=STARTED,
                )
            )
        upgrade(url)
        with sessions() as session:
            assert session.scalar(select(ScheduledEventRun.lease_until)) is None
        with sessions.begin() as session:
            assert sweeps.take_abandoned(session, STARTED + GRACE, GRACE, 10) == []
            again = sweeps.take_abandoned(session, STARTED + GRACE + timedelta(seconds=1), GRACE, 10)
        assert [tick.run_id for tick in again] == ["r1"]
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "include_object": _ours}
            )
            assert compare_metadata(context, Base.metadata) == []
    finally:
        engine.dispose()


def _ours(obj: object, name: str | None, type_: str, reflected: bool, _compare_to: object) -> bool:
    # The Iceberg SQL catalog's own tables share the database (as in the migrations' env.py).
    return not (type_ == "table" and reflected and name not in Base.metadata.tables)


def _as_of_0012(name: str) -> TableClause:
    """The table with only the columns it had at 0012: the models' later columns carry Python-side defaults
    that an INSERT through the model would name, and the downgraded table has no such columns."""
    columns = [c.name for c in Base.metadata.tables[name].columns if c.name in _COLUMNS_AT_0012[name]]
    return sql_table(name, *(sql_column(c) for c in columns))


_COLUMNS_AT_0012 = {
    "scheduled_events": {
        "id",
        "company_id",
        "owner_id",
        "name",
        "spec_json",
        "action_type",
        "config_json",
        "enabled",
        "anchor_at",
        "created_at",
        "updated_at",
    },
    "scheduled_event_runs": {
        "id",
        "event_id",
        "company_id",
        "scheduled_for",
        "status",
        "attempt",
        "action_type",
        "queued_at",
        "started_at",
    },
}
