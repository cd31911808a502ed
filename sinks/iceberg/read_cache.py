"""Cheap reads of a table's current state (or of one of its snapshots, for time travel) for the query path.

The current metadata file of a table is one indexed row of the catalog (``iceberg_tables``); reading it is
a fraction of a millisecond, while loading the table (parsing that file) and planning a scan (reading the
manifests) take milliseconds. Metadata files never change once written, so loaded tables and scan
estimates are kept per metadata location: a new commit is a new location and is loaded afresh.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pyiceberg.catalog.sql import IcebergTables, SqlCatalog
from sqlalchemy import select
from sqlalchemy.orm import Session

from core.lru import Lru
from sinks.iceberg import catalog as iceberg
from sinks.iceberg.exceptions import TableNotFound
from sinks.scan_estimate import Predicate, estimate_bytes, snapshot_schema


def metadata_location(catalog: SqlCatalog, company_id: str, table_id: str) -> str:
    namespace, name = iceberg.identifier_for(company_id, table_id)
    with Session(catalog.engine) as session:
        location = session.scalar(
            select(IcebergTables.metadata_location).where(
                IcebergTables.catalog_name == iceberg.CATALOG_NAME,
                IcebergTables.table_namespace == namespace,
                IcebergTables.table_name == name,
            )
        )
    if location is None:
        raise TableNotFound(f"table {table_id} has no Iceberg table")
    return str(location)


@dataclass(frozen=True)
class Snapshot:
    """What a reader needs of a table's current snapshot: its metadata file, and its data files when
    reading them directly gives the snapshot's rows (no delete files, every column in some file; an empty
    table has none). DuckDB reads a list of Parquet files several times faster than it resolves a table's
    manifests through ``iceberg_scan``."""

    metadata_location: str
    data_files: tuple[str, ...] | None
    # Every data file holds every column with the one type the table ever had (it has a single schema):
    # a reader may take the first file's schema for all of them instead of unifying them by name, which
    # lets DuckDB skip row groups and files a filter excludes.
    uniform: bool = False


def _snapshot(handle: Any, snapshot_id: int | None = None) -> Snapshot:
    """``snapshot_id`` None: the current snapshot. A snapshot the table no longer holds (expired since the
    query was planned) is left to the Iceberg extension, which refuses it by its id."""
    location = str(handle.metadata_location)
    schema = snapshot_schema(handle, snapshot_id)
    if schema is None:
        return Snapshot(location, () if snapshot_id is None else None)
    tasks = list(handle.scan(snapshot_id=snapshot_id).plan_files())
    if any(task.delete_files for task in tasks):
        return Snapshot(location, None)
    # A column added after every file was written is in no file: only Iceberg's reader fills it in.
    per_file = [set(task.file.value_counts or {}) for task in tasks]
    needed = {field.field_id for field in schema.fields}
    if not needed <= set().union(*per_file):
        return Snapshot(location, None)
    uniform = len(handle.metadata.schemas) == 1 and all(needed <= ids for ids in per_file)
    return Snapshot(location, tuple(str(task.file.file_path) for task in tasks), uniform)


class TableReads:
    """Tables and scan estimates by metadata location, for one process."""

    def __init__(self, catalog: SqlCatalog, *, tables: int = 64, estimates: int = 4096) -> None:
        self._catalog = catalog
        self._tables: Lru[str, Any] = Lru(tables)
        self._estimates: Lru[tuple[str, int | None, str], int] = Lru(estimates)
        self._snapshots: Lru[tuple[str, int | None], Snapshot] = Lru(tables)

    def table(self, company_id: str, table_id: str) -> Any:
        location = metadata_location(self._catalog, company_id, table_id)
        return self._table_at(location, company_id, table_id)

    def snapshot(self, company_id: str, table_id: str, snapshot_id: int | None = None) -> Snapshot:
        """The current snapshot, or the one with ``snapshot_id`` (time travel)."""
        location = metadata_location(self._catalog, company_id, table_id)
        return self._snapshot_at(location, company_id, table_id, snapshot_id)

    def current(self, company_id: str, table_id: str) -> tuple[Any, Snapshot]:
        """The table and its current snapshot, from one look at the catalog (each look is a database
        read, a millisecond of a short query)."""
        location = metadata_location(self._catalog, company_id, table_id)
        return self._table_at(location, company_id, table_id), self._snapshot_at(
            location, company_id, table_id, None
        )

    def _table_at(self, location: str, company_id: str, table_id: str) -> Any:
        return self._tables.get_or_make(
            location, lambda: iceberg.load_table(self._catalog, company_id, table_id)
        )

    def _snapshot_at(
        self, location: str, company_id: str, table_id: str, snapshot_id: int | None
    ) -> Snapshot:
        return self._snapshots.get_or_make(
            (location, snapshot_id),
            lambda: _snapshot(self._table_at(location, company_id, table_id), snapshot_id),
        )

    def estimate(self, handle: Any, predicates: Sequence[Predicate], snapshot_id: int | None = None) -> int:
        key = (str(handle.metadata_location), snapshot_id, repr(list(predicates)))
        return self._estimates.get_or_make(key, lambda: estimate_bytes(handle, predicates, snapshot_id))
