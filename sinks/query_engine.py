"""DuckDB for user SQL: one locked-down database per company, a fresh cursor (connection) per query.

Each company's database loads the extensions once, may read only that company's warehouse prefix, has
external access off and its configuration locked, so nothing a query says can change a setting or reach a
file of another company, the machine or the network. A query gets its own cursor: its views over the
tables' current Iceberg snapshots (or the snapshots a time-travel query names) are TEMP views, visible to
that cursor alone. The SQL it runs was checked and rewritten by the SQL front (``core.sql``); this module is
the second line of defence.

The warehouse is a local directory or an ``s3://bucket/prefix``. For S3 the database also loads ``httpfs``
and gets one S3 secret (endpoint, region, key, path-style URLs) before the lock-down, and
``allowed_directories`` holds the URL prefix ``s3://bucket/prefix/c_<company>/``. On S3 the lock-down has
two gaps that only the SQL front closes (a ``..`` in a URL, ``CREATE SECRET`` after the lock): see
docs/analytics-queries.md and ``tests/integration/analytics/test_s3_warehouse.py``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

import duckdb
import pyarrow as pa

from core.lru import Lru
from schemas.jobs import QueryPlan, ViewPlan
from sinks.duckdb_engine import S3_SCHEME, S3Access, Spill, connect, sql_literal
from sinks.duckdb_failures import is_io_error, storage_reason
from sinks.iceberg.exceptions import StorageFull, StorageUnavailable
from sinks.storage_full import full
from sinks.thread_priority import lowering_new_threads

log = logging.getLogger(__name__)


class QueryFailed(Exception):
    """The SQL failed in DuckDB (a conversion, a division by zero...); the message is DuckDB's, shortened."""


class QueryInterrupted(Exception):
    """The query was stopped from outside (cancel or time limit)."""


def local_path(location: str) -> str:
    """A `file://` URI or plain path as a filesystem path; other schemes are refused."""
    parsed = urlparse(location)
    if parsed.scheme in ("", "file"):
        return unquote(parsed.path) if parsed.scheme else location
    raise ValueError(f"not a local path: {parsed.scheme}://")


def readable_path(location: str) -> str:
    """What DuckDB opens for a warehouse location: a local path for `file://` or a plain path, an `s3://`
    URL as it is; other schemes are refused."""
    if location.startswith(S3_SCHEME):
        return location
    return local_path(location)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class QueryEngines:
    """Locked DuckDB databases per company, the least recently used closed beyond ``size``."""

    def __init__(
        self,
        warehouse: Path | str,
        *,
        threads: int,
        memory_limit: str,
        s3: S3Access | None = None,
        size: int = 4,
        spill_root: Path | None = None,
        max_spill_bytes: int = 10 * 1000**3,
        niceness: int = 0,
    ) -> None:
        self._warehouse = readable_path(str(warehouse)).rstrip("/")
        self._s3 = s3
        # Each company database spills into its own folder under <spill_root>/duckdb-tmp/, never a shared one.
        self._spill_root = spill_root
        self._max_spill_bytes = max_spill_bytes
        self._threads = threads
        self._memory_limit = memory_limit
        self._niceness = niceness  # of DuckDB's threads (sinks/thread_priority.py)
        # The least recently used company's database is closed to make room for another's.
        self._databases: Lru[str, duckdb.DuckDBPyConnection] = Lru(size, on_drop=_close)
        # Held across the open: one database per company, never two opened for one by threads that missed.
        self._lock = threading.Lock()

    def company_prefix(self, namespace: str) -> str:
        """The one directory (or S3 URL prefix) a company's database may read, ending in `/`."""
        return f"{self._warehouse}/{namespace}/"

    def spill(self, namespace: str) -> Spill | None:
        """The company's own spill folder and cap (None: DuckDB's defaults, for tools without a data dir)."""
        if self._spill_root is None:
            return None
        return Spill.for_company(self._spill_root, namespace, self._max_spill_bytes)

    def cursor(self, namespace: str) -> duckdb.DuckDBPyConnection:
        with self._lock:
            database = self._databases.get(namespace)
            if database is None:
                database = self._open(namespace)
                self._databases.put(namespace, database)
            return database.cursor()

    def _open(self, namespace: str) -> duckdb.DuckDBPyConnection:
        prefix = self.company_prefix(namespace)
        if not prefix.startswith(S3_SCHEME):
            Path(prefix).mkdir(parents=True, exist_ok=True)
        with lowering_new_threads(self._niceness):
            database = connect(
                threads=self._threads,
                memory_limit=self._memory_limit,
                s3=self._s3,
                spill=self.spill(namespace),
            )
        database.execute(f"SET allowed_directories = [{sql_literal(prefix)}]")
        database.execute("SET enable_external_access = false")
        database.execute("SET lock_configuration = true")
        return database

    def close(self) -> None:
        with self._lock:
            self._databases.clear()


def _close(database: duckdb.DuckDBPyConnection) -> None:
    database.close()


@dataclass(frozen=True)
class TableSource:
    """Where a view reads a table's snapshot: its data files (readable paths) when they are known to hold
    exactly its rows, else its metadata file through the Iceberg extension, at ``snapshot_id`` when the
    query reads the table as of a snapshot (None: the metadata file's current snapshot). The extension then
    reads with that snapshot's schema, and refuses an id the table does not hold."""

    metadata: str
    files: tuple[str, ...] | None = None
    snapshot_id: int | None = None
    # The files share one schema (``Snapshot.uniform``): read by the first file's columns, by name. Unifying
    # them by name instead costs a selective query its pruning.
    uniform: bool = False

    def sql(self) -> str:
        if self.files:
            listed = ", ".join(sql_literal(path) for path in self.files)
            by_name = "false" if self.uniform else "true"
            return f"read_parquet([{listed}], union_by_name = {by_name}, hive_partitioning = false)"
        if self.snapshot_id is not None:
            return f"iceberg_scan({sql_literal(self.metadata)}, snapshot_from_id = {int(self.snapshot_id)})"
        return f"iceberg_scan({sql_literal(self.metadata)})"


def source_key(view: ViewPlan) -> str:
    """The key of a view's source in the sources mapping: the table id for the table now, the table id and
    snapshot id for a table read as of a snapshot (a query may read both)."""
    return view.table_id if view.snapshot_id is None else f"{view.table_id}@{view.snapshot_id}"


_BATCH_ROWS = 65_536


@dataclass(frozen=True)
class QueryOutput:
    table: pa.Table
    truncated: bool


def create_views(
    cursor: duckdb.DuckDBPyConnection, plan: QueryPlan, sources: Mapping[str, TableSource]
) -> None:
    """One TEMP view per reading of a table: the caller's columns and rows of the current snapshot, or of
    the snapshot the query names. The caller's row filter may name a column added after that snapshot: it
    reads as null there, as Iceberg reads a column missing from a data file."""
    for view in plan.views:
        columns = ", ".join(_quote(c) for c in view.columns)
        where = f" WHERE {view.row_filter}" if view.row_filter else ""
        source = sources[source_key(view)].sql()
        if view.absent_columns:
            nulls = ", ".join(f"NULL AS {_quote(c)}" for c in view.absent_columns)
            source = f"(SELECT *, {nulls} FROM {source})"
        cursor.execute(f"CREATE TEMP VIEW {_quote(view.view)} AS SELECT {columns} FROM {source}{where}")


def run_query(
    cursor: duckdb.DuckDBPyConnection, plan: QueryPlan, sources: Mapping[str, TableSource]
) -> QueryOutput:
    """Run the plan; keep at most ``plan.max_rows`` rows and say whether more existed. Blocking: call it
    from a worker thread, and ``cursor.interrupt()`` from another to stop it."""
    schema, reader = stream_query(cursor, plan, sources)
    batches: list[pa.RecordBatch] = []
    kept = 0
    truncated = False
    for batch in reader:
        if kept + batch.num_rows > plan.max_rows:
            batches.append(batch.slice(0, plan.max_rows - kept))
            truncated = True
            break
        batches.append(batch)
        kept += batch.num_rows
    return QueryOutput(pa.Table.from_batches(batches, schema=schema), truncated)


def stream_query(
    cursor: duckdb.DuckDBPyConnection, plan: QueryPlan, sources: Mapping[str, TableSource]
) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
    """Start the plan's query: its schema, and its batches as DuckDB produces them (a result is never
    held whole). Reading the batches raises QueryInterrupted or QueryFailed as ``run_query`` does, and
    StorageUnavailable when the table's files cannot be read (S3 unreachable, silent or failing)."""
    try:
        create_views(cursor, plan, sources)
        reader = cursor.execute(plan.sql).to_arrow_reader(_BATCH_ROWS)
    except duckdb.InterruptException as exc:
        raise QueryInterrupted(str(exc)) from exc
    except duckdb.IOException as exc:  # HTTPException included
        raise _storage_failure(exc) from exc
    except duckdb.Error as exc:
        raise QueryFailed(_short(str(exc))) from exc
    return reader.schema, _batches(reader)


def _batches(reader: pa.RecordBatchReader) -> Iterator[pa.RecordBatch]:
    try:
        yield from reader
    except duckdb.InterruptException as exc:
        raise QueryInterrupted(str(exc)) from exc
    except duckdb.IOException as exc:
        raise _storage_failure(exc) from exc
    except duckdb.Error as exc:
        raise QueryFailed(_short(str(exc))) from exc
    except OSError as exc:
        # Past the first batch, DuckDB's errors reach Arrow's reader and come out as OSError with DuckDB's
        # message ("INTERRUPT Error: Interrupted!", "Conversion Error: ...", "IO Error: ...").
        if str(exc).startswith("INTERRUPT"):
            raise QueryInterrupted(str(exc)) from exc
        if is_io_error(str(exc)):
            raise _storage_failure(exc) from exc
        raise QueryFailed(_short(str(exc))) from exc


def _storage_failure(error: Exception) -> StorageUnavailable:
    """DuckDB could not read the table's files: its text names the endpoint, bucket and key, so it goes to
    the log and the caller reads the reason alone."""
    if full(error):  # a file DuckDB writes (a result, a spill) found no room: the storage, not the query
        log.warning("a query found the storage full", exc_info=error)
        return StorageFull()
    log.warning("a query could not read the table storage", exc_info=error)
    return StorageUnavailable(f"The table storage is unavailable: {storage_reason(str(error))}")


def _short(message: str, limit: int = 1000) -> str:
    first = message.strip().split("\n\n")[0]
    return first if len(first) <= limit else first[:limit] + "…"
