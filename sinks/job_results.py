"""Query results in the object store (one Parquet file per job) and their rendering for the interface:
pages of JSON rows and the preview, with masked columns masked or revealed.

A result is written as the query runs, a batch at a time, and stops at the plan's row limit or result-byte
limit (Arrow's in-memory size of the rows kept), whichever comes first: the job is then ``truncated``.
Downloads are in ``sinks/result_downloads.py``.

A store that fails a read or a write of a result (S3 unreachable, silent, refusing) raises
StorageUnavailable naming the "result storage" and nothing of its endpoint, bucket or key (pyarrow's
OSError and botocore's errors say all three; they go to the log): the ingress answers 503
``STORAGE_UNAVAILABLE`` with Retry-After, a query job ends ``FAILED`` with that code."""

from __future__ import annotations

import bisect
import logging
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from core.lru import Lru, SizeBounds
from schemas.column_types import MaskStrategy, parse_column_type
from sinks.exceptions import NotFound
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.iceberg.results import ResultColumn, column_type_of_arrow, column_values, rows_of
from sinks.iceberg.storage import storage_failure

if TYPE_CHECKING:
    from sinks.objectstore import ObjectStore

log = logging.getLogger(__name__)
# A page of /job-results (up to 1,000 rows) lies in one or two row groups and decodes only those.
ROW_GROUP_ROWS = 2_000
# The footers of results read lately, by key and size (a result file is written once, then only read):
# a large result's footer takes longer to parse than its page to read.
# Weighed by the footer's serialized size times what parsing it takes in memory (about six times as much).
_FOOTER_IN_MEMORY = 6
_FOOTERS: Lru[tuple[str, int], Footer] = Lru(
    256, sizes=SizeBounds(total_bytes=64 * 2**20, entry_bytes=16 * 2**20)
)
RESULT_STORAGE = "result storage"


class ResultGone(NotFound):
    """The job says it has a result, but its file is not in the store (removed as it expired)."""


@contextmanager
def result_storage() -> Iterator[None]:
    """Raise StorageUnavailable for a store failure of the block (its full error in the log only), and
    ResultGone for a result file that is not there."""
    try:
        yield
    except StorageUnavailable:
        raise  # the object store's own report, already free of the endpoint, bucket and key
    except FileNotFoundError as error:
        raise ResultGone("The result file is no longer stored") from error
    except OSError as error:
        log.warning("the result storage failed", exc_info=True)
        raise storage_failure(error, RESULT_STORAGE) from error
    except Exception as error:
        reason = _s3_client_failure(error)
        if reason is None:
            raise
        log.warning("the result storage failed", exc_info=True)
        raise StorageUnavailable(f"The {RESULT_STORAGE} is unavailable: {reason}") from error


def _s3_client_failure(error: Exception) -> str | None:
    """Why botocore failed a call (building the store's S3 filesystem asks it for credentials), or None
    when ``error`` is not botocore's."""
    if "botocore.exceptions" not in sys.modules:  # no S3 store in this process: no botocore error
        return None
    from botocore.exceptions import BotoCoreError, ClientError

    from sinks.objectstore.s3_failures import unavailable_reason

    if not isinstance(error, BotoCoreError | ClientError):
        return None
    return unavailable_reason(error) or "the S3 service failed the call"


def result_key(company_id: str, job_id: str) -> str:
    return f"results/{company_id}/{job_id}.parquet"


def describe_columns(
    schema: pa.Schema, masked: dict[int, dict[str, Any]], json_columns: frozenset[int] = frozenset()
) -> list[dict[str, Any]]:
    """The stored description of each result column; ``masked`` maps an output index to its masked source,
    ``json_columns`` are the string outputs that carry a JSON column (typed JSON, shown parsed)."""
    columns: list[dict[str, Any]] = []
    for index, field in enumerate(schema):
        source = masked.get(index)
        if source is not None:
            columns.append(
                {
                    "name": field.name,
                    "type": "STRING",
                    "masked": True,
                    "maskStrategy": source["maskStrategy"],
                    "tableId": source["tableId"],
                    "column": source["column"],
                }
            )
        elif index in json_columns and (
            pa.types.is_string(field.type) or pa.types.is_large_string(field.type)
        ):
            columns.append({"name": field.name, "type": "JSON"})
        else:
            columns.append({"name": field.name, "type": str(column_type_of_arrow(field.type))})
    return columns


@dataclass(frozen=True)
class Written:
    """A stored result: its schema, rows and bytes kept (Arrow's in-memory size), which limit cut it off
    (``"ROWS"`` or ``"BYTES"``; None when every row was kept), and its first rows when the writer was asked
    to keep them (``head_rows``)."""

    schema: pa.Schema
    rows: int
    bytes: int
    cut_by: str | None = None
    head: pa.Table | None = None

    @property
    def truncated(self) -> bool:
        return self.cut_by is not None


def rows_within(batch: pa.RecordBatch, rows: int, room: int) -> int:
    """How many of the first ``rows`` rows of ``batch`` fit in ``room`` bytes (Arrow's size of the slice)."""
    if rows <= 0 or room <= 0:
        return 0
    if batch.slice(0, rows).nbytes <= room:
        return rows
    low, high = 0, rows  # low fits, high does not
    while high - low > 1:
        middle = (low + high) // 2
        if batch.slice(0, middle).nbytes <= room:
            low = middle
        else:
            high = middle
    return low


def write_batches(
    store: ObjectStore,
    key: str,
    schema: pa.Schema,
    batches: Iterable[pa.RecordBatch],
    *,
    max_rows: int,
    max_bytes: int,
    head_rows: int = 0,
) -> Written:
    """Write a query's batches as they come, stopping at ``max_rows`` rows or ``max_bytes`` bytes. Only
    one batch is held at a time, and the first ``head_rows`` rows written (the answer's preview, shown
    without reading the file back). A failure (or interruption) midway removes the partial file. Raises
    StorageUnavailable when the store fails the write; the batches' own errors pass through."""
    rows = size = 0
    cut_by: str | None = None
    head: list[pa.RecordBatch] = []
    try:
        with result_storage():
            filesystem, base = store.arrow_filesystem()
            out = filesystem.open_output_stream(f"{base}/{key}")
        with result_storage(), out, pq.ParquetWriter(out, schema) as writer:
            for batch in batches:
                keep = min(batch.num_rows, max_rows - rows)
                fits = rows_within(batch, keep, max_bytes - size)
                if fits:
                    part = batch if fits == batch.num_rows else batch.slice(0, fits)
                    writer.write_batch(part, row_group_size=ROW_GROUP_ROWS)
                    if rows < head_rows:
                        head.append(part.slice(0, head_rows - rows))
                    rows += fits
                    size += part.nbytes
                if fits < batch.num_rows:
                    cut_by = "ROWS" if fits == keep and keep < batch.num_rows else "BYTES"
                    break
    except BaseException:
        _forget_partial(store, key)
        raise
    kept = pa.Table.from_batches(head, schema=schema) if head_rows else None
    return Written(schema, rows, size, cut_by, kept)


def _forget_partial(store: ObjectStore, key: str) -> None:
    """Remove a result cut off midway; a store that is away keeps it (the error that cut it off matters)."""
    try:
        delete_result(store, key)
    except (StorageUnavailable, OSError):
        log.warning("a partial query result could not be removed", extra={"key": key}, exc_info=True)


def delete_result(store: ObjectStore, key: str) -> None:
    if store.exists(key):
        store.delete(key)


def read_rows(store: ObjectStore, key: str, offset: int, limit: int) -> pa.Table:
    """Rows ``offset`` to ``offset + limit`` of a stored result, reading only the row groups they lie in.
    Raises StorageUnavailable (the store failed the read) or ResultGone."""
    with result_storage():
        return _read_rows(store, key, offset, limit)


def _read_rows(store: ObjectStore, key: str, offset: int, limit: int) -> pa.Table:
    filesystem, base = store.arrow_filesystem()
    with filesystem.open_input_file(f"{base}/{key}") as source:
        footer_key = (key, source.size())
        footer = _FOOTERS.get(footer_key)
        parquet = pq.ParquetFile(source, metadata=None if footer is None else footer.metadata)
        if footer is None:
            footer = Footer.of(parquet.metadata)
            _FOOTERS.put(footer_key, footer, parquet.metadata.serialized_size * _FOOTER_IN_MEMORY)
        groups, first_start = footer.groups_for(offset, limit)
        if not groups:
            return parquet.schema_arrow.empty_table()
        table = parquet.read_row_groups(groups)
    return table.slice(offset - first_start, limit)


@dataclass(frozen=True)
class Footer:
    """A result file's parsed footer and the first row of each of its row groups."""

    metadata: pq.FileMetaData
    starts: tuple[int, ...]  # one more than the groups: the last is the row count

    @classmethod
    def of(cls, metadata: pq.FileMetaData) -> Footer:
        starts = [0]
        for index in range(metadata.num_row_groups):
            starts.append(starts[-1] + metadata.row_group(index).num_rows)
        return cls(metadata, tuple(starts))

    def groups_for(self, offset: int, limit: int) -> tuple[list[int], int]:
        """The row groups holding rows ``offset`` to ``offset + limit``, and the first row of the first."""
        first = max(bisect.bisect_right(self.starts, offset) - 1, 0)
        end = min(bisect.bisect_left(self.starts, offset + limit), len(self.starts) - 1)
        groups = [
            index for index in range(first, end) if self.starts[index + 1] > max(offset, self.starts[index])
        ]
        return groups, self.starts[groups[0]] if groups else 0


def result_columns(stored: Sequence[dict[str, Any]]) -> list[ResultColumn]:
    return [
        ResultColumn(
            c["name"],
            parse_column_type(c["type"]),
            bool(c.get("masked")),
            MaskStrategy(c.get("maskStrategy") or "FULL"),
        )
        for c in stored
    ]


def wire_columns(stored: Sequence[dict[str, Any]], revealable: dict[str, bool], reveal: bool) -> list[Any]:
    """Result columns as the interface shows them: name and type, and for masked columns masked,
    revealable, revealed and maskStrategy. ``revealable`` is by table id, for the caller."""
    shown: list[dict[str, Any]] = []
    for column in stored:
        entry: dict[str, Any] = {"name": column["name"], "type": column["type"]}
        if column.get("masked"):
            can = revealable.get(column["tableId"], False)
            entry.update(
                masked=True,
                revealable=can,
                revealed=bool(reveal and can),
                maskStrategy=column["maskStrategy"],
            )
        shown.append(entry)
    return shown


def render(
    table: pa.Table,
    stored: Sequence[dict[str, Any]],
    revealable: dict[str, bool],
    reveal: bool,
    decrypt: Callable[[str], str],
) -> list[dict[str, Any]]:
    """JSON rows. Masked columns are revealed only where asked and allowed; LAST4 needs the plaintext to
    mask, so it is decrypted either way. Columns revealed for some tables only are rendered one by one."""
    columns = result_columns(stored)
    values: list[list[Any]] = []
    for index, (column, meta) in enumerate(zip(columns, stored, strict=True)):
        shown = bool(reveal and meta.get("masked") and revealable.get(meta.get("tableId", ""), False))
        decrypting = decrypt if meta.get("masked") else None
        values.append(column_values(table.column(index), column, shown, decrypting))
    return rows_of([column.name for column in columns], values)
