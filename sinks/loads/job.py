"""One bulk load, all or nothing: read every source, convert every batch to the table's columns (rows that
cannot be converted are counted and sampled), write the rows as the table's data files as they come, then
commit all the files in one Iceberg transaction.

Reading, converting and writing overlap: a thread reads ahead (`read.py`), the loading thread converts,
another thread encodes Parquet (`stage.py`). No snapshot names the files before the commit, so readers
never see part of a load, and a load that fails or is cancelled deletes them.

The commit is exactly once per job id (the writer's ledger in the snapshot summary): a load run again after
its worker died finds its rows already committed, so it reads its files only to count them and adds nothing.
A failure before the commit (an unreadable file, a cancel) leaves the table as it was.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pyarrow as pa
from pyiceberg.table import Table

from schemas.column_types import ColumnDef
from schemas.jobs import LoadPlan
from sinks.iceberg import staged as staged_commit
from sinks.iceberg import writer
from sinks.iceberg.exceptions import CommitConflict
from sinks.iceberg.work_pools import Kind, in_pool
from sinks.loads.convert import Rejected, convert_batch, plan_columns
from sinks.loads.read import CsvOptions, read_batches
from sinks.loads.stage import StagedFiles
from sinks.objectstore import ObjectStore

SAMPLE_LIMIT = 20

RowSink = Callable[[pa.Table], None]


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


@in_pool(Kind.LOADS)
def load_sources(
    store: ObjectStore,
    table: Table,
    plan: LoadPlan,
    job_id: str,
    columns: Sequence[ColumnDef],
    encrypt: Callable[[str], str] | None,
    stop: threading.Event,
) -> LoadResult:
    """Load every source of `plan` into `table` in one commit, once per `job_id`.

    Raises LoadStopped (cancelled), LoadFileError, LoadMappingError, StorageUnavailable (the sources' S3
    failed) or CommitConflict before anything is committed; the files written for the load are deleted then.
    """
    replace = plan.mode == "REPLACE"
    if already_committed(table, job_id, replace=replace):
        return convert_sources(store, plan, columns, encrypt, stop, sink=None)
    stage = StagedFiles(table, job_id, writer.next_record_id(table))
    try:
        result = convert_sources(store, plan, columns, encrypt, stop, sink=stage.add)
        if stop.is_set():
            raise LoadStopped
        staged = stage.finish()
    except BaseException:
        stage.discard()
        raise
    try:
        outcome = staged_commit.commit_staged(table, staged, replace=replace, renumber=stage.renumber)
    except CommitConflict:
        stage.discard()  # every attempt was refused: no snapshot names the files
        raise
    # Any other failure of the commit leaves the files: the commit may have landed, and an unused file is
    # harmless where a missing one breaks the table.
    if not outcome.applied:
        stage.discard()  # another run of the same job committed first: these files are nobody's
    return result


def already_committed(table: Table, job_id: str, *, replace: bool) -> bool:
    done = writer.committed_op_ids(table) if replace else writer.committed_load_ids(table)
    return job_id in done


def convert_sources(
    store: ObjectStore,
    plan: LoadPlan,
    columns: Sequence[ColumnDef],
    encrypt: Callable[[str], str] | None,
    stop: threading.Event,
    sink: RowSink | None,
) -> LoadResult:
    """Read and convert every source in order, handing each batch's accepted rows to `sink`."""
    filesystem, base = store.arrow_filesystem()
    options = csv_options(plan)
    sample: list[Rejected] = []
    loaded = rejected = 0
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
            loaded += converted.table.num_rows
            if converted.table.num_rows and sink is not None:
                sink(converted.table)
    return LoadResult(loaded, rejected, sample[:SAMPLE_LIMIT], unused)
