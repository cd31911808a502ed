"""Table maintenance on a real local warehouse and SQLite catalog (sinks/iceberg/maintenance.py): the rows
are the same after compaction, appends committed meanwhile are neither lost nor doubled, expiry and orphan
removal delete only files nothing needs, and a dry run changes nothing."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyiceberg.catalog.sql import SqlCatalog

from schemas.maintenance import MaintenanceAction
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.maintenance import maintain
from sinks.iceberg.snapshots import list_snapshots
from tests.integration.tables.maintenance_helpers import (
    COMPANY,
    LIMITS,
    TABLE,
    append,
    checksum,
    data_files,
    later,
    make_table,
)

pytestmark = pytest.mark.integration

ALL = list(MaintenanceAction)
COMPACT = [MaintenanceAction.COMPACT]
DAY_S = 86_400


def files_on_disk(root: Path) -> set[str]:
    return {str(path) for path in root.rglob("*") if path.is_file()}


def table_root(catalog: SqlCatalog) -> Path:
    table = iceberg.load_table(catalog, COMPANY, TABLE)
    return Path(table.location().removeprefix("file://"))


def test_compaction_rewrites_small_files_in_one_replace_commit_with_the_same_rows(
    catalog: SqlCatalog,
) -> None:
    table = make_table(catalog)
    for n in range(12):
        append(table, n * 10, 10)
    before = checksum(table)
    assert data_files(table) == 36
    snapshots_before = len(table.metadata.snapshots)

    report = maintain(table, COMPACT, LIMITS, now=datetime.now(UTC), dry_run=False)

    assert (report.files_before, report.files_after, report.more_to_compact) == (36, 3, False)
    assert checksum(table) == before
    assert data_files(table) == 3
    assert len(table.metadata.snapshots) == snapshots_before + 1
    newest = list_snapshots(table)[0]
    assert (newest.operation, newest.total_rows) == ("REPLACE", 120)
    # The next append numbers its rows after the last one, as before.
    append(table, 1000, 1)
    ids = sorted(table.scan(selected_fields=("_record_id",)).to_arrow().column(0).to_pylist())
    assert ids == list(range(1, 122))
    # The new file joins its month's compacted file on the next call; nothing else is left to do.
    again = maintain(table, COMPACT, LIMITS, now=datetime.now(UTC), dry_run=False)
    assert (again.files_before, again.files_after) == (4, 3)


def test_the_per_call_file_cap_leaves_the_rest_for_the_next_call(catalog: SqlCatalog) -> None:
    table = make_table(catalog)
    for n in range(8):
        append(table, n * 10, 10)
    before = checksum(table)
    capped = replace(LIMITS, max_files=6)
    first = maintain(table, COMPACT, capped, now=datetime.now(UTC), dry_run=False)
    assert first.more_to_compact and first.files_before - first.files_after == 6 - 1
    while maintain(table, COMPACT, capped, now=datetime.now(UTC), dry_run=False).more_to_compact:
        pass
    assert checksum(table) == before and data_files(table) == 3


def test_appends_committed_while_compaction_runs_are_neither_lost_nor_doubled(
    catalog: SqlCatalog, tmp_path: Path
) -> None:
    table = make_table(catalog)
    for n in range(10):
        append(table, n * 10, 10)
    stop = threading.Event()
    appended: list[int] = []
    failures: list[BaseException] = []

    def keep_appending() -> None:
        # Its own catalog and table handle, as the table writer in the worker has.
        other = iceberg.make_catalog(f"sqlite:///{tmp_path / 'meta.db'}", str(tmp_path / "warehouse"))
        handle = iceberg.load_table(other, COMPANY, TABLE)
        try:
            batch = 0
            while not stop.is_set() or batch < 20:
                append(handle, 10_000 + batch * 5, 5)
                appended.append(batch)
                batch += 1
                # The table writer commits a table's appends once per commit interval (1 s by default).
                time.sleep(0.2)
        except BaseException as error:
            failures.append(error)
        finally:
            other.engine.dispose()

    writer_thread = threading.Thread(target=keep_appending)
    writer_thread.start()
    compactions = 0
    deadline = time.monotonic() + 120
    while (compactions < 2 or len(appended) < 20) and time.monotonic() < deadline:
        report = maintain(table, COMPACT, LIMITS, now=datetime.now(UTC), dry_run=False)
        compactions += report.files_after < report.files_before
    stop.set()
    writer_thread.join(timeout=120)
    assert not failures, failures
    assert compactions >= 1
    table.refresh()
    rows = table.scan(selected_fields=("id", "_record_id")).to_arrow().to_pylist()
    expected = list(range(100)) + [10_000 + b * 5 + n for b in appended for n in range(5)]
    assert sorted(row["id"] for row in rows) == sorted(expected)
    assert len({row["_record_id"] for row in rows}) == len(rows)
    operations = [snapshot.operation for snapshot in list_snapshots(table)]
    assert "REPLACE" in operations and "APPEND" in operations


def test_a_dry_run_reports_and_changes_nothing(catalog: SqlCatalog) -> None:
    table = make_table(catalog)
    for n in range(6):
        append(table, n * 10, 10)
    root = table_root(catalog)
    stray = root / "data" / "stray.parquet"
    stray.write_bytes(b"x" * 100)
    for path in root.rglob("*"):
        os.utime(path, (time.time() - 4 * DAY_S, time.time() - 4 * DAY_S))
    on_disk = files_on_disk(root)
    location = table.metadata_location

    report = maintain(table, ALL, LIMITS, now=later(8), dry_run=True)

    assert (report.files_before, report.files_after) == (18, 3)
    assert report.snapshots_expired == 5 and report.orphans_removed == 1
    assert report.bytes_reclaimed >= 100
    table.refresh()
    assert table.metadata_location == location and files_on_disk(root) == on_disk


def test_expiry_drops_snapshots_past_the_retention_and_the_files_only_they_named(catalog: SqlCatalog) -> None:
    table = make_table(catalog)
    for n in range(5):
        append(table, n * 10, 10)
    maintain(table, COMPACT, LIMITS, now=datetime.now(UTC), dry_run=False)
    before = checksum(table)
    root = table_root(catalog)
    replaced = {str(p) for p in (root / "data").rglob("*.parquet")}
    table.refresh()
    live = {f.removeprefix("file://") for f in table.inspect.data_files().column("file_path").to_pylist()}

    # Within the retention nothing expires.
    assert maintain(table, ALL, LIMITS, now=later(6), dry_run=False).snapshots_expired == 0
    report = maintain(table, [MaintenanceAction.EXPIRE_SNAPSHOTS], LIMITS, now=later(8), dry_run=False)

    assert report.snapshots_expired == 5 and report.bytes_reclaimed > 0
    table.refresh()
    assert len(table.metadata.snapshots) == 1
    assert checksum(table) == before
    left = {str(p) for p in (root / "data").rglob("*.parquet")}
    assert left == live and live < replaced


def test_orphans_older_than_the_minimum_age_are_removed_and_nothing_else(catalog: SqlCatalog) -> None:
    table = make_table(catalog)
    for n in range(3):
        append(table, n * 10, 10)
    before = checksum(table)
    root = table_root(catalog)
    old = time.time() - 4 * DAY_S
    for path in root.rglob("*"):
        os.utime(path, (old, old))  # every file of the table is old: age alone must not remove it
    killed_load = root / "data" / "day_month=2026-01" / "00000-0-killed.parquet"
    killed_load.write_bytes(b"p" * 1000)
    os.utime(killed_load, (old, old))
    in_flight = root / "data" / "00000-0-in-flight.parquet"
    in_flight.write_bytes(b"q" * 10)  # just written: a commit may be about to name it
    kept = files_on_disk(root) - {str(killed_load)}

    report = maintain(table, [MaintenanceAction.REMOVE_ORPHANS], LIMITS, now=datetime.now(UTC), dry_run=False)

    assert (report.orphans_removed, report.bytes_reclaimed) == (1, 1000)
    assert files_on_disk(root) == kept
    assert checksum(table) == before
