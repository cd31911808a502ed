# mypy: disable-error-code="import-untyped"
"""A load's data files against a real warehouse and SQLite catalog: written while rows arrive, committed once
per job id, renumbered when their record ids were taken, deleted when the load does not commit."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.table import Table

from schemas.column_types import ColumnDef, parse_column_type
from schemas.jobs import CsvOptions, LoadPlan, LoadSource
from schemas.settings import Settings
from sinks.iceberg import catalog as cat
from sinks.iceberg import staged as staged_commit
from sinks.iceberg import writer
from sinks.iceberg.convert import rows_to_arrow
from sinks.loads import LoadFileError
from sinks.loads.convert import user_schema
from sinks.loads.job import LoadStopped, load_sources
from sinks.loads.stage import StagedFiles
from sinks.objectstore.local import LocalObjectStore
from tests.fixtures.s3 import s3_server

pytestmark = pytest.mark.integration

COMPANY = uuid.uuid4().hex
COLUMNS = [
    ColumnDef("n", parse_column_type("LONG"), nullable=False),
    ColumnDef("name", parse_column_type("STRING")),
    ColumnDef("at", parse_column_type("TIMESTAMPTZ")),
    ColumnDef("tags", parse_column_type("STRING_LIST")),
    ColumnDef("doc", parse_column_type("JSON")),
]


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[SqlCatalog]:
    catalog = cat.make_catalog(f"sqlite:///{tmp_path / 'meta.db'}", str(tmp_path / "warehouse"))
    yield catalog
    catalog.engine.dispose()


def new_table(catalog: SqlCatalog, spec: list[tuple[str, str]] | None = None) -> Table:
    return cat.create_table(catalog, COMPANY, uuid.uuid4().hex, COLUMNS, spec or [])


def rows(first: int, count: int) -> pa.Table:
    """User columns as a load converts them (no system columns)."""
    data = [
        {
            "n": i,
            "name": f"r{i}",
            "at": f"2026-{1 + i % 3:02d}-05T10:00:00Z",
            "tags": ["a", f"t{i}"],
            "doc": {"i": i},
        }
        for i in range(first, first + count)
    ]
    converted = rows_to_arrow(COLUMNS, data, load_id="x", first_record_id=0).table
    return converted.select([c.name for c in COLUMNS]).cast(user_schema(COLUMNS))


def stage(table: Table, load_id: str, parts: list[pa.Table], **limits: Any) -> StagedFiles:
    staged = StagedFiles(table, load_id, writer.next_record_id(table), **limits)
    for part in parts:
        staged.add(part)
    return staged


def stored(table: Table) -> list[tuple[int, int, str]]:
    """(n, _record_id, _load_id) of every row, by record id."""
    table.refresh()
    data = table.scan(selected_fields=("n", "_record_id", "_load_id")).to_arrow().sort_by("_record_id")
    return list(zip(*(data.column(c).to_pylist() for c in ("n", "_record_id", "_load_id")), strict=True))


def data_files_on_disk(table: Table) -> set[str]:
    folder = Path(table.location().removeprefix("file://")) / "data"
    return {str(path) for path in folder.rglob("*.parquet")} if folder.exists() else set()


def commit(table: Table, staged: StagedFiles, *, replace: bool = False) -> staged_commit.StagedOutcome:
    return staged_commit.commit_staged(table, staged.finish(), replace=replace, renumber=staged.renumber)


def test_rows_are_written_in_chunks_and_committed_once_in_order(catalog: SqlCatalog) -> None:
    table = new_table(catalog)
    load = uuid.uuid4().hex
    staged = stage(table, load, [rows(0, 5), rows(5, 9), rows(14, 1), rows(15, 20)], chunk_rows=6)
    outcome = commit(table, staged)
    assert outcome.applied and outcome.staged.rows == 35 and outcome.staged.first_record_id == 1
    assert len(outcome.staged.data_files) == 2  # one rolling file per writing thread
    assert stored(table) == [(i, i + 1, load) for i in range(35)]
    back = table.scan(row_filter="n = 7").to_arrow().to_pylist()
    assert back[0]["tags"] == ["a", "t7"] and back[0]["doc"] == '{"i":7}'
    assert writer.committed_load_ids(table) == {load}
    again = stage(table, load, [rows(0, 3)])
    assert not commit(table, again).applied  # exactly once per load id
    again.discard()
    assert len(stored(table)) == 35
    assert data_files_on_disk(table) == {
        f.file_path.removeprefix("file://") for f in outcome.staged.data_files
    }


def test_taken_record_ids_are_moved_past_the_rows_committed_meanwhile(catalog: SqlCatalog) -> None:
    table = new_table(catalog)
    load, other = uuid.uuid4().hex, uuid.uuid4().hex
    staged = stage(table, load, [rows(0, 4), rows(4, 4), rows(8, 2)], chunk_rows=4)
    first_files = {f.file_path for f in staged.finish().data_files}
    writer.append(table, [(other, rows(100, 3))])  # takes record ids 1 to 3
    outcome = staged_commit.commit_staged(table, staged.finish(), replace=False, renumber=staged.renumber)
    assert outcome.applied
    first = 4 + staged_commit.RENUMBER_HEADROOM
    assert outcome.staged.first_record_id == first
    ids = [record_id for _, record_id, _ in stored(table)]
    assert ids == [1, 2, 3, *range(first, first + 10)]
    assert [n for n, _, load_id in stored(table) if load_id == load] == list(range(10))
    assert not first_files & {f.file_path for f in outcome.staged.data_files}
    assert all(not Path(path.removeprefix("file://")).exists() for path in first_files)
    writer.append(table, [(uuid.uuid4().hex, rows(200, 1))])
    assert stored(table)[-1][1] == first + 10  # the next write carries on after the load


def test_replace_swaps_the_rows_in_one_commit(catalog: SqlCatalog) -> None:
    table = new_table(catalog)
    writer.append(table, [(uuid.uuid4().hex, rows(0, 4))])
    before = len(table.metadata.metadata_log)
    load = uuid.uuid4().hex
    outcome = commit(table, stage(table, load, [rows(50, 3)]), replace=True)
    assert outcome.applied
    assert [n for n, _, _ in stored(table)] == [50, 51, 52]
    assert len(table.metadata.metadata_log) == before + 1
    assert load in writer.committed_op_ids(table)
    assert not commit(table, stage(table, load, [rows(60, 1)]), replace=True).applied


def test_replace_into_an_empty_table_and_with_no_rows(catalog: SqlCatalog) -> None:
    table = new_table(catalog)
    assert commit(table, stage(table, uuid.uuid4().hex, [rows(0, 2)]), replace=True).applied
    emptied = commit(table, stage(table, uuid.uuid4().hex, []), replace=True)
    assert emptied.applied and emptied.staged.data_files == ()
    assert stored(table) == []


def test_a_partitioned_table_gets_files_per_partition(catalog: SqlCatalog) -> None:
    table = new_table(catalog, [("at", "MONTH")])
    load = uuid.uuid4().hex
    outcome = commit(table, stage(table, load, [rows(0, 30), rows(30, 30)], chunk_rows=16))
    assert outcome.applied
    assert {f.partition[0] for f in outcome.staged.data_files} == {672, 673, 674}  # months since 1970
    assert stored(table) == [(i, i + 1, load) for i in range(60)]
    assert table.scan(row_filter="at >= '2026-03-01T00:00:00+00:00'").to_arrow().num_rows == 20


def test_discard_deletes_every_file_written(catalog: SqlCatalog) -> None:
    table = new_table(catalog)
    staged = stage(table, uuid.uuid4().hex, [rows(0, 40)], chunk_rows=8)
    staged.finish()
    assert data_files_on_disk(table)
    staged.discard()
    assert data_files_on_disk(table) == set()
    assert table.current_snapshot() is None


def test_a_writing_failure_reaches_the_loading_thread(catalog: SqlCatalog) -> None:
    table = new_table(catalog)
    staged = StagedFiles(table, uuid.uuid4().hex, 1, chunk_rows=1)
    staged.add(rows(0, 1).append_column("extra", pa.array([1])))
    with pytest.raises(ValueError, match="columns the table does not have"):
        staged.finish()
    staged.discard()
    assert data_files_on_disk(table) == set()


# The whole load: sources read from the object store, staged, committed


@pytest.fixture
def store(tmp_path: Path) -> LocalObjectStore:
    return LocalObjectStore(tmp_path / "objects", "svc-local")


def source(store: LocalObjectStore, name: str, data: bytes) -> LoadSource:
    key = f"uploads/{COMPANY}/{name}"
    store.put_bytes(key, data)
    return LoadSource(uri=store.uri(key), key=key, size=len(data))


def plan(*sources: LoadSource, fmt: str = "CSV", mode: str = "APPEND") -> LoadPlan:
    return LoadPlan.model_validate(
        {"sources": sources, "format": fmt, "mode": mode, "csv": CsvOptions().model_dump()}
    )


def csv_text(first: int, count: int) -> bytes:
    lines = "".join(
        f'{i},"r{i}\nsecond line",2026-01-0{1 + i % 9}T10:00:00Z\n' for i in range(first, first + count)
    )
    return ("n,name,at\n" + lines).encode()


def test_a_load_runs_again_without_adding_rows(catalog: SqlCatalog, store: LocalObjectStore) -> None:
    table = new_table(catalog)
    job = uuid.uuid4().hex
    work = plan(source(store, "a.csv", csv_text(0, 500)), source(store, "b.csv", csv_text(500, 20)))
    first = load_sources(store, table, work, job, COLUMNS, None, threading.Event())
    files = data_files_on_disk(table)
    again = load_sources(store, table, work, job, COLUMNS, None, threading.Event())
    assert (first.rows_loaded, again.rows_loaded, first.rows_rejected) == (520, 520, 0)
    assert stored(table) == [(i, i + 1, job) for i in range(520)]
    assert data_files_on_disk(table) == files
    name = table.scan(row_filter="n = 3").to_arrow().column("name").to_pylist()
    assert name == ["r3\nsecond line"]


def test_a_failing_load_leaves_the_table_and_no_files(catalog: SqlCatalog, store: LocalObjectStore) -> None:
    table = new_table(catalog)
    load_sources(
        store,
        table,
        plan(source(store, "a.csv", csv_text(0, 5))),
        uuid.uuid4().hex,
        COLUMNS,
        None,
        threading.Event(),
    )
    head, files = table.current_snapshot(), data_files_on_disk(table)
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({"n": list(range(100))}), sink)
    good = source(store, "good.parquet", sink.getvalue().to_pybytes())
    broken = source(store, "broken.parquet", b"PAR1 not parquet PAR1")
    with pytest.raises(LoadFileError, match=r"broken\.parquet"):
        load_sources(
            store,
            table,
            plan(good, broken, fmt="PARQUET"),
            uuid.uuid4().hex,
            COLUMNS,
            None,
            threading.Event(),
        )
    table.refresh()
    assert table.current_snapshot() == head
    assert data_files_on_disk(table) == files


def test_a_cancelled_load_leaves_no_files(catalog: SqlCatalog, store: LocalObjectStore) -> None:
    table = new_table(catalog)
    stop = threading.Event()
    stop.set()
    with pytest.raises(LoadStopped):
        load_sources(
            store, table, plan(source(store, "a.csv", csv_text(0, 50))), uuid.uuid4().hex, COLUMNS, None, stop
        )
    assert table.current_snapshot() is None
    assert data_files_on_disk(table) == set()


@pytest.fixture
def s3_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[SqlCatalog, Any]]:
    """A catalog whose warehouse is a bucket of moto's S3 server, and an S3 client on it."""
    import boto3

    with s3_server(monkeypatch, "lake", "load-test-secret") as endpoint:
        client = boto3.client("s3", endpoint_url=endpoint)
        settings = Settings(data_dir=tmp_path, warehouse="s3://lake/w", s3_endpoint=endpoint)
        properties = cat.storage_properties(settings)
        catalog = cat.make_catalog(f"sqlite:///{tmp_path / 'meta.db'}", "s3://lake/w", **properties)
        yield catalog, client
        catalog.engine.dispose()


def test_files_on_an_s3_warehouse_are_committed_renumbered_and_discarded(
    s3_catalog: tuple[SqlCatalog, Any],
) -> None:
    catalog, client = s3_catalog
    table = new_table(catalog)

    def keys() -> set[str]:
        listed = client.list_objects_v2(Bucket="lake", Prefix="w/").get("Contents", [])
        return {item["Key"] for item in listed if item["Key"].endswith(".parquet")}

    parts = [rows(0, 4), rows(4, 4), rows(8, 2)]
    dropped = stage(table, uuid.uuid4().hex, parts, chunk_rows=4)
    dropped.finish()
    assert len(keys()) == 2
    dropped.discard()
    assert keys() == set()
    load = uuid.uuid4().hex
    staged = stage(table, load, parts, chunk_rows=4)
    writer.append(table, [(uuid.uuid4().hex, rows(100, 2))])
    outcome = commit(table, staged)
    assert outcome.applied and outcome.staged.first_record_id == 3 + staged_commit.RENUMBER_HEADROOM
    assert [n for n, _, load_id in stored(table) if load_id == load] == list(range(10))
    assert {f"w/{f.file_path.split('/w/', 1)[1]}" for f in outcome.staged.data_files} <= keys()
