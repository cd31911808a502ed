"""Space comes back: a SQLite file is in incremental auto-vacuum mode from its creation, or from migration
0026 for a file made before it, and `sinks.db.space.reclaim` shrinks it after deletions, a bounded number of
pages a call. On PostgreSQL reclaim does nothing and the migration is a no-op."""

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Engine

from schemas.settings import Settings
from sinks.db import space
from sinks.db.engine import JOURNAL_SIZE_LIMIT_BYTES, make_engine, make_sessions
from sinks.db.migrate import alembic_config, upgrade
from sinks.db.models import Company
from tests.fixtures.migrations import assert_schema_matches_models

pytestmark = pytest.mark.integration

ROWS = 3_000
NAME_BYTES = 190  # companies.name is a String(200): wide rows, so the table spans hundreds of pages


def _sqlite_file(settings: Settings) -> Path:
    url = settings.resolved_database_url
    if not url.startswith("sqlite:///"):
        pytest.skip("SQLite's own file: PostgreSQL's autovacuum is the server's")
    return Path(url.removeprefix("sqlite:///"))


def _on_disk(path: Path) -> int:
    """The main file's size once the WAL is copied into it and emptied (a checkpoint cuts the file's end)."""
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


def _auto_vacuum(path: Path) -> int:
    with closing(sqlite3.connect(path)) as connection:
        return int(connection.execute("PRAGMA auto_vacuum").fetchone()[0])


def _fill_and_empty(engine: Engine) -> None:
    sessions = make_sessions(engine)
    with sessions.begin() as session:
        session.execute(
            insert(Company),
            [{"id": f"c{index:07d}", "name": f"{index:07d}".ljust(NAME_BYTES, "x")} for index in range(ROWS)],
        )
    with sessions.begin() as session:
        session.execute(delete(Company).where(Company.id.like("c%")))


def _reclaim_all(engine: Engine, max_pages: int) -> list[int]:
    """Calls of reclaim, each in its own transaction, until one gives back fewer pages than asked."""
    sessions = make_sessions(engine)
    given: list[int] = []
    while True:
        with sessions.begin() as session:
            given.append(space.reclaim(session, max_pages))
        if given[-1] < max_pages or len(given) > 1_000:
            return given


def test_a_new_file_shrinks_after_deletions(settings: Settings) -> None:
    path = _sqlite_file(settings)
    upgrade(settings.resolved_database_url)
    assert _auto_vacuum(path) == space.INCREMENTAL
    engine = make_engine(settings.resolved_database_url)
    try:
        with engine.connect() as connection:  # the WAL is cut back after a checkpoint that copies it all
            limit = connection.exec_driver_sql("PRAGMA journal_size_limit").scalar()
            assert limit == JOURNAL_SIZE_LIMIT_BYTES
        empty = _on_disk(path)
        _fill_and_empty(engine)
        full = _on_disk(path)
        assert full > empty + ROWS * NAME_BYTES // 2  # the deletions alone gave nothing back
        given = _reclaim_all(engine, max_pages=50)
        assert len(given) > 2 and all(pages <= 50 for pages in given)  # bounded per call
        after = _on_disk(path)
        assert after < full - ROWS * NAME_BYTES // 2
        assert after <= empty + 16 * 4096
        with make_sessions(engine)() as session:  # the rest of the file is intact
            assert session.scalars(select(Company.id)).all() == []
    finally:
        engine.dispose()


def test_a_file_made_before_0026_is_converted(settings: Settings) -> None:
    """As main created it: WAL mode set first (which fixes the file's vacuum mode), then the schema."""
    path = _sqlite_file(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
    url = settings.resolved_database_url
    upgrade(url, "0025")
    assert _auto_vacuum(path) == 0
    engine = make_engine(url)
    try:
        with make_sessions(engine).begin() as session:
            session.execute(insert(Company).values(id="kept", name="Kept"))
        with make_sessions(engine).begin() as session:  # not converted yet: nothing to give back
            assert space.reclaim(session) == 0
        upgrade(url)
        assert _auto_vacuum(path) == space.INCREMENTAL
        with make_sessions(engine)() as session:
            assert session.scalars(select(Company.name)).all() == ["Kept"]
        assert_schema_matches_models(engine)
        with closing(sqlite3.connect(path)) as connection:
            assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        _fill_and_empty(engine)
        full = _on_disk(path)
        _reclaim_all(engine, max_pages=space.RECLAIM_PAGES)
        assert _on_disk(path) < full - ROWS * NAME_BYTES // 2
        command.downgrade(alembic_config(url), "0025")
        upgrade(url)
        assert _auto_vacuum(path) == space.INCREMENTAL
    finally:
        engine.dispose()


def test_postgresql_needs_nothing(settings: Settings) -> None:
    url = settings.resolved_database_url
    if not url.startswith("postgresql"):
        pytest.skip("PostgreSQL's side")
    upgrade(url)
    command.downgrade(alembic_config(url), "0025")
    upgrade(url)
    engine = make_engine(url)
    try:
        _fill_and_empty(engine)
        with make_sessions(engine).begin() as session:
            assert space.reclaim(session) == 0
        assert_schema_matches_models(engine)
    finally:
        engine.dispose()


def test_reclaim_refuses_no_pages(settings: Settings) -> None:
    upgrade(settings.resolved_database_url)
    engine = make_engine(settings.resolved_database_url)
    try:
        with make_sessions(engine)() as session, pytest.raises(ValueError, match="at least 1"):
            space.reclaim(session, 0)
    finally:
        engine.dispose()
