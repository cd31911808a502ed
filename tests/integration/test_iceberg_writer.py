# mypy: disable-error-code="import-untyped"
"""Iceberg storage core against a real warehouse and SQLite catalog, read back by pyiceberg and DuckDB."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.table import Table

from schemas.column_types import ColumnDef, parse_column_type
from sinks.iceberg import catalog as cat
from sinks.iceberg import writer
from sinks.iceberg.convert import rows_to_arrow
from sinks.iceberg.exceptions import InvalidSchema, TableExists, TableNotFound
from sinks.iceberg.masking import Masker
from sinks.iceberg.results import MASK_TEXT, result_columns, to_json_rows

pytestmark = pytest.mark.integration

COMPANY = uuid.uuid4().hex


def col(name: str, type_text: str, nullable: bool = True, masked: bool = False) -> ColumnDef:
    return ColumnDef(name, parse_column_type(type_text), nullable, masked)


EVENTS = [
    col("event", "STRING", nullable=False),
    col("at", "TIMESTAMPTZ", nullable=False),
    col("amount", "DECIMAL(10,2)"),
    col("count", "INT"),
    col("big", "LONG"),
    col("ratio", "DOUBLE"),
    col("ok", "BOOLEAN"),
    col("day", "DATE"),
    col("local", "TIMESTAMP"),
    col("tags", "STRING_LIST"),
    col("doc", "JSON"),
]


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[SqlCatalog]:
    catalog = cat.make_catalog(f"sqlite:///{tmp_path / 'meta.db'}", str(tmp_path / "warehouse"))
    yield catalog
    catalog.engine.dispose()


def new_table(
    catalog: SqlCatalog, columns: list[ColumnDef], spec: list[tuple[str, str]] | None = None
) -> Table:
    return cat.create_table(catalog, COMPANY, uuid.uuid4().hex, columns, spec or [])


def converted(columns: list[ColumnDef], rows: list[dict[str, Any]], **kwargs: Any) -> pa.Table:
    result = rows_to_arrow(columns, rows, load_id="pending", first_record_id=0, **kwargs)
    assert result.errors == []
    return result.table


def event_rows(count: int, start: int = 0, month: int = 1) -> list[dict[str, Any]]:
    return [
        {
            "event": f"e{i}",
            "at": f"2026-{month:02d}-{1 + i % 28:02d}T10:00:00.{i % 1000:06d}Z",
            "amount": f"{i}.25",
            "count": i,
            "big": str(2**53 + i),
            "ratio": i / 4,
            "ok": i % 2 == 0,
            "day": "2024-02-29",
            "local": "2026-11-22 10:00:00",
            "tags": ["a", f"t{i}"],
            "doc": {"n": i, "nested": [1, "ü"]},
        }
        for i in range(start, start + count)
    ]


def extension(package: str, name: str) -> str:
    found = sorted(Path(str(resources.files(package))).glob(f"extensions/*/{name}.duckdb_extension"))
    assert found, f"{package} ships no {name}.duckdb_extension (is the wheel installed?)"
    return str(found[-1])


def duckdb_rows(table: Table, sql: str = "SELECT * FROM t ORDER BY _record_id") -> list[tuple[Any, ...]]:
    with duckdb.connect() as con:
        # The iceberg extension needs avro; both come from their PyPI wheels, nothing is downloaded.
        con.execute(f"LOAD '{extension('duckdb_extension_avro', 'avro')}'")
        con.execute(f"LOAD '{extension('duckdb_extension_iceberg', 'iceberg')}'")
        con.execute("SET TimeZone='UTC'")
        con.execute(f"CREATE VIEW t AS SELECT * FROM iceberg_scan('{table.metadata_location}')")  # noqa: S608
        return con.execute(sql).fetchall()


def test_create_load_drop(catalog: SqlCatalog) -> None:
    table_id = uuid.uuid4().hex
    table = cat.create_table(catalog, COMPANY, table_id, EVENTS, [("at", "MONTH")])
    assert table.name() == (f"c_{COMPANY}", f"t_{table_id}")
    assert cat.table_columns(cat.load_table(catalog, COMPANY, table_id)) == EVENTS
    assert [f.name for f in table.schema().fields][-2:] == ["_load_id", "_record_id"]
    with pytest.raises(TableExists):
        cat.create_table(catalog, COMPANY, table_id, EVENTS)
    cat.drop_table(catalog, COMPANY, table_id)
    with pytest.raises(TableNotFound):
        cat.load_table(catalog, COMPANY, table_id)
    with pytest.raises(TableNotFound):
        cat.drop_table(catalog, COMPANY, table_id)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ([("nope", "MONTH")], "unknown column"),
        ([("at", "WEEK")], "unknown partition transform"),
        ([("event", "MONTH")], "cannot apply"),
        ([("tags", "IDENTITY")], "cannot apply"),
        ([("count", "BUCKET[0]")], "between 1 and"),
        ([("at", "MONTH"), ("at", "month")], "repeats"),
    ],
)
def test_bad_partition_specs_are_invalid_schema(
    catalog: SqlCatalog, spec: list[tuple[str, str]], message: str
) -> None:
    with pytest.raises(InvalidSchema, match=message):
        new_table(catalog, EVENTS, spec)


def test_every_transform_is_accepted(catalog: SqlCatalog) -> None:
    spec = [
        ("at", "DAY"),
        ("local", "HOUR"),
        ("day", "YEAR"),
        ("count", "BUCKET[8]"),
        ("event", "TRUNCATE[2]"),
    ]
    table = new_table(catalog, EVENTS, [*spec, ("ok", "IDENTITY")])
    assert [f.name for f in table.spec().fields][:2] == ["at_day", "local_hour"]
    writer.append(table, [(uuid.uuid4().hex, converted(EVENTS, event_rows(20)))])
    assert len(duckdb_rows(table)) == 20


def test_same_load_id_twice_is_written_once(catalog: SqlCatalog) -> None:
    table = new_table(catalog, EVENTS)
    load = uuid.uuid4().hex
    data = converted(EVENTS, event_rows(5))
    first = writer.append(table, [(load, data)])
    again = writer.append(table, [(load, data)])
    assert (first.committed_load_ids, first.rows, first.first_record_id) == ((load,), 5, 1)
    assert (again.committed_load_ids, again.skipped_load_ids, again.rows) == ((), (load,), 0)
    # A fresh process (empty ledger cache) reads the same answer from the snapshot summaries.
    writer._LEDGER._decoded.clear()
    assert writer.append(cat.load_table(catalog, COMPANY, table.name()[1][2:]), [(load, data)]).rows == 0
    assert table.scan().to_arrow().num_rows == 5


def test_batches_skip_committed_and_duplicate_ids(catalog: SqlCatalog) -> None:
    table = new_table(catalog, EVENTS)
    a, b, c = (uuid.uuid4().hex for _ in range(3))
    writer.append(table, [(a, converted(EVENTS, event_rows(2)))])
    outcome = writer.append(
        table,
        [
            (a, converted(EVENTS, event_rows(2))),
            (b, converted(EVENTS, event_rows(3, start=2))),
            (b, converted(EVENTS, event_rows(3, start=2))),
            (c, converted(EVENTS, event_rows(1, start=5))),
        ],
    )
    assert outcome.committed_load_ids == (b, c)
    assert outcome.skipped_load_ids == (a,)
    assert (outcome.rows, outcome.first_record_id) == (4, 3)
    rows = duckdb_rows(table, "SELECT _load_id, count(*) FROM t GROUP BY 1 ORDER BY 2")
    assert sorted(rows) == sorted([(a, 2), (b, 3), (c, 1)])
    assert writer.committed_load_ids(table) == {a, b, c}


def test_partitioned_table_reads_back_exactly_in_duckdb(catalog: SqlCatalog) -> None:
    table = new_table(catalog, EVENTS, [("at", "MONTH")])
    loads = [
        (uuid.uuid4().hex, converted(EVENTS, event_rows(40, start=40 * m, month=m + 1))) for m in range(3)
    ]
    for load in loads:
        writer.append(table, [load])
    assert len(table.inspect.files()) >= 3
    got = duckdb_rows(table, "SELECT event, amount, big, tags, day, _record_id FROM t ORDER BY _record_id")
    assert [r[5] for r in got] == list(range(1, 121))
    expected = [(f"e{i}", Decimal(f"{i}.25"), 2**53 + i, ["a", f"t{i}"]) for i in range(120)]
    assert [r[:4] for r in got] == expected
    february = duckdb_rows(
        table, "SELECT count(*) FROM t WHERE \"at\" >= '2026-02-01' AND \"at\" < '2026-03-01'"
    )
    assert february == [(40,)]


def test_values_round_trip_to_result_json(catalog: SqlCatalog) -> None:
    table = new_table(catalog, EVENTS)
    writer.append(table, [(uuid.uuid4().hex, converted(EVENTS, event_rows(1, start=3)))])
    data = table.scan().to_arrow()
    columns = result_columns(data.schema, {c.name: c for c in EVENTS})
    (row,) = to_json_rows(data, columns)
    assert row == {
        "event": "e3",
        "at": "2026-01-04T10:00:00.000003Z",
        "amount": "3.25",
        "count": 3,
        "big": str(2**53 + 3),
        "ratio": 0.75,
        "ok": False,
        "day": "2024-02-29",
        "local": "2026-11-22T10:00:00.000000Z",
        "tags": ["a", "t3"],
        "doc": {"n": 3, "nested": [1, "ü"]},
        "_load_id": row["_load_id"],
        "_record_id": 1,
    }


def test_masked_column_is_stored_encrypted(catalog: SqlCatalog) -> None:
    columns = [col("email", "STRING", masked=True), col("n", "INT")]
    table = new_table(catalog, columns)
    masker = Masker("a-test-secret-of-enough-length")
    data = converted(columns, [{"email": "ada@example.com", "n": 1}], encrypt=masker.encryptor(COMPANY))
    writer.append(table, [(uuid.uuid4().hex, data)])
    (stored,) = duckdb_rows(table, "SELECT email FROM t")
    assert stored[0].startswith("v1:") and "ada" not in stored[0]
    scanned = table.scan(selected_fields=("email", "n")).to_arrow()
    shape = result_columns(scanned.schema, {c.name: c for c in columns})
    assert to_json_rows(scanned, shape) == [{"email": MASK_TEXT, "n": 1}]
    revealed = to_json_rows(scanned, shape, reveal=True, decrypt=masker.decryptor(COMPANY))
    assert revealed == [{"email": "ada@example.com", "n": 1}]


def test_delete_by_predicate_once_per_op_id(catalog: SqlCatalog) -> None:
    table = new_table(catalog, EVENTS)
    writer.append(table, [(uuid.uuid4().hex, converted(EVENTS, event_rows(10)))])
    first = writer.delete_rows(table, "count >= 7", "op-delete-1")
    assert (first.applied, first.rows_removed) == (True, 3)
    writer.append(table, [(uuid.uuid4().hex, converted(EVENTS, event_rows(2, start=8)))])
    again = writer.delete_rows(table, "count >= 7", "op-delete-1")
    assert (again.applied, again.rows_removed) == (False, 0)
    assert sorted(r[0] for r in duckdb_rows(table, "SELECT count FROM t")) == [0, 1, 2, 3, 4, 5, 6, 8, 9]
    nothing = writer.delete_rows(table, "count = 1000", "op-delete-2")
    assert (nothing.applied, nothing.rows_removed) == (True, 0)
    assert "op-delete-2" in writer.committed_op_ids(table)


def test_overwrite_keeps_record_ids_and_numbers_new_rows(catalog: SqlCatalog) -> None:
    table = new_table(catalog, EVENTS)
    writer.append(table, [(uuid.uuid4().hex, converted(EVENTS, event_rows(5)))])

    def bump(matched: pa.Table) -> pa.Table:
        updated = matched.set_column(
            matched.schema.get_field_index("count"), "count", pc.add(matched.column("count"), 100)
        )
        inserted = converted(EVENTS, event_rows(1, start=50)).drop_columns(["_record_id", "_load_id"])
        return pa.concat_tables([updated, inserted], promote_options="permissive")

    outcome = writer.overwrite_rows(table, "_record_id = 2", bump, "op-update-1")
    assert (outcome.applied, outcome.rows_removed, outcome.rows_written) == (True, 1, 2)
    assert writer.overwrite_rows(table, "_record_id = 2", bump, "op-update-1").applied is False
    rows = duckdb_rows(table, "SELECT _record_id, count, _load_id FROM t ORDER BY _record_id")
    assert [(r[0], r[1]) for r in rows] == [(1, 0), (2, 101), (3, 2), (4, 3), (5, 4), (6, 50)]
    assert rows[-1][2] == "op-update-1"
    assert writer.next_record_id(table) == 7


def test_commit_race_is_retried_without_doubling(
    catalog: SqlCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(catalog, EVENTS)
    rival = cat.load_table(catalog, COMPANY, table.name()[1][2:])
    shared, mine, theirs = (uuid.uuid4().hex for _ in range(3))
    data = converted(EVENTS, event_rows(3))
    raced = threading.Event()
    original = table.refresh

    def refresh_then_lose_the_race() -> Table:
        refreshed = original()
        if not raced.is_set():
            raced.set()  # the rival commits after our check and before our commit
            writer.append(rival, [(shared, data), (theirs, data)])
        return refreshed

    monkeypatch.setattr(table, "refresh", refresh_then_lose_the_race)
    outcome = writer.append(table, [(shared, data), (mine, data)])
    assert outcome.attempts == 2
    assert (outcome.committed_load_ids, outcome.skipped_load_ids) == ((mine,), (shared,))
    ids = [r[0] for r in duckdb_rows(table, "SELECT _record_id FROM t ORDER BY 1")]
    assert ids == list(range(1, 10))


def test_concurrent_writers_lose_and_double_nothing(catalog: SqlCatalog) -> None:
    table = new_table(catalog, EVENTS)
    table_id = table.name()[1][2:]
    loads = [uuid.uuid4().hex for _ in range(12)]
    data = converted(EVENTS, event_rows(4))
    errors: list[BaseException] = []

    def run(order: Callable[[list[str]], list[str]]) -> None:
        handle = cat.load_table(catalog, COMPANY, table_id)
        try:
            for load in order(loads):
                writer.append(handle, [(load, data)])
        except BaseException as error:  # reported to the test thread below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(o,)) for o in (list, lambda x: list(reversed(x)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    table.refresh()
    rows = duckdb_rows(table, "SELECT _load_id, count(*), count(DISTINCT _record_id) FROM t GROUP BY 1")
    assert sorted(rows) == sorted((load, 4, 4) for load in loads)
    ids = [r[0] for r in duckdb_rows(table, "SELECT _record_id FROM t ORDER BY 1")]
    assert ids == list(range(1, 49))


def test_schema_changes_are_safe_widenings_only(catalog: SqlCatalog) -> None:
    table = new_table(catalog, EVENTS)
    old_batch = converted(EVENTS, event_rows(2))
    cat.add_column(table, col("note", "STRING"))
    cat.widen_column(table, "count", "LONG")
    cat.widen_column(table, "amount", "DECIMAL(12,2)")
    with pytest.raises(InvalidSchema, match="not a safe widening"):
        cat.widen_column(table, "amount", "DECIMAL(12,3)")
    with pytest.raises(InvalidSchema, match="not a safe widening"):
        cat.widen_column(table, "ratio", "LONG")
    with pytest.raises(InvalidSchema, match="already exists"):
        cat.add_column(table, col("note", "STRING"))
    with pytest.raises(InvalidSchema, match="must be nullable"):
        cat.add_column(table, col("other", "STRING", nullable=False))
    # Rows converted before the change still append: widened types cast, the new column is null.
    writer.append(table, [(uuid.uuid4().hex, old_batch)])
    columns = cat.table_columns(table)
    assert [str(c.type) for c in columns if c.name in ("count", "amount", "note")] == [
        "DECIMAL(12,2)",
        "LONG",
        "STRING",
    ]
    assert duckdb_rows(table, "SELECT count, note FROM t ORDER BY count") == [(0, None), (1, None)]


def test_next_record_id_after_a_foreign_commit(catalog: SqlCatalog) -> None:
    table = new_table(catalog, EVENTS)
    writer.append(table, [(uuid.uuid4().hex, converted(EVENTS, event_rows(3)))])
    batch = converted(EVENTS, event_rows(1)).drop_columns(["_record_id"])
    foreign = writer._conform(batch.append_column("_record_id", pa.array([41])), table.schema().as_arrow())
    table.append(foreign)  # no svc summary: the next id comes from the files' upper bounds
    assert writer.next_record_id(table) == 42
    outcome = writer.append(table, [(uuid.uuid4().hex, converted(EVENTS, event_rows(1)))])
    assert outcome.first_record_id == 42


def test_expiry_bounds_snapshots_and_keeps_the_data(
    catalog: SqlCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = new_table(catalog, EVENTS)
    data = converted(EVENTS, event_rows(1))
    loads = [uuid.uuid4().hex for _ in range(12)]
    for load in loads[:6]:
        writer.append(table, [(load, data)])
    assert writer.expire_snapshots(table, keep_last=3, min_age=timedelta(0)) == 3
    assert len(table.metadata.snapshots) == 3
    # The window moved: the newest three loads are still recognised, the rows all remain.
    assert writer.committed_load_ids(table) == set(loads[3:6])
    assert duckdb_rows(table, "SELECT count(*) FROM t") == [(6,)]
    monkeypatch.setattr(writer, "SNAPSHOTS_KEPT", 4)
    monkeypatch.setattr(writer, "_EXPIRE_EVERY", 2)
    monkeypatch.setattr(writer, "SNAPSHOTS_MIN_AGE", timedelta(0))
    for load in loads[6:]:
        writer.append(table, [(load, data)])
    assert len(table.metadata.snapshots) <= 6
    assert duckdb_rows(table, "SELECT count(*), count(DISTINCT _record_id) FROM t") == [(12, 12)]


def test_a_foreign_table_gets_pyiceberg_blind_retries_switched_off(catalog: SqlCatalog) -> None:
    table = new_table(catalog, EVENTS)
    with table.transaction() as transaction:
        transaction.set_properties({"commit.retry.num-retries": "4"})
    writer.append(table, [(uuid.uuid4().hex, converted(EVENTS, event_rows(1)))])
    assert table.properties["commit.retry.num-retries"] == "0"


@pytest.mark.parametrize(
    "ids",
    [[], [uuid.uuid4().hex for _ in range(3000)], ["exec-1:attempt-2", "ü", "a,b"], [uuid.uuid4().hex, "x"]],
)
def test_id_lists_round_trip_compactly(ids: list[str]) -> None:
    encoded = writer.encode_ids(ids)
    assert writer.decode_ids(encoded) == set(ids)
    if ids and all(len(i) == 32 for i in ids):
        assert len(encoded) < 23 * len(ids)
