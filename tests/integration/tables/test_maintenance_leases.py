"""The automatic maintenance's lease per table (sinks/db/analytics/table_maintenance.py,
streams/analytics/maintenance.py), on
SQLite and on PostgreSQL whatever SVC_TEST_DATABASE says: one claim wins among concurrent ones, a lease held
keeps every other worker off the table until it is released or runs out, a holder that lost its lease can
neither renew nor end the new one, and two workers' rounds on one table compact it once, rows unchanged.
Also migration 0020: the migrated schema is the models' and it goes down and up again."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic import command
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.table import Table
from sqlalchemy import inspect

from schemas.settings import Settings
from sinks.db.analytics import table_maintenance as rows
from sinks.db.analytics import tables
from sinks.db.migrate import alembic_config, upgrade
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.snapshots import COMPACT_MARK, MAINTENANCE
from streams.analytics.maintenance import TableMaintainer
from tests.fixtures import postgres
from tests.fixtures.migrations import assert_schema_matches_models
from tests.fixtures.stack import Db, make_settings, migrated
from tests.integration.tables.maintenance_helpers import COLUMNS, append, checksum, data_files

pytestmark = pytest.mark.integration

NOW = datetime.now(UTC)
LEASE = timedelta(seconds=30)


@pytest.fixture(params=["sqlite", "postgresql"])
def backend_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    data = tmp_path / "data"
    url = postgres.new_database_url() if request.param == "postgresql" else f"sqlite:///{data / 'svc.db'}"
    return make_settings(data, database_url=url, compact_small_files=4)


@dataclass
class World:
    settings: Settings
    db: Db
    catalog: SqlCatalog
    company_id: str

    def table(self) -> tuple[rows.Candidate, Table]:
        """An analytics table: its row in the metadata DB and its (MONTH-partitioned) Iceberg table."""
        table_id = uuid.uuid4().hex
        with self.db.sessions.begin() as session:
            tables.create(
                session,
                self.company_id,
                "u" * 32,
                table_id=table_id,
                sql_name=f"t_{table_id[:8]}",
                name="Events",
                description=None,
                grain=None,
                columns=[],
                partition_spec=[],
                semantics={},
            )
        handle = iceberg.create_table(self.catalog, self.company_id, table_id, COLUMNS, [("day", "MONTH")])
        return rows.Candidate(table_id, self.company_id), handle

    def claim(self, candidate: rows.Candidate, holder: str, now: datetime = NOW) -> rows.Claim | None:
        with self.db.sessions.begin() as session:
            return rows.claim(session, candidate, holder=holder, now=now, until=now + LEASE)

    def candidates(self, now: datetime = NOW) -> list[str]:
        with self.db.sessions() as session:
            return [found.table_id for found in rows.candidates(session, now, 10)]


@pytest.fixture
def world(backend_settings: Settings) -> Iterator[World]:
    with migrated(backend_settings) as db:
        company = db.create_company()
        catalog = iceberg.catalog_for(backend_settings)
        try:
            yield World(backend_settings, db, catalog, company.company_id)
        finally:
            catalog.engine.dispose()


def test_one_claim_wins_and_a_held_lease_keeps_other_workers_off(world: World) -> None:
    first, _ = world.table()
    second, _ = world.table()
    assert set(world.candidates()) == {first.table_id, second.table_id}

    # Eight workers claim the same table at once: exactly one gets it.
    won: list[str] = []
    start = threading.Barrier(8)

    def contend(holder: str) -> None:
        start.wait()
        if world.claim(first, holder) is not None:
            won.append(holder)

    contenders = [threading.Thread(target=contend, args=(f"w{n}",)) for n in range(8)]
    for thread in contenders:
        thread.start()
    for thread in contenders:
        thread.join()
    assert len(won) == 1, won
    holder = won[0]

    # While held: not a candidate, not claimable, and nobody else renews or ends it.
    assert world.candidates() == [second.table_id]
    assert world.claim(first, "intruder") is None
    with world.db.sessions.begin() as session:
        assert rows.renew(session, [first.table_id], holder="intruder", until=NOW + LEASE) == 0
        assert not rows.release(
            session, first.table_id, holder="intruder", now=NOW, compacted=True, expired=True
        )
        assert rows.renew(session, [first.table_id], holder=holder, until=NOW + 2 * LEASE) == 1
    with world.db.sessions.begin() as session:
        assert rows.release(session, first.table_id, holder=holder, now=NOW, compacted=True, expired=False)
    with world.db.sessions() as session:
        kept = rows.state(session, first.table_id)
        assert kept is not None and kept.company_id == world.company_id
        assert kept.lease_until is None and kept.lease_holder is None
        assert kept.last_compacted_at == NOW and kept.last_expired_at is None and kept.last_checked_at == NOW
    # The never-checked table first, then the oldest-checked.
    assert world.candidates() == [second.table_id, first.table_id]
    claimed = world.claim(first, "next")
    assert claimed is not None and claimed.last_expired_at is None


def test_a_lease_that_ran_out_goes_to_another_worker_and_its_old_holder_cannot_touch_it(world: World) -> None:
    table, _ = world.table()
    assert world.claim(table, "dead") is not None
    assert world.claim(table, "alive", now=NOW + LEASE / 2) is None
    later = NOW + LEASE + timedelta(seconds=1)
    assert world.candidates(later) == [table.table_id]
    assert world.claim(table, "alive", now=later) is not None
    with world.db.sessions.begin() as session:
        assert rows.renew(session, [table.table_id], holder="dead", until=later + LEASE) == 0
        assert not rows.release(
            session, table.table_id, holder="dead", now=later, compacted=True, expired=True
        )
    with world.db.sessions() as session:
        kept = rows.state(session, table.table_id)
        assert kept is not None and kept.lease_holder == "alive" and kept.last_compacted_at is None


def compactions(table: Table) -> list[int]:
    table.refresh()
    return [
        snapshot.snapshot_id
        for snapshot in table.metadata.snapshots
        if snapshot.summary is not None and snapshot.summary.get(MAINTENANCE) == COMPACT_MARK
    ]


def test_two_workers_rounds_compact_a_table_once_and_keep_its_rows(world: World) -> None:
    candidate, table = world.table()
    for commit in range(6):  # six commits of three months each: six small files per partition
        append(table, commit * 10, 10)
    before = checksum(table)
    files_before = data_files(table)

    async def scenario() -> list[int]:
        one, two = TableMaintainer(world.settings), TableMaintainer(world.settings)
        try:
            # A worker mid-maintenance holds the table: another worker's round leaves it alone.
            # (Rounds also see the tables earlier tests of the module left due: only this table is checked.)
            # Claimed as of now, not of NOW (the module's import, minutes ago in a full run: that lease would
            # have run out already, and the other round would rightly take the table).
            assert world.claim(candidate, one.holder, now=datetime.now(UTC)) is not None
            await two.round()
            assert compactions(table) == []
            with world.db.sessions.begin() as session:
                rows.release(
                    session, candidate.table_id, holder=one.holder, now=NOW, compacted=False, expired=False
                )
            return list(await asyncio.gather(one.round(), two.round()))
        finally:
            await one.on_stop()
            await two.on_stop()

    maintained = asyncio.run(scenario())
    assert sum(maintained) >= 1, maintained
    assert len(compactions(table)) == 1  # both rounds ran at once: one of them took the table
    assert checksum(table) == before
    assert data_files(table) == 3 < files_before
    with world.db.sessions() as session:
        kept = rows.state(session, candidate.table_id)
        assert kept is not None and kept.lease_until is None
        assert kept.last_compacted_at is not None and kept.last_expired_at is not None


def test_migration_0020_matches_the_model_and_goes_down_and_up(backend_settings: Settings) -> None:
    url = backend_settings.resolved_database_url
    upgrade(url)
    with migrated(backend_settings) as db:
        assert_schema_matches_models(db.engine)
        command.downgrade(alembic_config(url), "0019")
        assert "table_maintenance" not in set(inspect(db.engine).get_table_names())
        upgrade(url)
        assert "table_maintenance" in set(inspect(db.engine).get_table_names())
