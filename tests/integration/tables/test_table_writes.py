"""Accepted appends in the metadata DB: the Arrow form, the JSON form of older appends, and the migration."""

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from alembic import command
from sqlalchemy import inspect, text

from schemas.column_types import ColumnDef, parse_column_type
from schemas.settings import Settings
from sinks.db.analytics import tables
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from sinks.db.models import TableWrite
from sinks.iceberg.convert import from_ipc, rows_to_arrow, to_ipc
from streams.analytics.tables import append_batch, write_payload
from tests.fixtures.stack import Db

pytestmark = pytest.mark.integration

COLUMNS: list[dict[str, Any]] = [
    {"name": "n", "type": "LONG", "nullable": False, "masked": False},
    {"name": "email", "type": "STRING", "nullable": True, "masked": True},
]
DEFINITIONS = [
    ColumnDef("n", parse_column_type("LONG"), nullable=False),
    ColumnDef("email", parse_column_type("STRING"), masked=True),
]
NOW = datetime(2026, 11, 24, 12, tzinfo=UTC)


def make_table(db: Db) -> tuple[str, str]:
    company = db.create_company()
    with db.sessions.begin() as session:
        table = tables.create(
            session,
            company.company_id,
            company.user_id,
            table_id="a" * 32,
            sql_name="events",
            name="Events",
            description=None,
            grain=None,
            columns=COLUMNS,
            partition_spec=[],
            semantics={},
        )
        return table.id, table.company_id


def add_arrow_append(db: Db, table_id: str, company_id: str, write_id: str) -> bytes:
    converted = rows_to_arrow(
        DEFINITIONS, [{"n": 1, "email": "a@x"}], load_id=write_id, first_record_id=0, encrypt=str.upper
    )
    stored = to_ipc(converted.table)
    with db.sessions.begin() as session:
        tables.add_append(
            session,
            write_id=write_id,
            table_id=table_id,
            company_id=company_id,
            rows=stored,
            row_count=1,
            now=NOW,
        )
    return stored


def test_an_append_waits_as_arrow_and_is_cleared_once_committed(db: Db) -> None:
    table_id, company_id = make_table(db)
    stored = add_arrow_append(db, table_id, company_id, "b" * 32)
    with db.sessions() as session:
        [write] = tables.pending_writes(session, table_id, ["b" * 32])
        assert (write.kind, write.status, write.row_count) == ("APPEND", "PENDING", 1)
        assert write_payload(write) == stored
    assert from_ipc(stored).to_pylist() == [{"n": 1, "email": "A@X"}]

    with db.sessions.begin() as session:
        tables.mark_committed(session, ["b" * 32], NOW)
    with db.sessions() as session:
        write = session.get_one(TableWrite, "b" * 32)
        assert (write.status, write.payload_rows, write.payload_json) == ("COMMITTED", None, "null")
        assert tables.pending_writes(session, table_id, ["b" * 32]) == []


def test_a_failed_append_keeps_its_rows_and_says_why(db: Db) -> None:
    table_id, company_id = make_table(db)
    stored = add_arrow_append(db, table_id, company_id, "c" * 32)
    with db.sessions.begin() as session:
        tables.mark_failed(session, ["c" * 32], "no such table", NOW)
    with db.sessions() as session:
        write = session.get_one(TableWrite, "c" * 32)
        assert (write.status, write.error_message, write.payload_rows) == ("FAILED", "no such table", stored)


def test_an_append_pending_across_the_upgrade_is_still_committed_from_json(settings: Settings) -> None:
    """Appends accepted before 0008 hold their rows as sent; the writer converts and encrypts them."""
    url = settings.resolved_database_url
    upgrade(url, "0007")
    engine = make_engine(url)
    try:
        db = Db(engine=engine, sessions=make_sessions(engine))
        table_id, company_id = make_table(db)
        rows = [{"n": 1, "email": "a@x"}, {"n": "2"}]
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO table_writes (id, table_id, company_id, kind, payload_json, row_count, "
                    "status, created_at, dispatched_at) VALUES (:id, :table, :company, 'APPEND', :rows, 2, "
                    "'PENDING', :now, :now)"
                ),
                {
                    "id": "d" * 32,
                    "table": table_id,
                    "company": company_id,
                    "rows": json.dumps(rows),
                    "now": "2026-11-24 12:00:00.000000",  # SQLAlchemy's SQLite text for NOW
                },
            )
        upgrade(url)
        with db.sessions() as session:
            [write] = tables.pending_writes(session, table_id, ["d" * 32])
            payload = write_payload(write)
        assert payload == json.dumps(rows)
        converted = append_batch(DEFINITIONS, payload, "d" * 32, str.upper)
        assert converted.select(["n", "email"]).to_pylist() == [
            {"n": 1, "email": "A@X"},
            {"n": 2, "email": None},
        ]
    finally:
        engine.dispose()


def test_downgrade_waits_for_the_arrow_appends(db: Db, settings: Settings) -> None:
    table_id, company_id = make_table(db)
    add_arrow_append(db, table_id, company_id, "e" * 32)
    config = alembic_config(settings.resolved_database_url)
    with pytest.raises(RuntimeError, match="1 accepted appends are still waiting"):
        command.downgrade(config, "0007")
    with db.sessions.begin() as session:
        tables.mark_committed(session, ["e" * 32], NOW)
    command.downgrade(config, "0007")
    names = [column["name"] for column in inspect(db.engine).get_columns("table_writes")]
    assert "payload_rows" not in names and "payload_json" in names
