"""Objects of the local store kept as their multipart parts, read as one file.

Completing a multipart upload does not copy the parts into one file (on a filesystem without reflinks
that is a second full write of the upload): the upload's folder is renamed to the object's path with a
manifest naming its parts in order. Every read of the store (`get_bytes`, `size`, the Arrow filesystem the
loads and results use) sees the concatenation, as S3 serves a multipart object.

Layout: ``<root>/<key>/`` is a folder holding the part files and ``MANIFEST``, a JSON object
``{"size": total, "parts": [[file name, size], ...]}``, written last, so a folder without it is not an
object.
"""

from __future__ import annotations

import bisect
import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.fs

MANIFEST = ".svc-parts.json"


@dataclass(frozen=True)
class Assembled:
    folder: Path
    parts: tuple[tuple[str, int], ...]

    @property
    def size(self) -> int:
        return sum(size for _, size in self.parts)

    def paths(self) -> list[Path]:
        return [self.folder / name for name, _ in self.parts]


def assembled_at(path: Path) -> Assembled | None:
    """The assembled object at ``path``; None when it is a plain file or nothing."""
    try:
        manifest = json.loads((path / MANIFEST).read_text())
    except (FileNotFoundError, NotADirectoryError):
        return None
    parts = tuple((str(name), int(size)) for name, size in manifest["parts"])
    return Assembled(path, parts)


def write_manifest(folder: Path, parts: Sequence[tuple[str, int]]) -> None:
    """Names ``parts`` (file names in ``folder``, in order) as the object's content, atomically."""
    temporary = folder / f"{MANIFEST}.tmp"
    try:
        with temporary.open("w") as sink:
            json.dump({"size": sum(size for _, size in parts), "parts": list(parts)}, sink)
            sink.flush()
            os.fsync(sink.fileno())
        os.replace(temporary, folder / MANIFEST)
    finally:
        temporary.unlink(missing_ok=True)  # a write cut off midway (a full disk) keeps no space


class ConcatenatedFile(io.RawIOBase):
    """A read-only, seekable file over several files end to end; a read fills its buffer across them."""

    def __init__(self, object_: Assembled) -> None:
        super().__init__()
        self._paths = object_.paths()
        self._starts: list[int] = []
        offset = 0
        for _, size in object_.parts:
            self._starts.append(offset)
            offset += size
        self._size = offset
        self._position = 0
        self._open_index = -1
        self._handle: io.BufferedReader | None = None
        self._read_through = -1  # the last part a read reached the end of

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        if base + offset < 0:
            raise ValueError("negative seek position")
        self._position = base + offset
        return self._position

    def _part(self, index: int) -> io.BufferedReader:
        if index != self._open_index or self._handle is None:
            self._close_part()
            self._handle = self._paths[index].open("rb")
            self._open_index = index
            self._read_through = -1
            _advise(self._handle, "POSIX_FADV_SEQUENTIAL")
        return self._handle

    def _close_part(self) -> None:
        """Close the open part; one read to its end is dropped from the page cache, as the store writes
        parts around it (`local._drop_cached`): a load reads its source once, front to back, and reused
        pages cost less than fresh ones."""
        if self._handle is None:
            return
        if self._read_through == self._open_index:
            _advise(self._handle, "POSIX_FADV_DONTNEED")
        self._handle.close()
        self._handle = None

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        filled = 0
        while filled < len(view) and self._position < self._size:
            index = bisect.bisect_right(self._starts, self._position) - 1
            handle = self._part(index)
            handle.seek(self._position - self._starts[index])
            end = self._starts[index + 1] if index + 1 < len(self._starts) else self._size
            wanted = min(len(view) - filled, end - self._position)
            got = handle.readinto(view[filled : filled + wanted])
            if not got:
                raise OSError(f"part {self._paths[index].name} is shorter than its manifest says")
            filled += got
            self._position += got
            if self._position == end:
                self._read_through = index
        return filled

    def close(self) -> None:
        self._close_part()
        super().close()


def _advise(handle: io.BufferedReader, advice: str) -> None:
    if hasattr(os, advice):  # POSIX systems
        os.posix_fadvise(handle.fileno(), 0, 0, getattr(os, advice))


class AssembledAwareHandler(pyarrow.fs.FSSpecHandler):  # type: ignore[misc]
    """The local store's Arrow filesystem: an assembled object opens and lists as one file."""

    def get_file_info(self, paths: list[str]) -> list[pyarrow.fs.FileInfo]:
        infos: list[pyarrow.fs.FileInfo] = super().get_file_info(paths)
        for index, info in enumerate(infos):
            if info.type == pyarrow.fs.FileType.Directory:
                found = assembled_at(Path(info.path))
                if found is not None:
                    infos[index] = pyarrow.fs.FileInfo(info.path, pyarrow.fs.FileType.File, size=found.size)
        return infos

    def _open(self, path: str) -> pa.PythonFile | None:
        found = assembled_at(Path(path))
        return None if found is None else pa.PythonFile(ConcatenatedFile(found), mode="r")

    def open_input_stream(self, path: str) -> pa.PythonFile:
        return self._open(path) or super().open_input_stream(path)

    def open_input_file(self, path: str) -> pa.PythonFile:
        return self._open(path) or super().open_input_file(path)
