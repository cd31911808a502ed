"""Migration 0023: the day's query scans become one counter per company and UTC day
(read_charges.query_bytes), started from the sum of today's query jobs, beside the reads already charged;
earlier days are left out. The migrated schema is the models' (SQLite and PostgreSQL alike), and it goes
down."""

import time
from datetime import UTC, date, datetime, timedelta

import pytest
from alembic import command
from sqlalchemy import Date, column, insert, inspect, select, table, text
from sqlalchemy.orm import Session

from schemas.jobs import JobKind
from schemas.settings import Settings
from sinks.db.analytics import jobs, read_charges
from sinks.db.company_lock import lock_company
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from sinks.db.models import AnalyticsTable, Company, Job, ReadCharge, User
from tests.fixtures.migrations import assert_schema_matches_models

pytestmark = pytest.mark.integration


def _companies(session: Session, ids: tuple[str, ...], now: datetime) -> None:
    """Each company with its user ``u-<id>`` and its table ``t-<id>``."""
    for company in ids:
        session.execute(insert(Company).values(id=company, name=company, created_at=now))
        session.execute(
            insert(User).values(id=f"u-{company}", company_id=company, email=f"{company}@acme.test")
        )
        session.execute(
            insert(AnalyticsTable).values(
                id=f"t-{company}",
                company_id=company,
                sql_name="orders",
                name="Orders",
                columns_json="[]",
                created_by=f"u-{company}",
            )
        )


def _job(job_id: str, company_id: str, kind: str, scanned: int, created: datetime) -> dict[str, object]:
    return {
        "id": job_id,
        "company_id": company_id,
        "table_id": f"t-{company_id}",
        "kind": kind,
        "state": "SUCCEEDED",
        "created_by": f"u-{company_id}",
        "bytes_scanned": scanned,
        "created_at": created,
    }


def test_todays_query_scans_become_a_counter(settings: Settings) -> None:
    left = 86_400 - time.time() % 86_400
    if left < 30:  # the jobs of "today" and the upgrade must fall on one UTC day
        time.sleep(left + 0.5)
    now = datetime.now(UTC)
    today = now.date()
    url = settings.resolved_database_url
    upgrade(url)
    command.downgrade(alembic_config(url), "0022")
    engine = make_engine(url)
    sessions = make_sessions(engine)
    try:
        assert "query_bytes" not in {c["name"] for c in inspect(engine).get_columns("read_charges")}
        with sessions.begin() as session:
            _companies(session, ("c1", "c2"), now)
            session.execute(
                insert(Job),
                [
                    _job("a", "c1", "QUERY", 100, now),
                    _job("b", "c1", "QUERY", 20, now),
                    _job("c", "c1", "QUERY", 5_000, now - timedelta(days=2)),  # another day: not counted
                    _job("d", "c1", "LOAD", 7_000, now),  # loads have their own allowance
                    _job("e", "c2", "QUERY", 3, now),
                ],
            )
            # c1's preview reads already charged today stay as they are.
            charges = table("read_charges", column("company_id"), column("day", Date()), column("bytes_read"))
            session.execute(insert(charges).values(company_id="c1", day=today, bytes_read=9))
        upgrade(url)
        with sessions() as session:
            rows = session.execute(
                select(ReadCharge.company_id, ReadCharge.day, ReadCharge.bytes_read, ReadCharge.query_bytes)
            ).all()
            assert sorted(rows) == [("c1", today, 9, 120), ("c2", today, 0, 3)]
            midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
            assert jobs.scanned_since(session, "c1", midnight) == 129
            assert jobs.scanned_since(session, "c1", midnight - timedelta(days=3)) == 129
        assert_schema_matches_models(engine)
        command.downgrade(alembic_config(url), "0022")
        assert "query_bytes" not in {c["name"] for c in inspect(engine).get_columns("read_charges")}
        upgrade(url)
    finally:
        engine.dispose()


def test_a_recorded_query_counts_its_estimate_on_its_day(settings: Settings) -> None:
    """Through the job's own record: two queries of one company in one transaction, one of another."""
    url = settings.resolved_database_url
    upgrade(url)
    engine = make_engine(url)
    sessions = make_sessions(engine)
    now = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    try:
        with sessions.begin() as session:
            _companies(session, ("k1", "k2"), now)
        with sessions.begin() as session:
            for job_id, company, size in (("q1", "k1", 10), ("q2", "k1", 5), ("q3", "k2", 7)):
                jobs.create(
                    session,
                    job_id=job_id,
                    company_id=company,
                    table_id=f"t-{company}",
                    table_ids=[f"t-{company}"],
                    kind=JobKind.QUERY,
                    created_by=f"u-{company}",
                    sql="SELECT 1",
                    plan="{}",
                    bytes_scanned=size,
                    now=now,
                )
        with sessions() as session:
            day = datetime(2026, 3, 4, tzinfo=UTC)
            assert jobs.scanned_since(session, "k1", day) == 15
            assert jobs.scanned_since(session, "k2", day) == 7
            assert jobs.scanned_since(session, "k1", day + timedelta(days=1)) == 0
            assert session.get(ReadCharge, ("k1", date(2026, 3, 4))) is not None
    finally:
        engine.dispose()


def test_a_query_is_counted_while_a_preview_holds_the_company_lock(settings: Settings) -> None:
    """PostgreSQL: the company lock (FOR NO KEY UPDATE) lets a group commit insert the day's counter row that
    references the company; under FOR UPDATE the two waited on each other (a deadlock once the preview's
    charge inserted the same row)."""
    url = settings.resolved_database_url
    if not url.startswith("postgresql"):
        pytest.skip("SQLite has one writer at a time by design")
    upgrade(url)
    engine = make_engine(url)
    sessions = make_sessions(engine)
    now = datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC)
    try:
        with sessions.begin() as session:
            _companies(session, ("p1",), now)
        with sessions.begin() as holder:
            lock_company(holder, "p1")
            with sessions.begin() as other:
                other.execute(text("SET LOCAL lock_timeout = '5s'"))  # blocked: fails instead of hanging
                jobs.create(
                    other,
                    job_id="q9",
                    company_id="p1",
                    table_id="t-p1",
                    table_ids=["t-p1"],
                    kind=JobKind.QUERY,
                    created_by="u-p1",
                    sql="SELECT 1",
                    plan="{}",
                    bytes_scanned=11,
                    now=now,
                )
            read_charges.charge(holder, "p1", 4, now=now, allowance=1000)
        with sessions() as session:
            assert jobs.scanned_since(session, "p1", datetime(2026, 5, 6, tzinfo=UTC)) == 15
    finally:
        engine.dispose()
