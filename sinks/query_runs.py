"""One run of a planned query, wherever it runs: a worker (a job taken from the broker) or an ingress process
(a short query answered while its caller waits, ``ingress/analytics/inline_queries.py``). Both read the same
sources, write the result the same way and record the same outcome, so a job reads alike whoever ran it."""

from __future__ import annotations

from collections.abc import Callable

from duckdb import DuckDBPyConnection

from schemas.jobs import JobState, QueryPlan
from sinks.db.analytics.jobs import Outcome
from sinks.iceberg.read_cache import TableReads
from sinks.iceberg.storage import table_storage
from sinks.job_results import Written, describe_columns, write_batches
from sinks.objectstore import ObjectStore
from sinks.query_engine import QueryInterrupted, TableSource, readable_path, source_key, stream_query


def sources_for(reads: TableReads, company_id: str, plan: QueryPlan) -> tuple[dict[str, TableSource], bool]:
    """Each view's source, and whether every view reads the snapshot its plan names (a table read now
    may have had commits since the query was planned)."""
    found: dict[str, TableSource] = {}
    as_planned = True
    for view in plan.views:
        if view.snapshot_id is None:
            # The table and its source from the one current metadata file.
            handle, snapshot = reads.current(company_id, view.table_id)
            current = handle.current_snapshot()
            read_id = None if current is None else int(current.snapshot_id)
            as_planned = as_planned and read_id == view.read_snapshot_id
        else:
            snapshot = reads.snapshot(company_id, view.table_id, view.snapshot_id)
        files = None if snapshot.data_files is None else tuple(map(readable_path, snapshot.data_files))
        location = readable_path(snapshot.metadata_location)
        found[source_key(view)] = TableSource(location, files, view.snapshot_id, snapshot.uniform)
    return found, as_planned


def execute(
    cursor: DuckDBPyConnection,
    reads: TableReads,
    store: ObjectStore,
    company_id: str,
    plan: QueryPlan,
    key: str,
    *,
    max_result_bytes: int,
    may_write: Callable[[], bool] = lambda: True,
    head_rows: int = 0,
) -> tuple[Written, bool]:
    """Run the query and write its result under ``key`` as it comes, once ``may_write()`` says so (a
    worker's claim has succeeded); and whether it ran exactly as planned (the plan's snapshots and
    result-size limit), so its result may answer the job's cache key (``core/sql/cache_key.py``). The first
    ``head_rows`` rows are kept in ``Written.head`` (the preview of an answer given in the call). Blocking:
    call it from a thread, and ``cursor.interrupt()`` from another to stop it (QueryInterrupted)."""
    with table_storage():  # the tables' metadata files, read here unless they are cached
        sources, as_planned = sources_for(reads, company_id, plan)
    schema, batches = stream_query(cursor, plan, sources)
    if not may_write():
        raise QueryInterrupted("the job was not claimed")
    max_bytes = min(max_result_bytes, plan.max_result_bytes) if plan.max_result_bytes else max_result_bytes
    written = write_batches(
        store, key, schema, batches, max_rows=plan.max_rows, max_bytes=max_bytes, head_rows=head_rows
    )
    return written, as_planned and max_bytes == plan.max_result_bytes


def succeeded(plan: QueryPlan, key: str, written: Written, *, cacheable: bool) -> Outcome:
    """The outcome of a query whose result ``written`` is stored under ``key``."""
    masked = {
        m.index: {"maskStrategy": m.mask_strategy, "tableId": m.table_id, "column": m.column}
        for m in plan.masked
    }
    notes = None
    if written.cut_by == "BYTES":
        notes = [
            f"The result was cut off at {written.bytes} bytes, the plan's result-size limit: select "
            "fewer columns or rows, or aggregate"
        ]
    return Outcome(
        JobState.SUCCEEDED,
        result_key=key,
        row_count=written.rows,
        truncated=written.truncated,
        columns=describe_columns(written.schema, masked, frozenset(plan.json_columns)),
        notes=notes,
        cacheable=cacheable,
    )
