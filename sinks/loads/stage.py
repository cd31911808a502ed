# mypy: disable-error-code="import-untyped"
"""A load's rows written as data files of its table while its sources are still being read.

`add` gathers converted rows into chunks (a row group each) and hands every chunk to one of two writing
threads, each filling its own files: Parquet encoding costs more than reading or converting, and Arrow
does all three without holding the GIL, so on two cores the encoding overlaps the rest and itself runs
two at a time. A thread holds at most one chunk waiting, so memory stays a few chunks whatever the size
of the load. `_load_id` and `_record_id` are filled per chunk, record ids counting up in the order the
rows were added from the table's next free id as of the load's start.

The files stay invisible until the load commits them (`staged.commit_staged`); `discard` deletes them when
it does not. If another writer commits rows while the load runs, the ids the files hold may be taken: the
commit then asks for them to be moved past the ids in use (`renumber`), which rewrites the files once.
"""

from __future__ import annotations

import itertools
import queue
import threading
import uuid
from typing import Any

import pyarrow as pa
from pyiceberg.manifest import DataFile
from pyiceberg.table import Table

from sinks.iceberg.staged import StagedWrite
from sinks.loads.datafiles import (
    FileTarget,
    RollingFiles,
    SystemColumns,
    delete_files,
    renumbered_file,
    with_system_columns,
    write_partitioned,
)

__all__ = ["CHUNK_BYTES", "CHUNK_ROWS", "WRITERS", "StagedFiles"]

CHUNK_ROWS = 1 << 20
"""At most this many rows per chunk: pyiceberg's default row group (`write.parquet.row-group-limit`)."""
CHUNK_BYTES = 64 << 20
"""And at most about this many Arrow bytes, so that wide rows keep memory bounded too."""
WRITERS = 2
PARTITIONED_BYTES = 128 << 20
"""A partitioned table's rows are split into files per this many Arrow bytes of chunks (fewer, larger
files than per chunk, for a little more memory)."""
_DONE = object()


class StagedFiles:
    """The data files of one load, written by threads as rows are added."""

    def __init__(
        self,
        table: Table,
        load_id: str,
        first_record_id: int,
        *,
        chunk_rows: int = CHUNK_ROWS,
        chunk_bytes: int = CHUNK_BYTES,
        writers: int = WRITERS,
    ) -> None:
        target = FileTarget.of(table)
        self._target = target
        self._load_id = load_id
        self._first = self._next = first_record_id
        self._limits = (chunk_rows, chunk_bytes)
        self._pending: list[pa.Table] = []
        self._pending_rows = self._pending_bytes = 0
        prefix = f"{load_id}-{uuid.uuid4().hex[:12]}"
        self._lanes = [_Lane(target, load_id, f"{prefix}-{i}") for i in range(max(1, writers))]
        self._turn = itertools.cycle(self._lanes)
        self._replaced: list[DataFile] | None = None
        self._finished = False

    @property
    def files(self) -> list[DataFile]:
        """The data files written so far (the renumbered copies once `renumber` has run)."""
        if self._replaced is not None:
            return list(self._replaced)
        return [data_file for lane in self._lanes for data_file in lane.files]

    def add(self, rows: pa.Table) -> None:
        """Take converted rows (the table's user columns); raises what a writing thread raised."""
        self._pending.append(rows)
        self._pending_rows += rows.num_rows
        self._pending_bytes += rows.nbytes
        if self._pending_rows >= self._limits[0] or self._pending_bytes >= self._limits[1]:
            self._dispatch()

    def finish(self) -> StagedWrite:
        """Write what is left and close every file; the load's files, not yet committed."""
        if not self._finished:
            self._finished = True
            self._dispatch()
            for lane in self._lanes:
                lane.put(_DONE)
            for lane in self._lanes:
                lane.join()
        return self._staged()

    def renumber(self, first_record_id: int) -> StagedWrite:
        """The files rewritten with record ids from `first_record_id`; the former files are deleted."""
        self.finish()
        delta = first_record_id - self._first
        before = self.files
        copies: list[DataFile] = []
        try:
            for data_file in before:
                copies.append(renumbered_file(self._target, data_file, delta))
        except BaseException:
            delete_files(self._target.io, [copy.file_path for copy in copies])
            raise
        self._replaced = copies
        delete_files(self._target.io, [data_file.file_path for data_file in before])
        self._first, self._next = first_record_id, self._next + delta
        return self._staged()

    def discard(self) -> None:
        """Stop writing and delete every file written; for a load that is not committed."""
        for lane in self._lanes:
            lane.stop()
        paths = [path for lane in self._lanes for path in lane.created]
        delete_files(self._target.io, list(dict.fromkeys([*paths, *(f.file_path for f in self.files)])))

    def _staged(self) -> StagedWrite:
        return StagedWrite(self._load_id, tuple(self.files), self._next - self._first, self._first)

    def _dispatch(self) -> None:
        if not self._pending_rows:
            return
        chunk = pa.concat_tables(self._pending)
        self._pending, self._pending_rows, self._pending_bytes = [], 0, 0
        next(self._turn).put((chunk, self._next))
        self._next += chunk.num_rows


class _Lane:
    """One writing thread and its files."""

    def __init__(self, target: FileTarget, load_id: str, prefix: str) -> None:
        self._target = target
        self._schema = target.arrow_schema
        self._load_id = load_id
        self._system = SystemColumns(load_id, self._schema)
        self._rolling = RollingFiles(target, prefix)
        self._partitioned: list[DataFile] = []
        self._partitioned_table = target.partitioned
        self._write_uuid = uuid.uuid4()
        self._counter = itertools.count()
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=1)
        self._failure: BaseException | None = None
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._work, name=f"write {prefix}", daemon=True)
        self._thread.start()

    @property
    def files(self) -> list[DataFile]:
        return [*self._rolling.done, *self._partitioned]

    @property
    def created(self) -> list[str]:
        return list(self._rolling.created)

    def put(self, item: Any) -> None:
        while True:
            self._raise_failure()
            if not self._thread.is_alive():
                raise RuntimeError("a file writer of the load has stopped")
            try:
                self._queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def join(self) -> None:
        self._thread.join()
        self._raise_failure()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join()

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure

    def _work(self) -> None:
        held: list[pa.Table] = []  # a partitioned table's conformed chunks, split into files together
        held_bytes = 0
        try:
            while not self._stopped.is_set():
                try:
                    item = self._queue.get(timeout=0.1)
                except queue.Empty:
                    continue
                if item is _DONE:
                    self._write_partitioned(held)
                    self._rolling.close()
                    return
                chunk, first = item
                rows = with_system_columns(chunk, self._schema, self._load_id, first, self._system)
                if not self._partitioned_table:
                    self._rolling.write(rows)
                    continue
                held.append(rows)
                held_bytes += rows.nbytes
                if held_bytes >= PARTITIONED_BYTES:
                    self._write_partitioned(held)
                    held, held_bytes = [], 0
        except BaseException as error:  # raised again in the loading thread by put() or join()
            self._failure = error
        finally:
            if self._stopped.is_set() or self._failure is not None:
                self._rolling.abandon()

    def _write_partitioned(self, held: list[pa.Table]) -> None:
        if held:
            rows = pa.concat_tables(held)
            self._partitioned.extend(write_partitioned(self._target, rows, self._write_uuid, self._counter))
