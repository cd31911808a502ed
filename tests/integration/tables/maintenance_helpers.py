"""A MONTH-partitioned table filled by many small appends, and the checks the maintenance tests share."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime, timedelta

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.table import Table

from schemas.column_types import ColumnDef, parse_column_type
from sinks.iceberg import catalog as iceberg
from sinks.iceberg import writer
from sinks.iceberg.convert import rows_to_arrow
from sinks.iceberg.maintenance import Limits

COMPANY = "a" * 32
TABLE = "b" * 32
COLUMNS = [
    ColumnDef("id", parse_column_type("LONG"), True, False),
    ColumnDef("day", parse_column_type("DATE"), True, False),
    ColumnDef("note", parse_column_type("STRING"), True, False),
]
LIMITS = Limits(
    target_file_bytes=64 * 1024**2,
    small_file_bytes=8 * 1024**2,
    max_files=2_000,
    max_bytes=512 * 1024**2,
    retention=timedelta(days=7),
    orphan_min_age=timedelta(hours=72),
)


def make_table(catalog: SqlCatalog) -> Table:
    return iceberg.create_table(catalog, COMPANY, TABLE, COLUMNS, [("day", "MONTH")])


def append(table: Table, first_id: int, count: int) -> None:
    """One commit of ``count`` rows spread over three months (three data files)."""
    rows = [
        {"id": first_id + n, "day": f"2026-0{1 + n % 3}-1{n % 10}", "note": f"row {first_id + n}"}
        for n in range(count)
    ]
    load_id = uuid.uuid4().hex
    batch = rows_to_arrow(COLUMNS, rows, load_id=load_id, first_record_id=0).table
    writer.append(table, [(load_id, batch)])


def checksum(table: Table) -> tuple[int, str]:
    """Row count and a digest of every row (system columns too), independent of file and row order."""
    table.refresh()
    rows = sorted(repr(sorted(row.items())) for row in table.scan().to_arrow().to_pylist())
    return len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest()


def data_files(table: Table) -> int:
    table.refresh()
    return len(table.inspect.data_files())


def later(days: float) -> datetime:
    return datetime.now(UTC) + timedelta(days=days)
