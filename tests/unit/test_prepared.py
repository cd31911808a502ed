"""sinks/db/prepared.py: statements compiled once and run on the driver's cursor behave as
Connection.execute."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, create_engine, exc, select
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Engine

from sinks.db.models import UTCDateTime
from sinks.db.prepared import Prepared

_META = MetaData()
_ROWS = Table(
    "rows",
    _META,
    Column("id", Integer, primary_key=True),
    Column("name", String(20), nullable=False),
    Column("at", UTCDateTime()),
)
_AT = datetime(2026, 11, 26, 12, 30, 15, 123456, tzinfo=UTC)
_INSERT = Prepared(
    sqlite.insert(_ROWS)
    .values(id=bindparam("id"), name=bindparam("name"), at=bindparam("at"))
    .on_conflict_do_nothing()
    .returning(_ROWS.c.id)
)
_BETWEEN = Prepared(
    select(_ROWS.c.id, _ROWS.c.name)
    .where(
        _ROWS.c.at > bindparam("after"),
        _ROWS.c.at <= bindparam("until"),
        _ROWS.c.name == bindparam("name"),
    )
    .order_by(_ROWS.c.id)
)


@pytest.fixture
def engine() -> Engine:
    made = create_engine("sqlite://")
    _META.create_all(made)
    return made


def test_values_are_stored_as_the_orm_stores_them(engine: Engine) -> None:
    with engine.begin() as connection:
        assert _INSERT.rows(connection, {"id": 1, "name": "a", "at": _AT}) == [(1,)]
        connection.execute(_ROWS.insert().values(id=2, name="a", at=_AT))
        stored = connection.execute(select(_ROWS.c.at).where(_ROWS.c.id == 1)).scalar_one()
        raw = connection.exec_driver_sql("SELECT at FROM rows ORDER BY id").all()
    assert stored == _AT  # read back through the type: aware UTC, microseconds kept
    assert raw[0] == raw[1]  # the same text as SQLAlchemy's own insert


def test_binds_are_passed_in_the_statements_order_whatever_the_mappings_order(engine: Engine) -> None:
    with engine.begin() as connection:
        for number in range(1, 6):
            _INSERT.rows(connection, {"at": _AT + timedelta(minutes=number), "name": "n", "id": number})
        window = {"until": _AT + timedelta(minutes=4), "name": "n", "after": _AT + timedelta(minutes=1)}
        found = _BETWEEN.rows(connection, window)
    assert found == [(2, "n"), (3, "n"), (4, "n")]


def test_a_statement_without_rows_answers_an_empty_list(engine: Engine) -> None:
    with engine.begin() as connection:
        _INSERT.rows(connection, {"id": 1, "name": "a", "at": _AT})
        assert _INSERT.rows(connection, {"id": 1, "name": "b", "at": _AT}) == []  # the conflict did nothing


def test_it_runs_in_the_connections_transaction(engine: Engine) -> None:
    with engine.connect() as connection:
        transaction = connection.begin()
        _INSERT.rows(connection, {"id": 7, "name": "a", "at": _AT})
        window = {"after": _AT - timedelta(1), "until": _AT, "name": "a"}
        assert _BETWEEN.rows(connection, window) == [(7, "a")]
        transaction.rollback()
        assert _BETWEEN.rows(connection, window) == []


def test_a_driver_error_is_raised_as_sqlalchemys_with_its_values_hidden(engine: Engine) -> None:
    with engine.begin() as connection, pytest.raises(exc.IntegrityError) as raised:
        _INSERT.rows(connection, {"id": 1, "name": None, "at": _AT})  # NOT NULL
    assert "NOT NULL" in str(raised.value)
    assert "hidden" in str(raised.value)


def test_a_naive_datetime_is_refused_as_the_orm_refuses_it(engine: Engine) -> None:
    with engine.begin() as connection, pytest.raises(ValueError, match="naive"):
        _INSERT.rows(connection, {"id": 1, "name": "a", "at": _AT.replace(tzinfo=None)})


def test_each_dialect_is_compiled_once(engine: Engine) -> None:
    prepared = Prepared(select(_ROWS.c.id).where(_ROWS.c.id == bindparam("id")))
    with engine.connect() as connection:
        prepared.rows(connection, {"id": 1})
        first = prepared.bound(connection.dialect, {"id": 1})
        assert prepared.bound(connection.dialect, {"id": 2}) == (first[0], (2,))
        assert len(prepared._by_dialect) == 1
