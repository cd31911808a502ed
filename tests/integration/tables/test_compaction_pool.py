"""An append commits while a compaction's file reads cannot go on (issue 26, "never block appends").

pyiceberg runs the parallel part of every table operation on one pool per process; a compaction handed its
2,000 small files to it at once and an append commit of another thread queued behind them for seconds
(bench/bench_maintenance.py). The compaction now works on a pool of its own (sinks/iceberg/work_pools.py).
Here that pool is held (every thread blocked) while a compaction starts: the compaction waits, and appends on
the same table, from the same process, still commit; once the pool is free the compaction lands and every
row is kept exactly once. Real local warehouse, real SQLite catalog."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyiceberg.catalog.sql import SqlCatalog

from schemas.maintenance import MaintenanceAction
from sinks.iceberg import catalog as iceberg
from sinks.iceberg import maintenance
from sinks.iceberg.work_pools import WORKERS, Kind, pool_in_use, separate_pool
from tests.integration.tables.maintenance_helpers import (
    COMPANY,
    LIMITS,
    TABLE,
    append,
    checksum,
    data_files,
    make_table,
)

pytestmark = pytest.mark.integration
GUARD_SECONDS = 60  # a liveness guard only: a stuck thread fails the test instead of hanging it


def test_appends_commit_while_the_compaction_pool_is_held(catalog: SqlCatalog, tmp_path: Path) -> None:
    table = make_table(catalog)
    for n in range(20):
        append(table, n * 10, 10)
    files_before = data_files(table)
    release = threading.Event()
    started = threading.Barrier(WORKERS + 1)

    def hold() -> None:
        started.wait(GUARD_SECONDS)
        release.wait(GUARD_SECONDS)

    with separate_pool(Kind.MAINTENANCE):
        held = [pool_in_use().submit(hold) for _ in range(WORKERS)]
    started.wait(GUARD_SECONDS)  # every thread of the compaction's pool is taken
    reports: list[maintenance.Report] = []
    compaction = threading.Thread(
        target=lambda: reports.append(
            maintenance.maintain(
                iceberg.load_table(catalog, COMPANY, TABLE),
                [MaintenanceAction.COMPACT],
                LIMITS,
                now=datetime.now(UTC),
                dry_run=False,
            )
        )
    )
    compaction.start()
    try:
        other = iceberg.make_catalog(f"sqlite:///{tmp_path / 'meta.db'}", str(tmp_path / "warehouse"))
        handle = iceberg.load_table(other, COMPANY, TABLE)
        for n in range(3):
            append(handle, 1_000 + n * 10, 10)  # on the old code these waited behind the compaction's reads
        assert compaction.is_alive(), "the compaction did not wait for its pool"
        assert not reports
    finally:
        release.set()
        compaction.join(GUARD_SECONDS)
        for future in held:
            future.result(GUARD_SECONDS)
    assert not compaction.is_alive()
    assert reports and reports[0].commit_attempts >= 1
    count, _ = checksum(table)
    assert count == 230
    assert data_files(table) < files_before
