# mypy: disable-error-code="import-untyped"
"""Stream the record batches of an uploaded CSV or Parquet file, every CSV column as text.

CSV is parsed by Arrow's streaming reader in 1 MiB blocks, so memory stays at a few blocks whatever the
file's size. Its threads are off: only the serial parser reports the row number of a malformed line
(a line with the wrong number of fields), and on the two-core hosts it reads as fast as the threaded one.
A malformed line does not fail the file: it is skipped by Arrow, and handed on with the batch whose rows
it sits among, so it is counted and sampled as a rejected row (`convert.convert_batch`). An S3 service that
fails the read (unreachable, refusing the key) is not the file's fault: that is StorageUnavailable, not
LoadFileError, and loading again once S3 is back is safe.
"""

from __future__ import annotations

import bisect
import logging
import posixpath
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.fs
import pyarrow.parquet as pq

from sinks.iceberg.exceptions import StorageUnavailable
from sinks.iceberg.storage import s3_service_failure, storage_failure
from sinks.loads.exceptions import LoadFileError

__all__ = ["CsvOptions", "LoadFileError", "MalformedRow", "SourceBatch", "SourceReader", "read_batches"]

LoadFormat = Literal["CSV", "PARQUET"]
CSV_BLOCK_BYTES = 1 << 20
"""Arrow's CSV block: the fastest size measured (1, 4 and 16 MiB tried); a batch is one block, ~10k rows."""
_LINE_CHARS = 2_000
_READ_ERRORS = (pa.ArrowException, OSError, ValueError)
UPLOAD_STORAGE = "upload storage"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CsvOptions:
    """How a CSV file is read; field names as in `schemas.jobs.CsvOptions`, so `CsvOptions(**model_dump())`.

    `null_string`: this exact (unquoted) text is null in every column. Besides, an empty or blank field
    is null in every column except STRING ones, where an empty field is the empty string, unless
    `null_string` is `""`. A quoted field is never null.
    """

    delimiter: str = ","
    header: bool = True
    null_string: str | None = None
    quote: str = '"'
    date_format: str | None = None
    timestamp_format: str | None = None


@dataclass(frozen=True)
class MalformedRow:
    """A CSV line with the wrong number of fields; it is a rejected row, not a file error."""

    row: int
    text: str
    fields: int
    expected: int


@dataclass(frozen=True)
class SourceBatch:
    """Rows of a file. `first_row` is the number (1-based, header not counted) of the first data row
    this part covers; its rows are numbered from it, skipping the numbers of `malformed`, which are the
    malformed lines among or just before them. The last part may have no rows and only malformed lines."""

    data: pa.RecordBatch
    first_row: int
    malformed: tuple[MalformedRow, ...] = ()


@dataclass
class SourceReader:
    """An opened source: its column names are known, its batches are read once by `batches()`."""

    source: str
    format: LoadFormat
    column_names: list[str]
    _open: Iterator[pa.RecordBatch] | None = field(repr=False)
    _pending: list[MalformedRow] = field(default_factory=list, repr=False)
    malformed_count: int = 0
    rows_read: int = 0

    def batches(self) -> Iterator[SourceBatch]:
        """The file's rows in order; raises LoadFileError when the file turns out unreadable midway.

        A thread reads ahead (two batches at most) while the caller converts, so reading and converting
        overlap; Arrow reads without holding the GIL. Closing the iterator early stops the thread."""
        if self._open is None:
            raise RuntimeError(f"{self.source} has already been read")
        stream, self._open = self._open, None
        return _read_ahead(self._numbered(stream), f"read {self.source}")

    def _numbered(self, stream: Iterator[pa.RecordBatch]) -> Iterator[SourceBatch]:
        """Runs on the reading thread, where Arrow also reports the malformed lines."""
        next_row = 1
        try:
            for batch in stream:
                end = next_row + batch.num_rows - 1
                taken = 0
                while taken < len(self._pending) and self._pending[taken].row <= end:
                    taken += 1
                    end += 1
                malformed = tuple(self._pending[:taken])
                del self._pending[:taken]
                self.rows_read += batch.num_rows
                yield SourceBatch(batch, next_row, malformed)
                next_row = end + 1
            if self._pending:
                empty = pa.RecordBatch.from_pylist([], schema=_text_schema(self.column_names))
                yield SourceBatch(empty, next_row, tuple(self._pending))
                self._pending.clear()
        except _READ_ERRORS as error:
            raise _failure(error, f"{self.source}: cannot be read past row {next_row - 1}: {error}") from None

    def _on_invalid_row(self, row: pcsv.InvalidRow, header_rows: int) -> str:
        number = (row.number or 0) - header_rows
        self.malformed_count += 1
        bisect.insort(
            self._pending,
            MalformedRow(number, row.text[:_LINE_CHARS], row.actual_columns, row.expected_columns),
            key=lambda malformed: malformed.row,
        )
        return "skip"


_ITEM, _END, _FAILED = "item", "end", "failed"


def _read_ahead(items: Iterator[SourceBatch], name: str, depth: int = 2) -> Iterator[SourceBatch]:
    ready: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def hand_over(kind: str, value: Any) -> bool:
        while not stop.is_set():
            try:
                ready.put((kind, value), timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not hand_over(_ITEM, item):
                    return
            hand_over(_END, None)
        except BaseException as error:  # handed to the caller's thread, which raises it
            hand_over(_FAILED, error)
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    def consume() -> Iterator[SourceBatch]:
        thread = threading.Thread(target=produce, name=name, daemon=True)
        thread.start()
        try:
            while True:
                kind, value = ready.get()
                if kind == _END:
                    return
                if kind == _FAILED:
                    raise value
                yield value
        finally:
            stop.set()
            thread.join()

    return consume()


def read_batches(
    filesystem: pyarrow.fs.FileSystem,
    path: str,
    fmt: LoadFormat,
    csv: CsvOptions,
    *,
    batch_rows: int = 131_072,
    source: str | None = None,
) -> SourceReader:
    """Open `path` and read its column names; the rows come from `.batches()`.

    CSV: every column is text (no type inference), the header row names the columns (without one they
    are `column_1`, `column_2`, ...). Parquet: columns keep their types, `batch_rows` rows per batch.
    `source` names the file in messages (default: the path's last segment). Raises LoadFileError when
    the file is missing, empty, not of the format, or corrupt.
    """
    shown = source or posixpath.basename(path)
    if fmt == "PARQUET":
        return _open_parquet(filesystem, path, shown, batch_rows)
    if fmt == "CSV":
        return _open_csv(filesystem, path, shown, csv)
    raise ValueError(f"unknown load format {fmt!r}")


def _open_parquet(filesystem: pyarrow.fs.FileSystem, path: str, source: str, batch_rows: int) -> SourceReader:
    try:
        handle = filesystem.open_input_file(path)
    except FileNotFoundError:
        raise LoadFileError(f"{source}: file not found") from None
    except _READ_ERRORS as error:
        raise _failure(error, f"{source}: cannot be opened: {error}") from None
    try:
        parquet = pq.ParquetFile(handle)
        names = list(parquet.schema_arrow.names)
    except _READ_ERRORS as error:
        handle.close()
        raise _failure(error, f"{source}: not a readable Parquet file: {error}") from None

    def stream() -> Iterator[pa.RecordBatch]:
        try:
            yield from parquet.iter_batches(batch_size=batch_rows)
        finally:
            handle.close()

    return SourceReader(source, "PARQUET", names, stream())


def _open_csv(filesystem: pyarrow.fs.FileSystem, path: str, source: str, csv: CsvOptions) -> SourceReader:
    # Arrow types CSV columns by name, so the names come first: a first open reads one block for them.
    parse = pcsv.ParseOptions(
        delimiter=csv.delimiter,
        quote_char=csv.quote,
        double_quote=True,
        newlines_in_values=True,
        invalid_row_handler=lambda row: "skip",
    )
    probe = pcsv.ReadOptions(
        use_threads=False, block_size=CSV_BLOCK_BYTES, autogenerate_column_names=not csv.header
    )
    try:
        with filesystem.open_input_stream(path) as handle:
            found = pcsv.open_csv(handle, read_options=probe, parse_options=parse).schema.names
    except FileNotFoundError:
        raise LoadFileError(f"{source}: file not found") from None
    except _READ_ERRORS as error:
        raise _failure(error, f"{source}: not a readable CSV file: {_csv_problem(error)}") from None
    names = list(found) if csv.header else [f"column_{i}" for i in range(1, len(found) + 1)]
    header_rows = 1 if csv.header else 0
    reader = SourceReader(source, "CSV", names, None)
    options = (
        pcsv.ReadOptions(
            use_threads=False, block_size=CSV_BLOCK_BYTES, column_names=names, skip_rows=header_rows
        ),
        pcsv.ParseOptions(
            delimiter=csv.delimiter,
            quote_char=csv.quote,
            double_quote=True,
            newlines_in_values=True,
            invalid_row_handler=lambda row: reader._on_invalid_row(row, header_rows),
        ),
        pcsv.ConvertOptions(
            column_types=dict.fromkeys(names, pa.string()),
            null_values=[] if csv.null_string is None else [csv.null_string],
            strings_can_be_null=csv.null_string is not None,
            quoted_strings_can_be_null=False,
        ),
    )

    def stream() -> Iterator[pa.RecordBatch]:
        with filesystem.open_input_stream(path) as handle:
            batches = pcsv.open_csv(
                handle, read_options=options[0], parse_options=options[1], convert_options=options[2]
            )
            yield from batches

    reader._open = stream()
    return reader


def _failure(error: Exception, message: str) -> LoadFileError | StorageUnavailable:
    """The error to raise for a failed read: the S3 service's failure, else the file's (``message``)."""
    if isinstance(error, OSError) and s3_service_failure(error):
        log.warning("a load's source could not be read", exc_info=error)  # the caller sees no bucket or key
        return storage_failure(error, UPLOAD_STORAGE)
    return LoadFileError(message)


def _csv_problem(error: Exception) -> str:
    text = str(error)
    return "the file is empty" if "Empty CSV file" in text else text


def _text_schema(names: list[str]) -> pa.Schema:
    return pa.schema([pa.field(name, pa.string()) for name in names])
