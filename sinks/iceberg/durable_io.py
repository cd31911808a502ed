# mypy: disable-error-code="import-untyped"
"""The tables' FileIO: every file of a commit durable before the catalog names it.

pyiceberg writes all the files of a commit through the table's FileIO (Parquet data files, Avro manifests
and the manifest list, then the metadata JSON a reader opens first), and only then moves the catalog's
pointer. On a local warehouse a written file sits in the page cache until the kernel flushes it: a power
loss or kernel crash after the pointer moved would leave a committed snapshot naming a missing or truncated
file. So a file written here is fsynced when it is closed, and the directories that gained a file (or a new
subdirectory) are fsynced when a metadata JSON is closed, once per commit, which is still before the pointer
moves (``sqlite``/PostgreSQL then make the pointer itself durable).

On S3 nothing is added: pyarrow's output stream completes the object (one PUT, or the multipart upload's
completion) in ``close()`` and raises if that fails, and pyiceberg closes each file before it names it, so
an object is whole and durable once ``close()`` returns.

The catalog loads this class through its ``py-io-impl`` property (``catalog.make_catalog``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import pyarrow as pa
from pyiceberg.io import OutputStream
from pyiceberg.io.pyarrow import BUFFER_SIZE, ONE_MEGABYTE, PyArrowFile, PyArrowFileIO

DURABLE_FILE_IO = f"{__name__}.DurableFileIO"
_METADATA_SUFFIX = ".metadata.json"


class DurableFileIO(PyArrowFileIO):
    """pyiceberg's PyArrow FileIO whose local output files are fsynced on close (see the module)."""

    def new_output(self, location: str) -> PyArrowFile:
        scheme, netloc, path = self.parse_location(location, self.properties)
        if scheme != "file":
            return super().new_output(location)
        return _LocalOutput(
            location=location,
            path=path,
            fs=self.fs_by_scheme(scheme, netloc),
            buffer_size=int(self.properties.get(BUFFER_SIZE, ONE_MEGABYTE)),
        )


class _LocalOutput(PyArrowFile):
    def create(self, overwrite: bool = False) -> OutputStream:
        if not overwrite and self.exists():
            raise FileExistsError(f"Cannot create file, already exists: {self.location}")
        directory = os.path.dirname(self._path)
        PENDING_DIRECTORIES.make(directory)
        stream = _SyncedStream(pa.OSFile(self._path, "wb"), self._buffer_size)
        # Marked again now that the file's entry exists: a concurrent commit's sync may have taken the mark
        # made above before the entry was created.
        PENDING_DIRECTORIES.make(directory)
        if self._path.endswith(_METADATA_SUFFIX):
            # The last file a commit writes before the catalog's pointer moves.
            stream.after_close = PENDING_DIRECTORIES.sync
        return stream


class _SyncedStream(pa.BufferedOutputStream):  # type: ignore[misc]
    """A buffered local file that is flushed and fsynced before it closes.

    A subclass of Arrow's own stream, not a Python wrapper: the Parquet and Avro writers still write to a
    native stream, and their ``with``/``close()`` calls reach this ``close``.
    """

    def __init__(self, raw: pa.OSFile, buffer_size: int) -> None:
        super().__init__(raw, buffer_size)
        self._raw = raw
        self.after_close: Callable[[], None] | None = None

    def close(self) -> None:
        if self.closed:
            return
        try:
            self.flush()
            os.fsync(self._raw.fileno())
        finally:
            super().close()
        if self.after_close is not None:
            self.after_close()


class PendingDirectories:
    """Directories that gained an entry since they were last fsynced, in this process.

    A table's FileIO is made anew each time the table is loaded, and a commit's files are written by other
    threads (pyiceberg's write pool, a load's writers), so the set is the process's, and a sync covers every
    table's directories. Syncs run one at a time: a file created before a sync starts is covered by it, and a
    committer whose directories another sync took waits for that sync to finish.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._syncing = threading.Lock()
        self._pending: set[str] = set()

    def make(self, directory: str) -> None:
        """``directory`` and its missing parents created; it and each new one's parent are pending."""
        created: list[str] = []
        missing = directory
        while not os.path.isdir(missing):
            created.append(missing)
            parent = os.path.dirname(missing)
            if parent == missing:
                break
            missing = parent
        if created:
            os.makedirs(directory, exist_ok=True)
        with self._lock:
            self._pending.add(directory)
            self._pending.update(os.path.dirname(path) for path in created)

    def pending(self) -> set[str]:
        with self._lock:
            return set(self._pending)

    def sync(self) -> None:
        with self._syncing:
            with self._lock:
                taken, self._pending = self._pending, set()
            done: set[str] = set()
            try:
                for directory in sorted(taken):
                    fsync_directory(directory)
                    done.add(directory)
            except BaseException:
                with self._lock:
                    self._pending |= taken - done
                raise


def fsync_directory(directory: str) -> None:
    """Make ``directory``'s entries durable; a directory removed meanwhile has nothing left to keep."""
    try:
        descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


PENDING_DIRECTORIES = PendingDirectories()
