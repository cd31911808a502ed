"""The query path's reads of a table's state (sinks/iceberg/read_cache.py): the table and its current
snapshot come from one look at the catalog, and a commit is seen at the next look."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField
from sqlalchemy import event

from sinks.iceberg import catalog as iceberg
from sinks.iceberg.read_cache import TableReads
from sinks.query_engine import local_path

COMPANY = "0" * 31 + "1"
TABLE = "0" * 31 + "2"


def test_the_table_and_its_current_snapshot_come_from_one_catalog_read(tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    catalog = SqlCatalog(
        iceberg.CATALOG_NAME, uri=f"sqlite:///{tmp_path / 'catalog.db'}", warehouse=warehouse.as_uri()
    )
    namespace, name = iceberg.identifier_for(COMPANY, TABLE)
    catalog.create_namespace(namespace)
    table = catalog.create_table((namespace, name), Schema(NestedField(1, "n", LongType(), required=False)))
    table.append(pa.table({"n": pa.array([1, 2], pa.int64())}))
    reads = TableReads(catalog)
    statements: list[str] = []
    event.listen(catalog.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))

    handle, snapshot = reads.current(COMPANY, TABLE)
    first = len(statements)
    handle_again, snapshot_again = reads.current(COMPANY, TABLE)

    assert len(statements) - first == 1  # loaded once; each later look is the one indexed read
    assert handle_again is handle and snapshot_again is snapshot
    assert snapshot.metadata_location == str(handle.metadata_location)
    assert snapshot.data_files is not None and len(snapshot.data_files) == 1

    table.append(pa.table({"n": pa.array([3], pa.int64())}))
    handle, snapshot = reads.current(COMPANY, TABLE)
    assert snapshot.metadata_location == str(handle.metadata_location) == str(table.metadata_location)
    assert snapshot.data_files is not None and len(snapshot.data_files) == 2
    assert all(Path(local_path(path)).exists() for path in snapshot.data_files)
