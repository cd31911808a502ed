"""Downloads of a stored query result, streamed in bounded pieces and never built whole in memory: CSV a
few thousand rows at a time, JSON Lines a few hundred; Parquet as the stored file itself when it needs no
rewriting, else rewritten a few thousand rows at a time with masked columns replaced by what the caller may
see.

A download's first piece is read before its answer starts (``started``), so a store that cannot be read
refuses the download with 503 ``STORAGE_UNAVAILABLE`` instead of an empty 200. A failure after that cannot
change the status any more: it is logged and ends the stream with an error, so the server breaks the
connection off before the chunked body's last piece and the client sees the download incomplete, never a
shorter file that looks whole."""

from __future__ import annotations

import csv
import io
import json
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from sinks.job_results import render, result_storage

if TYPE_CHECKING:
    from sinks.objectstore import ObjectStore

# Rows rendered at once for a CSV or a rewritten Parquet download, and the piece size of a stored Parquet
# file streamed as it is: what a download holds in memory at a time.
DOWNLOAD_BATCH_ROWS = 2_000
DOWNLOAD_CHUNK_BYTES = 256 * 1024
# JSON Lines are rendered a quarter batch at a time: a row as a dict of Python values takes several times
# its line in memory.
JSONL_PIECE_ROWS = 500
log = logging.getLogger(__name__)


class DownloadBrokenOff(Exception):
    """The stored result could not be read any further after the download's answer had started."""


def started(pieces: Iterator[bytes], job_id: str) -> Iterator[bytes]:
    """``pieces`` with the first one read now: StorageUnavailable or ResultGone (``result_storage``) before
    a byte is sent. A failure of a later piece is logged and raised as DownloadBrokenOff."""
    with result_storage():
        first = next(pieces, None)
    return _rest(first, pieces, job_id)


def _rest(first: bytes | None, pieces: Iterator[bytes], job_id: str) -> Iterator[bytes]:
    if first is None:
        return
    yield first
    sent = len(first)
    try:
        for piece in pieces:
            yield piece
            sent += len(piece)
    except Exception as error:
        # The status is sent: raising is the one way left to make the server cut the connection off.
        log.warning(
            "a result download broke off; its connection is cut",
            extra={"job_id": job_id, "bytes_sent": sent, "error": type(error).__name__},
            exc_info=True,
        )
        raise DownloadBrokenOff(f"the download of job {job_id} broke off after {sent} bytes") from error


def _batches(store: ObjectStore, key: str) -> Iterator[pa.RecordBatch]:
    """The stored result a few thousand rows at a time, one row group read at a time (asked for all row
    groups at once, Arrow's reader holds the whole file's column chunks)."""
    filesystem, base = store.arrow_filesystem()
    with filesystem.open_input_file(f"{base}/{key}") as source:
        parquet = pq.ParquetFile(source)
        for group in range(parquet.num_row_groups):
            yield from parquet.iter_batches(batch_size=DOWNLOAD_BATCH_ROWS, row_groups=[group])


def csv_chunks(
    store: ObjectStore,
    key: str,
    stored: Sequence[dict[str, Any]],
    revealable: dict[str, bool],
    reveal: bool,
    decrypt: Callable[[str], str],
) -> Iterator[bytes]:
    """The result as CSV, a batch of rows at a time; values as in JSON (nested ones as JSON text)."""
    names = [c["name"] for c in stored]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    for batch in _batches(store, key):
        for row in render(pa.Table.from_batches([batch]), stored, revealable, reveal, decrypt):
            writer.writerow([_csv_value(row[name]) for name in names])
        yield buffer.getvalue().encode()
        buffer.seek(0)
        buffer.truncate()
    if buffer.tell():
        yield buffer.getvalue().encode()


def jsonl_chunks(
    store: ObjectStore,
    key: str,
    stored: Sequence[dict[str, Any]],
    revealable: dict[str, bool],
    reveal: bool,
    decrypt: Callable[[str], str],
) -> Iterator[bytes]:
    """The result as JSON Lines, ``JSONL_PIECE_ROWS`` rows at a time: one object per row, the very objects
    of /job-results rows, serialized as its JSON answers are (UTF-8, compact, no bare NaN)."""
    for batch in _batches(store, key):
        for start in range(0, batch.num_rows, JSONL_PIECE_ROWS):
            piece = pa.Table.from_batches([batch.slice(start, JSONL_PIECE_ROWS)])
            yield "".join(map(_json_line, render(piece, stored, revealable, reveal, decrypt))).encode()


def _json_line(row: dict[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n"


def needs_rendering(stored: Sequence[dict[str, Any]]) -> bool:
    """Whether a Parquet download must be rewritten: masked columns hold ciphertext in the stored file."""
    return any(c.get("masked") for c in stored)


def stored_chunks(store: ObjectStore, key: str, chunk_bytes: int = DOWNLOAD_CHUNK_BYTES) -> Iterator[bytes]:
    """The stored Parquet file as it is, in pieces of ``chunk_bytes``."""
    filesystem, base = store.arrow_filesystem()
    with filesystem.open_input_stream(f"{base}/{key}") as source:
        while True:
            piece: bytes = source.read(chunk_bytes)
            if not piece:
                return
            yield piece


class _Pieces(io.RawIOBase):
    """A write-only file that hands over what was written since the last ``take``."""

    def __init__(self) -> None:
        super().__init__()
        self._pieces: list[bytes] = []
        self._position = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        piece = bytes(data)
        self._pieces.append(piece)
        self._position += len(piece)
        return len(piece)

    def tell(self) -> int:
        return self._position

    def take(self) -> bytes:
        taken = b"".join(self._pieces)
        self._pieces.clear()
        return taken


def parquet_chunks(
    store: ObjectStore,
    key: str,
    stored: Sequence[dict[str, Any]],
    revealable: dict[str, bool],
    reveal: bool,
    decrypt: Callable[[str], str],
) -> Iterator[bytes]:
    """The result as Parquet with masked columns replaced by what the caller may see. Without masked
    columns the stored file is streamed as it is; with them it is rewritten a batch at a time."""
    if not needs_rendering(stored):
        yield from stored_chunks(store, key)
        return
    pieces = _Pieces()
    writer: pq.ParquetWriter | None = None
    for batch in _batches(store, key):
        table = pa.Table.from_batches([batch])
        for index, meta in enumerate(stored):
            if not meta.get("masked"):
                continue
            values = render(table.select([index]), [meta], revealable, reveal, decrypt)
            table = table.set_column(
                index, meta["name"], pa.array([v[meta["name"]] for v in values], pa.string())
            )
        if writer is None:
            writer = pq.ParquetWriter(pieces, table.schema)
        writer.write_table(table)
        yield pieces.take()
    if writer is None:  # no rows: an empty file of the shown schema
        schema = _shown_schema(store, key, stored)
        writer = pq.ParquetWriter(pieces, schema)
    writer.close()
    yield pieces.take()


def _shown_schema(store: ObjectStore, key: str, stored: Sequence[dict[str, Any]]) -> pa.Schema:
    filesystem, base = store.arrow_filesystem()
    with filesystem.open_input_file(f"{base}/{key}") as source:
        schema = pq.ParquetFile(source).schema_arrow
    for index, meta in enumerate(stored):
        if meta.get("masked"):
            schema = schema.set(index, pa.field(meta["name"], pa.string()))
    return schema


def _csv_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(value, separators=(",", ":"))
    return str(value)
