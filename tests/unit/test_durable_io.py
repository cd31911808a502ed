# mypy: disable-error-code="import-untyped"
"""The tables' FileIO fsyncs every file of a commit, and the directories they went into, before the catalog's
pointer names them (sinks/iceberg/durable_io.py). Real files on tmp_path and a real SQLite catalog; os.fsync
is observed through a counting wrapper that still syncs."""

from __future__ import annotations

import errno
import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.io.pyarrow import PyArrowFile
from pyiceberg.table import Table

from schemas.column_types import ColumnDef, parse_column_type
from sinks.iceberg import catalog as cat
from sinks.iceberg import durable_io, writer
from sinks.iceberg.convert import rows_to_arrow

pytestmark = pytest.mark.unit

COLUMNS = [
    ColumnDef("n", parse_column_type("LONG"), True, False),
    ColumnDef("at", parse_column_type("TIMESTAMPTZ"), True, False),
]


@dataclass
class Fsyncs:
    """Each fsync's path and the catalog's metadata pointer at that moment."""

    database: Path
    calls: list[tuple[str, str | None]] = field(default_factory=list)
    fail_on: Callable[[str], bool] = lambda _path: False

    def pointer(self) -> str | None:
        if not self.database.exists():
            return None
        with sqlite3.connect(self.database) as connection:
            row = connection.execute("SELECT metadata_location FROM iceberg_tables").fetchone()
        return None if row is None else str(row[0])

    def paths(self) -> set[str]:
        return {path for path, _ in self.calls}


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Fsyncs:
    seen = Fsyncs(tmp_path / "meta.db")
    real = os.fsync

    def counting(descriptor: int) -> None:
        path = os.readlink(f"/proc/self/fd/{descriptor}")
        seen.calls.append((path, seen.pointer()))
        if seen.fail_on(path):
            raise OSError(errno.EIO, "Input/output error")
        real(descriptor)

    monkeypatch.setattr(os, "fsync", counting)
    return seen


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[SqlCatalog]:
    made = cat.make_catalog(f"sqlite:///{tmp_path / 'meta.db'}", str(tmp_path / "warehouse"))
    yield made
    made.engine.dispose()


def new_table(catalog: SqlCatalog) -> Table:
    return cat.create_table(catalog, uuid.uuid4().hex, uuid.uuid4().hex, COLUMNS, [("at", "MONTH")])


def rows(count: int) -> pa.Table:
    data = [{"n": i, "at": f"2026-0{1 + i % 3}-01T00:00:00Z"} for i in range(count)]
    return rows_to_arrow(COLUMNS, data, load_id="pending", first_record_id=0).table


def local(location: str) -> str:
    return location.removeprefix("file://")


def snapshot_files(table: Table) -> set[str]:
    """The data files, manifests and manifest list of the table's current snapshot, and its metadata JSON."""
    head = table.current_snapshot()
    assert head is not None
    manifests = head.manifests(table.io)
    data = {
        entry.data_file.file_path
        for manifest in manifests
        for entry in manifest.fetch_manifest_entry(table.io)
    }
    named = {*data, *(m.manifest_path for m in manifests), head.manifest_list, table.metadata_location}
    return {local(path) for path in named}


def test_the_tables_file_io_is_the_durable_one(catalog: SqlCatalog) -> None:
    table = new_table(catalog)
    assert isinstance(table.io, durable_io.DurableFileIO)
    assert isinstance(catalog.load_table(table.name()).io, durable_io.DurableFileIO)


def test_every_file_of_a_commit_and_its_directories_are_fsynced_before_the_pointer_moves(
    catalog: SqlCatalog, fsyncs: Fsyncs
) -> None:
    table = new_table(catalog)
    before = fsyncs.pointer()
    fsyncs.calls.clear()
    writer.append(table, [(uuid.uuid4().hex, rows(30))])
    assert fsyncs.pointer() != before

    files = snapshot_files(table)
    data = {path for path in files if path.endswith(".parquet")}
    assert len(data) == 3  # one per month partition
    assert files <= fsyncs.paths(), files - fsyncs.paths()
    directories = {os.path.dirname(path) for path in files}
    # The new partition directories are entries of data/, itself new.
    directories |= {os.path.dirname(os.path.dirname(path)) for path in data}
    assert directories <= fsyncs.paths(), directories - fsyncs.paths()
    # All of it while the catalog still named the previous metadata file.
    assert {pointer for _, pointer in fsyncs.calls} == {before}
    # The directories once per commit: after the last file, not after each.
    order = [path for path, _ in fsyncs.calls]
    assert max(order.index(path) for path in files) < min(order.index(path) for path in directories)
    assert len(order) == len(set(order))


def test_a_failed_fsync_fails_the_commit(catalog: SqlCatalog, fsyncs: Fsyncs) -> None:
    table = new_table(catalog)
    writer.append(table, [(uuid.uuid4().hex, rows(3))])
    committed = fsyncs.pointer()
    fsyncs.fail_on = lambda path: path.endswith(".parquet")
    with pytest.raises(OSError, match="Input/output error"):
        writer.append(table, [(uuid.uuid4().hex, rows(3))])
    assert fsyncs.pointer() == committed
    table.refresh()
    assert len(table.scan().to_arrow()) == 3


def test_a_failed_directory_fsync_fails_the_commit_and_is_tried_again(
    catalog: SqlCatalog, fsyncs: Fsyncs
) -> None:
    table = new_table(catalog)
    committed = fsyncs.pointer()
    fsyncs.fail_on = lambda path: path.endswith("/data")
    with pytest.raises(OSError, match="Input/output error"):
        writer.append(table, [(uuid.uuid4().hex, rows(3))])
    assert fsyncs.pointer() == committed
    assert any(path.endswith("/data") for path in durable_io.PENDING_DIRECTORIES.pending())
    fsyncs.fail_on = lambda _path: False
    writer.append(table, [(uuid.uuid4().hex, rows(3))])
    table.refresh()
    assert len(table.scan().to_arrow()) == 3


def test_new_directories_are_pending_in_their_parents(tmp_path: Path, fsyncs: Fsyncs) -> None:
    pending = durable_io.PendingDirectories()
    (tmp_path / "a").mkdir()
    deep = tmp_path / "a" / "b" / "c"
    pending.make(str(deep))
    assert deep.is_dir()
    assert pending.pending() == {str(tmp_path / "a"), str(tmp_path / "a" / "b"), str(deep)}
    pending.sync()
    assert pending.pending() == set()
    assert fsyncs.paths() == {str(tmp_path / "a"), str(tmp_path / "a" / "b"), str(deep)}


def test_an_existing_file_is_not_overwritten_unless_asked(tmp_path: Path) -> None:
    io = durable_io.DurableFileIO()
    path = tmp_path / "x" / "00001.metadata.json"
    with io.new_output(str(path)).create() as stream:
        stream.write(b"{}")
    with pytest.raises(FileExistsError):
        io.new_output(str(path)).create()
    with io.new_output(str(path)).create(overwrite=True) as stream:
        stream.write(b'{"a":1}')
    assert path.read_bytes() == b'{"a":1}'


def test_object_store_files_are_pyarrows_own(fsyncs: Fsyncs) -> None:
    """An S3 object is durable once its upload completes, which pyarrow's close() waits for."""
    properties: dict[str, Any] = {
        "s3.region": "us-east-1",
        "s3.access-key-id": "test",
        "s3.secret-access-key": "test",
    }
    output = durable_io.DurableFileIO(properties).new_output("s3://bucket/t/data/x.parquet")
    assert type(output) is PyArrowFile
    assert fsyncs.calls == []
