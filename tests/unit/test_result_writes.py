"""Query results written as they come under a row and a byte limit, and downloads streamed in bounded
pieces (sinks/job_results.py, sinks/result_downloads.py), over a real local object store."""

from __future__ import annotations

import io
import os
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sinks.iceberg.results import MASK_TEXT
from sinks.job_results import ROW_GROUP_ROWS, rows_within, write_batches
from sinks.objectstore.local import LocalObjectStore
from sinks.result_downloads import DOWNLOAD_CHUNK_BYTES, parquet_chunks, stored_chunks

pytestmark = pytest.mark.unit

KEY = "results/c1/j1.parquet"
SCHEMA = pa.schema([("id", pa.int64()), ("secret", pa.string())])
COLUMNS: list[dict[str, Any]] = [
    {"name": "id", "type": "LONG"},
    {"name": "secret", "type": "STRING", "masked": True, "maskStrategy": "FULL", "tableId": "t1"},
]


def batches(count: int, rows: int, width: int = 64) -> Iterator[pa.RecordBatch]:
    for number in range(count):
        ids = list(range(number * rows, (number + 1) * rows))
        # Random text does not compress: the stored file is about as large as the rows.
        secrets = [os.urandom(width // 2).hex() for _ in ids]
        yield pa.record_batch([pa.array(ids, pa.int64()), pa.array(secrets, pa.string())], schema=SCHEMA)


@pytest.fixture
def store(tmp_path: Path) -> LocalObjectStore:
    return LocalObjectStore(tmp_path / "objects", "svc-test")


def stored(store: LocalObjectStore) -> pa.Table:
    return pq.read_table(store.root / KEY)


def test_rows_within_a_byte_room() -> None:
    batch = next(batches(1, 1000))
    assert rows_within(batch, 1000, batch.nbytes) == 1000
    assert rows_within(batch, 10, batch.nbytes) == 10
    half = rows_within(batch, 1000, batch.nbytes // 2)
    assert 0 < half < 1000
    assert batch.slice(0, half).nbytes <= batch.nbytes // 2 < batch.slice(0, half + 1).nbytes
    assert rows_within(batch, 1000, 0) == 0 and rows_within(batch, 0, 10**9) == 0


def test_every_row_is_kept_under_both_limits(store: LocalObjectStore) -> None:
    written = write_batches(store, KEY, SCHEMA, batches(3, 5000), max_rows=15_000, max_bytes=10**9)
    assert (written.rows, written.truncated, written.cut_by) == (15_000, False, None)
    table = stored(store)
    assert table.num_rows == 15_000 and table.column("id").to_pylist() == list(range(15_000))
    assert pq.ParquetFile(store.root / KEY).num_row_groups >= 15_000 // ROW_GROUP_ROWS


def test_the_row_limit_cuts_the_result(store: LocalObjectStore) -> None:
    written = write_batches(store, KEY, SCHEMA, batches(3, 5000), max_rows=7_000, max_bytes=10**9)
    assert (written.rows, written.cut_by) == (7_000, "ROWS")
    assert stored(store).num_rows == 7_000
    exact = write_batches(store, KEY, SCHEMA, batches(2, 5000), max_rows=10_000, max_bytes=10**9)
    assert (exact.rows, exact.truncated) == (10_000, False)


def test_the_byte_limit_cuts_the_result(store: LocalObjectStore) -> None:
    one_batch = next(batches(1, 5000)).nbytes
    limit = int(one_batch * 1.5)
    written = write_batches(store, KEY, SCHEMA, batches(4, 5000), max_rows=10**6, max_bytes=limit)
    assert written.cut_by == "BYTES" and written.truncated
    assert 5000 < written.rows < 10_000 and written.bytes <= limit
    table = stored(store)
    assert table.num_rows == written.rows and table.column("id").to_pylist() == list(range(written.rows))
    nothing = write_batches(store, KEY, SCHEMA, batches(1, 10), max_rows=10, max_bytes=1)
    assert (nothing.rows, nothing.cut_by) == (0, "BYTES") and stored(store).num_rows == 0


def test_a_failure_midway_leaves_no_partial_result(store: LocalObjectStore) -> None:
    def failing() -> Iterator[pa.RecordBatch]:
        yield from batches(2, 1000)
        raise RuntimeError("the query failed")

    with pytest.raises(RuntimeError):
        write_batches(store, KEY, SCHEMA, failing(), max_rows=10**6, max_bytes=10**9)
    assert not store.exists(KEY)


def test_a_stored_file_streams_in_bounded_pieces(store: LocalObjectStore) -> None:
    write_batches(store, KEY, SCHEMA, batches(10, 10_000), max_rows=10**6, max_bytes=10**9)
    size = store.size(KEY)
    assert size > 4 * DOWNLOAD_CHUNK_BYTES
    tracemalloc.start()
    try:
        total = 0
        pieces = 0
        for piece in stored_chunks(store, KEY):
            assert len(piece) <= DOWNLOAD_CHUNK_BYTES
            total += len(piece)
            pieces += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert total == size and pieces > 4
    assert peak < size / 4, (peak, size)


def test_a_masked_parquet_download_is_rewritten_a_batch_at_a_time(
    store: LocalObjectStore, tmp_path: Path
) -> None:
    write_batches(store, KEY, SCHEMA, batches(20, 2_500, width=256), max_rows=10**6, max_bytes=10**9)
    size = store.size(KEY)

    def no_decrypt(text: str) -> str:
        raise AssertionError("a FULL mask shown masked needs no plaintext")

    downloaded = tmp_path / "download.parquet"
    pieces = 0
    tracemalloc.start()
    try:
        with downloaded.open("wb") as target:
            for piece in parquet_chunks(store, KEY, COLUMNS, {"t1": False}, False, no_decrypt):
                pieces += 1 if piece else 0
                target.write(piece)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert pieces > 10
    assert peak < size / 4, (peak, size)
    table = pq.read_table(downloaded)
    assert table.num_rows == 50_000 and table.column("id").to_pylist() == list(range(50_000))
    assert set(table.column("secret").to_pylist()) == {MASK_TEXT}


def test_an_empty_masked_result_downloads_as_an_empty_file(store: LocalObjectStore) -> None:
    write_batches(store, KEY, SCHEMA, iter(()), max_rows=10, max_bytes=10**9)
    content = b"".join(parquet_chunks(store, KEY, COLUMNS, {}, False, str))
    table = pq.read_table(io.BytesIO(content))
    assert table.num_rows == 0 and table.schema.names == ["id", "secret"]
