"""The DuckDB side of query jobs on real Iceberg tables: views, the lock-down, truncation, interrupts, and
the scan estimate's pruning."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import MonthTransform
from pyiceberg.types import DateType, LongType, NestedField, StringType

from schemas.jobs import QueryPlan, ViewPlan
from sinks.query_engine import (
    QueryEngines,
    QueryFailed,
    QueryInterrupted,
    TableSource,
    local_path,
    run_query,
)
from sinks.scan_estimate import estimate_bytes, to_expression


@pytest.fixture
def world(tmp_path: Path) -> Iterator[dict[str, Any]]:
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    catalog = SqlCatalog("t", uri=f"sqlite:///{tmp_path / 'catalog.db'}", warehouse=warehouse.as_uri())
    catalog.create_namespace("c_one")
    catalog.create_namespace("c_two")
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "region", StringType(), required=False),
        NestedField(3, "day", DateType(), required=False),
    )
    spec = PartitionSpec(PartitionField(3, 1000, MonthTransform(), "day_month"))
    mine = catalog.create_table("c_one.t_sales", schema, partition_spec=spec)
    for month in range(1, 4):
        mine.append(
            pa.table(
                {
                    "id": pa.array(range(month * 100, month * 100 + 50), pa.int64()),
                    "region": ["north", "south"] * 25,
                    "day": [date(2024, month, 1 + i % 28) for i in range(50)],
                }
            )
        )
    theirs = catalog.create_table("c_two.t_secret", schema)
    theirs.append(pa.table({"id": pa.array([1], pa.int64()), "region": ["x"], "day": [date(2024, 1, 1)]}))
    engines = QueryEngines(warehouse, threads=1, memory_limit="256MB")
    yield {"engines": engines, "mine": mine, "theirs": theirs}
    engines.close()


def plan_of(sql: str, *, row_filter: str | None = None, max_rows: int = 1000) -> QueryPlan:
    view = ViewPlan(
        view="sales#svc", table_id="sales", columns=["id", "region", "day"], row_filter=row_filter
    )
    return QueryPlan(sql=sql, views=[view], max_rows=max_rows, timeout_seconds=60)


def metadata(world: dict[str, Any]) -> dict[str, TableSource]:
    return {"sales": TableSource(local_path(str(world["mine"].metadata_location)))}


def test_a_query_reads_its_view_with_the_row_filter(world: dict[str, Any]) -> None:
    cursor = world["engines"].cursor("c_one")
    plan = plan_of('SELECT count(*) AS n FROM "sales#svc"', row_filter="region = 'north'")
    output = run_query(cursor, plan, metadata(world))
    assert output.table.to_pylist() == [{"n": 75}]
    assert not output.truncated


def test_rows_over_max_rows_are_cut_and_flagged(world: dict[str, Any]) -> None:
    cursor = world["engines"].cursor("c_one")
    output = run_query(cursor, plan_of('SELECT id FROM "sales#svc" ORDER BY id', max_rows=7), metadata(world))
    assert output.table.column("id").to_pylist() == [100, 101, 102, 103, 104, 105, 106]
    assert output.truncated


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM glob('/*')",
        "SET enable_external_access = true",
        "SELECT * FROM iceberg_scan('{other}')",
    ],
)
def test_the_lock_down_refuses_files_settings_and_other_companies(world: dict[str, Any], sql: str) -> None:
    cursor = world["engines"].cursor("c_one")
    other = local_path(str(world["theirs"].metadata_location))
    with pytest.raises(QueryFailed):
        run_query(cursor, plan_of(sql.format(other=other)), metadata(world))


def test_views_are_private_to_their_cursor(world: dict[str, Any]) -> None:
    engines = world["engines"]
    run_query(engines.cursor("c_one"), plan_of('SELECT 1 FROM "sales#svc"'), metadata(world))
    bare = QueryPlan(sql='SELECT * FROM "sales#svc"', views=[], max_rows=10, timeout_seconds=60)
    with pytest.raises(QueryFailed):
        run_query(engines.cursor("c_one"), bare, {})


def test_an_interrupt_stops_a_running_query(world: dict[str, Any]) -> None:
    cursor = world["engines"].cursor("c_one")
    slow = plan_of("SELECT count(*) FROM range(100000000000) a")
    threading.Timer(0.3, cursor.interrupt).start()
    started = time.monotonic()
    with pytest.raises(QueryInterrupted):
        run_query(cursor, slow, metadata(world))
    assert time.monotonic() - started < 30


def test_a_runtime_error_is_reported(tmp_path: Path) -> None:
    engines = QueryEngines(tmp_path, threads=1, memory_limit="64MB")
    try:
        plan = QueryPlan(sql="SELECT CAST('x' AS INTEGER)", views=[], max_rows=10, timeout_seconds=60)
        with pytest.raises(QueryFailed, match="Conversion Error"):
            run_query(engines.cursor("c_empty"), plan, {})
    finally:
        engines.close()


def test_the_estimate_prunes_partitions(world: dict[str, Any]) -> None:
    table = world["mine"]
    everything = estimate_bytes(table, [])
    january = estimate_bytes(table, [("day", ">=", date(2024, 1, 1)), ("day", "<", date(2024, 2, 1))])
    assert 0 < january < everything
    assert estimate_bytes(table, [("day", "=", date(2030, 1, 1))]) == 0
    # A predicate on an unknown column or with an unusable value only widens the bound.
    assert estimate_bytes(table, [("nope", "=", 1)]) == everything


def test_predicates_become_iceberg_expressions() -> None:
    expression = to_expression(
        [("id", "in", [1, 2]), ("region", "!=", "x"), ("id", "~", 3), ("gone", "=", 1)], {"id", "region"}
    )
    text = repr(expression)
    assert "In" in text and "NotEqualTo" in text and "gone" not in text


def test_data_files_and_the_iceberg_reader_agree(world: dict[str, Any], tmp_path: Path) -> None:
    from sinks.iceberg.read_cache import _snapshot

    table = world["mine"]
    snapshot = _snapshot(table)
    assert snapshot.data_files is not None and len(snapshot.data_files) == 3
    sql = 'SELECT region, count(*) AS n, min(day) AS first FROM "sales#svc" GROUP BY 1 ORDER BY 1'
    by_files = TableSource(
        local_path(snapshot.metadata_location), tuple(map(local_path, snapshot.data_files))
    )
    engines = world["engines"]
    direct = run_query(engines.cursor("c_one"), plan_of(sql), {"sales": by_files}).table
    through_iceberg = run_query(engines.cursor("c_one"), plan_of(sql), metadata(world)).table
    assert direct.to_pylist() == through_iceberg.to_pylist()
    # One schema ever: the files are read by the first one's columns, and answer the same.
    uniform = replace(by_files, uniform=True)
    assert snapshot.uniform and "union_by_name = false" in uniform.sql()
    assert run_query(engines.cursor("c_one"), plan_of(sql), {"sales": uniform}).table.to_pylist() == (
        through_iceberg.to_pylist()
    )
    with table.update_schema() as update:
        update.add_column("late", StringType())
    table.refresh()
    assert _snapshot(table).data_files is None  # a column no file has: only Iceberg's reader fills it
    table.append(
        pa.table(
            {
                "id": pa.array([99], pa.int64()),
                "region": ["late"],
                "day": [date(2024, 3, 1)],
                "late": ["yes"],
            }
        )
    )
    widened = _snapshot(table)
    # Every column is in some file again, but the files differ: they are unified by name.
    assert widened.data_files is not None and not widened.uniform
