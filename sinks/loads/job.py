"""One bulk load, all or nothing: read every source, convert every batch to the table's columns (rows that
cannot be converted are counted and sampled), then commit everything in one Iceberg transaction.

The commit is exactly once per job id (the writer's ledger in the snapshot summary): a load run again after
its worker died converts the files again and finds its rows already committed, so nothing is added twice.
A failure before the commit (an unreadable file, a cancel) leaves the table as it was.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from pyiceberg.expressions import AlwaysTrue

from schemas.column_types import ColumnDef
from schemas.jobs import LoadPlan
from sinks.iceberg import writer
from sinks.loads.convert import Rejected, convert_batch, plan_columns, user_schema
from sinks.loads.read import CsvOptions, read_batches
from sinks.objectstore import ObjectStore

SAMPLE_LIMIT = 20


class LoadStopped(Exception):
    """The load was cancelled before its commit."""


@dataclass
class LoadResult:
    rows_loaded: int
    rows_rejected: int
    sample: list[Rejected]
    unused_columns: dict[str, list[str]] = field(default_factory=dict)


def csv_options(plan: LoadPlan) -> CsvOptions:
    return CsvOptions(**plan.csv.model_dump())


def convert_sources(
    store: ObjectStore,
    plan: LoadPlan,
    columns: Sequence[ColumnDef],
    encrypt: Callable[[str], str] | None,
    stop: threading.Event,
) -> tuple[pa.Table, LoadResult]:
    filesystem, base = store.arrow_filesystem()
    options = csv_options(plan)
    parts: list[pa.Table] = []
    sample: list[Rejected] = []
    rejected = 0
    unused: dict[str, list[str]] = {}
    for source in plan.sources:
        reader = read_batches(filesystem, f"{base}/{source.key}", plan.format, options, source=source.uri)
        mapping, ignored = plan_columns(reader.column_names, columns, plan.column_mapping)
        if ignored:
            unused[source.uri] = list(ignored)
        for part in reader.batches():
            if stop.is_set():
                raise LoadStopped
            converted = convert_batch(
                part.data,
                columns,
                mapping,
                csv=options if plan.format == "CSV" else None,
                encrypt=encrypt,
                source=source.uri,
                first_row=part.first_row,
                sample_limit=SAMPLE_LIMIT,
                sample=sample,
                malformed=part.malformed,
            )
            rejected += converted.rejected_count
            if converted.table.num_rows:
                parts.append(converted.table)
    data = pa.concat_tables(parts) if parts else user_schema(columns).empty_table()
    return data, LoadResult(data.num_rows, rejected, sample[:SAMPLE_LIMIT], unused)


def commit(handle: Any, plan: LoadPlan, job_id: str, data: pa.Table) -> bool:
    """Append or replace in one commit, once per job id; False when an earlier run committed it."""
    if plan.mode == "REPLACE":
        outcome = writer.overwrite_rows(handle, AlwaysTrue(), data, job_id)
        return bool(outcome.applied)
    appended = writer.append(handle, [(job_id, data)])
    return bool(appended.committed_load_ids)
