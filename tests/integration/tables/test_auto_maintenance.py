"""Automatic maintenance on the real stack (ingress, embedded broker, `svc worker` subprocess, metadata DB): a
table fed by many small appends through the API is compacted by the worker on its own, the compaction
commit changes no row (the snapshot before it and the compaction snapshot hold the same rows, system
columns included), every appended row is there once, and the worker logs one line for the table without
a secret in it. The interval and the small-file threshold are set low here, for this test only."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyiceberg.table import Table

from schemas.settings import Settings
from sinks.db.analytics import table_maintenance as rows
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.snapshots import COMPACT_MARK, MAINTENANCE
from tests.fixtures.processes import json_log
from tests.fixtures.stack import Db
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker, worker_env
from tests.integration.tables.test_maintain_http import EVENTS, totals
from tests.integration.tables.test_maintain_http import rows as event_rows

pytestmark = pytest.mark.integration

APPENDS = 8
THRESHOLD = 4  # more than four small files in one month partition: five appends


class MaintainingWorker(Worker):
    def env(self) -> dict[str, str]:
        return worker_env(self.settings) | {
            "SVC_MAINTENANCE_INTERVAL_SECONDS": "1",
            "SVC_COMPACT_SMALL_FILES": str(THRESHOLD),
        }


@pytest.fixture
def maintaining_worker(kafka_settings: Settings, ingress_db: Db, tmp_path: Path) -> Iterator[Worker]:
    running = MaintainingWorker(kafka_settings, tmp_path / "worker.log")
    running.start()
    yield running
    running.stop()


def snapshot_digest(table: Table, snapshot_id: int) -> tuple[int, str]:
    """Row count and a digest of every row of the snapshot (system columns too), whatever the file order."""
    found = sorted(
        repr(sorted(r.items())) for r in table.scan(snapshot_id=snapshot_id).to_arrow().to_pylist()
    )
    return len(found), hashlib.sha256("\n".join(found).encode()).hexdigest()


def snapshot_files(table: Table, snapshot_id: int) -> int:
    return len(list(table.scan(snapshot_id=snapshot_id).plan_files()))


def first_compaction(table: Table) -> Any:
    table.refresh()
    for snapshot in table.metadata.snapshots:
        if snapshot.summary is not None and snapshot.summary.get(MAINTENANCE) == COMPACT_MARK:
            return snapshot
    return None


def wait_for(check: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.3)
    raise AssertionError(f"{what} within {timeout:.0f} s")


def test_a_table_of_many_small_appends_is_compacted_by_the_worker_on_its_own(
    tables_world: Tables, maintaining_worker: Worker, kafka_settings: Settings
) -> None:
    table_id = tables_world.create(EVENTS)
    for batch in range(APPENDS):
        answer = tables_world.analytics("append-rows", table_id, {"rows": event_rows(batch * 10, 10)})
        assert answer.status_code == 200, answer.text
        tables_world.wait_rows(table_id, min((batch + 1) * 10, 100))

    catalog = iceberg.catalog_for(kafka_settings)
    try:
        table = iceberg.load_table(catalog, tables_world.company_id, table_id)
        compaction = wait_for(lambda: first_compaction(table), 90, "the worker compacted the table")
        parent = compaction.parent_snapshot_id
        assert parent is not None
        # Rows identical across the compaction commit; fewer files after it.
        assert snapshot_digest(table, parent) == snapshot_digest(table, compaction.snapshot_id)
        assert snapshot_files(table, compaction.snapshot_id) < snapshot_files(table, parent)
    finally:
        catalog.engine.dispose()

    expected = list(range(APPENDS * 10))
    assert totals(tables_world, table_id) == {"n": len(expected), "d": len(expected), "s": sum(expected)}

    lines = wait_for(
        lambda: [
            entry
            for entry in json_log(maintaining_worker.log_path)
            if entry.get("msg") == "table maintained" and entry.get("table_id") == table_id
        ],
        30,
        "the worker logged the table's maintenance",
    )
    assert any("COMPACT" in line["actions"] for line in lines), lines
    text = maintaining_worker.log_path.read_text(errors="replace")
    for secret in (tables_world.admin_power, tables_world.admin_client, kafka_settings.secret_key):
        assert secret not in text

    with tables_world.db.sessions() as session:
        state = rows.state(session, table_id)
        assert state is not None and state.company_id == tables_world.company_id
        assert state.last_compacted_at is not None and state.last_expired_at is not None
