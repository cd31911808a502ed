"""Time travel on real Iceberg tables: DuckDB reads a named snapshot (by its files or through the Iceberg
extension's ``snapshot_from_id``) with that snapshot's columns, the row filter may name a column added later,
the scan estimate counts the snapshot's own files, and the snapshots list reads the table's history."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from core.sql.model import AsOf, TableRef
from schemas.jobs import QueryPlan, ViewPlan
from sinks.iceberg.read_cache import _snapshot
from sinks.iceberg.snapshots import columns_at, list_snapshots, pin
from sinks.query_engine import QueryEngines, QueryFailed, TableSource, run_query, source_key
from sinks.scan_estimate import estimate_bytes

pytestmark = pytest.mark.unit


@pytest.fixture
def world(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """``c_one.t_sales``: two rows, then a column ``region`` added, then three more rows."""
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    catalog = SqlCatalog("t", uri=f"sqlite:///{tmp_path / 'catalog.db'}", warehouse=warehouse.as_uri())
    catalog.create_namespace("c_one")
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "customer", StringType(), required=False),
    )
    table = catalog.create_table("c_one.t_sales", schema)
    table.append(pa.table({"id": pa.array([1, 2], pa.int64()), "customer": ["bob", "ann"]}))
    with table.update_schema() as update:
        update.add_column("region", StringType())
    table.append(
        pa.table(
            {
                "id": pa.array([3, 4, 5], pa.int64()),
                "customer": ["bob", "ann", "bob"],
                "region": ["EU", "US", "EU"],
            }
        )
    )
    engines = QueryEngines(warehouse, threads=1, memory_limit="256MB")
    old, new = sorted(table.snapshots(), key=lambda s: s.sequence_number or 0)
    yield {"engines": engines, "table": table, "old": old.snapshot_id, "new": new.snapshot_id}
    engines.close()


def _view(name: str, columns: list[str], snapshot_id: int | None, **extra: Any) -> ViewPlan:
    return ViewPlan(view=name, table_id="sales", columns=columns, snapshot_id=snapshot_id, **extra)


def _sources(table: Any, views: list[ViewPlan], *, by_files: bool) -> dict[str, TableSource]:
    found = {}
    for view in views:
        snapshot = _snapshot(table, view.snapshot_id)
        files = snapshot.data_files if by_files else None
        found[source_key(view)] = TableSource(snapshot.metadata_location, files, view.snapshot_id)
    return found


def _run(world: dict[str, Any], sql: str, views: list[ViewPlan], *, by_files: bool) -> list[dict[str, Any]]:
    plan = QueryPlan(sql=sql, views=views, max_rows=100, timeout_seconds=60)
    cursor = world["engines"].cursor("c_one")
    rows: list[dict[str, Any]] = run_query(
        cursor, plan, _sources(world["table"], views, by_files=by_files)
    ).table.to_pylist()
    return rows


@pytest.mark.parametrize("by_files", [True, False])
def test_a_view_reads_the_named_snapshot_with_its_columns(world: dict[str, Any], by_files: bool) -> None:
    then = _view("sales@1#svc", ["id", "customer"], world["old"])
    rows = _run(world, 'SELECT * FROM "sales@1#svc" ORDER BY id', [then], by_files=by_files)
    assert rows == [{"id": 1, "customer": "bob"}, {"id": 2, "customer": "ann"}]


def test_the_old_snapshots_files_are_only_its_own(world: dict[str, Any]) -> None:
    old, now = _snapshot(world["table"], world["old"]), _snapshot(world["table"], None)
    # The current snapshot's first file lacks region, yet every column is in some file: files are read.
    assert old.data_files is not None and now.data_files is not None
    assert len(old.data_files) == 1 and set(old.data_files) < set(now.data_files)


@pytest.mark.parametrize("by_files", [True, False])
def test_now_and_then_are_read_side_by_side(world: dict[str, Any], by_files: bool) -> None:
    now = _view("sales#svc", ["id", "customer", "region"], None)
    then = _view("sales@2#svc", ["id", "customer"], world["old"])
    sql = (
        'SELECT n.id, o.id IS NULL AS added FROM "sales#svc" n LEFT JOIN "sales@2#svc" o ON n.id = o.id '
        "ORDER BY n.id"
    )
    rows = _run(world, sql, [now, then], by_files=by_files)
    assert [row["added"] for row in rows] == [False, False, True, True, True]


@pytest.mark.parametrize("by_files", [True, False])
def test_a_row_filter_on_a_column_added_later_reads_null_in_the_past(
    world: dict[str, Any], by_files: bool
) -> None:
    eu = _view("s#svc", ["id"], world["old"], row_filter="region = 'EU'", absent_columns=["region"])
    assert _run(world, 'SELECT id FROM "s#svc"', [eu], by_files=by_files) == []
    unset = _view("s#svc", ["id"], world["old"], row_filter="region IS NULL", absent_columns=["region"])
    assert len(_run(world, 'SELECT id FROM "s#svc"', [unset], by_files=by_files)) == 2
    bob = _view("s#svc", ["id"], world["old"], row_filter="customer = 'bob'")
    assert _run(world, 'SELECT id FROM "s#svc"', [bob], by_files=by_files) == [{"id": 1}]


def test_a_snapshot_the_table_does_not_hold_is_refused_by_duckdb(world: dict[str, Any]) -> None:
    gone = _view("g#svc", ["id"], 42)
    with pytest.raises(QueryFailed, match="snapshot"):
        _run(world, 'SELECT id FROM "g#svc"', [gone], by_files=True)


def test_the_estimate_counts_the_snapshots_own_files(world: dict[str, Any]) -> None:
    table = world["table"]
    first_files = sum(t.file.file_size_in_bytes for t in table.scan(snapshot_id=world["old"]).plan_files())
    assert estimate_bytes(table, [], world["old"]) == first_files
    assert 0 < first_files < estimate_bytes(table, [])
    # A predicate on a column the snapshot lacks is dropped, never an error.
    assert estimate_bytes(table, [("region", "=", "EU")], world["old"]) == first_files
    assert estimate_bytes(table, [("id", ">", 100)], world["old"]) == 0
    assert estimate_bytes(table, [], 42) == 0


def test_the_snapshots_list_newest_first_with_counts(world: dict[str, Any]) -> None:
    listed = list_snapshots(world["table"])
    assert [s.snapshot_id for s in listed] == [world["new"], world["old"]]
    newest, oldest = listed
    assert (newest.operation, newest.added_rows, newest.total_rows, newest.added_files) == ("APPEND", 3, 5, 1)
    assert (oldest.operation, oldest.added_rows, oldest.total_rows, oldest.added_files) == ("APPEND", 2, 2, 1)
    assert newest.committed_at >= oldest.committed_at and newest.committed_at.tzinfo is UTC


def test_pin_and_columns_follow_the_tables_history(world: dict[str, Any]) -> None:
    table = world["table"]
    oldest = list_snapshots(table)[-1]
    at_first_commit = TableRef("sales", AsOf(timestamp=oldest.committed_at))
    now = datetime.now(UTC)
    assert pin(table, at_first_commit, now) == world["old"]
    assert pin(table, TableRef("sales", AsOf(timestamp=now + timedelta(hours=1))), now) == world["new"]
    assert columns_at(table, world["old"]) == frozenset({"id", "customer"})
    assert columns_at(table, world["new"]) == frozenset({"id", "customer", "region"})
    assert columns_at(table, 42) is None
