"""The object store on a local directory: one file per object, multipart parts staged beside the objects.

Every write goes to a temporary file or folder that is renamed into place, so a reader sees a whole object
or none; a write that finds the file system full leaves nothing behind and raises StorageFull (503 with
``Retry-After`` at the ingress). A completed multipart upload of several parts stays as its parts
(`assembled.py`): completing it renames a folder instead of writing the whole upload a second time.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import uuid
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from itertools import islice
from pathlib import Path
from typing import BinaryIO, ParamSpec, TypeVar

import fsspec
import pyarrow.fs

from schemas.ids import new_id
from sinks.iceberg.exceptions import StorageFull
from sinks.objectstore.assembled import (
    MANIFEST,
    AssembledAwareHandler,
    ConcatenatedFile,
    assembled_at,
    write_manifest,
)
from sinks.objectstore.base import (
    RESERVED_PREFIX,
    ObjectStore,
    check_key,
    check_part_number,
    check_parts,
    quoted_etag,
)
from sinks.objectstore.exceptions import NoSuchKey, NoSuchUpload
from sinks.storage_full import full

CHUNK_BYTES = 1024 * 1024
_UPLOAD_ID = re.compile(r"^[0-9a-f]{32}$")
_PART_FILE = re.compile(r"^(\d+)-([0-9a-f]{32})\.part$")
P = ParamSpec("P")
R = TypeVar("R")


def _roomy(call: Callable[P, R]) -> Callable[P, R]:
    """The store's write, a file system without room for it reported as StorageFull."""

    @functools.wraps(call)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return call(*args, **kwargs)
        except OSError as error:
            if not full(error):
                raise
            raise StorageFull("object storage") from error

    return guarded


class LocalObjectStore(ObjectStore):
    def __init__(self, root: Path, bucket: str) -> None:
        super().__init__(bucket)
        self.root = root.expanduser().resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self.staging = self.root / RESERVED_PREFIX

    def _path(self, key: str) -> Path:
        return self.root / check_key(key)

    @_roomy
    def put_bytes(self, key: str, data: bytes) -> None:
        target = self._path(key)
        temporary = _temporary_beside(target)
        try:
            temporary.write_bytes(data)
            _move_into_place(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)  # a write cut off midway (a full disk) keeps no space

    def get_bytes(self, key: str) -> bytes:
        path = self._path(key)
        assembled = assembled_at(path)
        try:
            if assembled is not None:
                with ConcatenatedFile(assembled) as whole:
                    return whole.read()
            return path.read_bytes()
        except (FileNotFoundError, IsADirectoryError) as error:
            raise NoSuchKey(f"No object {key}") from error

    def exists(self, key: str) -> bool:
        path = self._path(key)
        return path.is_file() or assembled_at(path) is not None

    def size(self, key: str) -> int:
        path = self._path(key)
        if path.is_file():
            return path.stat().st_size
        assembled = assembled_at(path)
        if assembled is None:
            raise NoSuchKey(f"No object {key}")
        return assembled.size

    def delete(self, key: str) -> None:
        path = self._path(key)
        if assembled_at(path) is not None:
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)

    def delete_prefix(self, prefix: str) -> int:
        check_key(prefix, prefix=True)
        removed = 0
        folder, _, stem = prefix.rpartition("/")
        base = self.root / folder if folder else self.root
        if not base.is_dir():
            return 0
        for entry in list(base.iterdir()):
            if not entry.name.startswith(stem) or (not folder and entry.name == RESERVED_PREFIX):
                continue
            if entry.is_dir():
                removed += _count_objects(entry)
                shutil.rmtree(entry)
            else:
                entry.unlink(missing_ok=True)
                removed += 1
        return removed

    def list_older(
        self, prefix: str, older_than: datetime, limit: int, start_after: str | None = None
    ) -> list[str]:
        check_key(prefix, prefix=True)
        after = "" if start_after is None else check_key(start_after)
        folder, _, stem = prefix.rpartition("/")
        base = self.root / folder if folder else self.root
        cutoff = older_than.timestamp()
        listed = _listed(base, f"{folder}/" if folder else "", stem, after)
        return list(islice((key for key, modified in listed if modified < cutoff), limit))

    def sizes(self, prefix: str = "") -> Iterator[tuple[str, int]]:
        if prefix:
            check_key(prefix, prefix=True)
        folder, _, stem = prefix.rpartition("/")
        base = self.root / folder if folder else self.root
        for key, _modified in _listed(base, f"{folder}/" if folder else "", stem, ""):
            try:
                yield key, self.size(key)
            except NoSuchKey:  # deleted since it was listed
                continue

    def top_level(self) -> list[str]:
        with os.scandir(self.root) as scan:
            folders = [
                entry.name
                for entry in scan
                if entry.is_dir(follow_symlinks=False)
                and entry.name != RESERVED_PREFIX
                and not (Path(entry.path) / MANIFEST).is_file()
            ]
        return sorted(folders)

    def arrow_filesystem(self) -> tuple[pyarrow.fs.FileSystem, str]:
        # pyarrow's own LocalFileSystem does not create a new key's folders on write; fsspec's does.
        handler = AssembledAwareHandler(fsspec.filesystem("file", auto_mkdir=True))
        return pyarrow.fs.PyFileSystem(handler), str(self.root)

    # multipart

    def _upload_dir(self, key: str, upload_id: str) -> Path:
        check_key(key)
        if not _UPLOAD_ID.match(upload_id):
            raise NoSuchUpload(f"No upload {upload_id!r}")
        folder = self.staging / upload_id
        try:
            recorded = (folder / "key").read_text()
        except FileNotFoundError as error:
            raise NoSuchUpload(f"No upload {upload_id} (completed, aborted or never started)") from error
        if recorded != key:
            raise NoSuchUpload(f"Upload {upload_id} is not for key {key}")
        return folder

    @_roomy
    def initiate_multipart(self, key: str) -> str:
        check_key(key)
        upload_id = new_id()
        folder = self.staging / upload_id
        folder.mkdir(parents=True)
        try:
            (folder / "key").write_text(key)
        except OSError:
            shutil.rmtree(folder, ignore_errors=True)  # no half-made upload (a full disk)
            raise
        return upload_id

    @_roomy
    def put_part(self, key: str, upload_id: str, part_number: int, data: bytes | BinaryIO) -> str:
        check_part_number(part_number)
        folder = self._upload_dir(key, upload_id)
        temporary = folder / f"{part_number}.{uuid.uuid4().hex}.tmp"
        digest = hashlib.sha256()
        try:
            sink = temporary.open("wb")
        except FileNotFoundError as error:
            raise NoSuchUpload(f"No upload {upload_id} (aborted or expired)") from error
        try:
            with sink:
                if isinstance(data, bytes):
                    digest.update(data)
                    sink.write(data)
                else:
                    while chunk := data.read(CHUNK_BYTES):
                        digest.update(chunk)
                        sink.write(chunk)
                # A part answered with its ETag is on disk, as S3 keeps a part it acknowledged. Writing it
                # out now also keeps a finished upload's data from being flushed during the load after it.
                # Its pages are then dropped from the page cache: the load reads it once.
                sink.flush()
                os.fsync(sink.fileno())
                _drop_cached(sink.fileno())
            etag_hex = part_etag_hex(digest)
            # The ETag is in the part's file name, so the part and its ETag appear in one atomic rename.
            try:
                os.replace(temporary, folder / f"{part_number}-{etag_hex}.part")
                _sync_folder(folder)
            except FileNotFoundError as error:
                raise NoSuchUpload(f"No upload {upload_id} (aborted or expired)") from error
        finally:
            temporary.unlink(missing_ok=True)
        for older in folder.glob(f"{part_number}-*.part"):
            if older.name != f"{part_number}-{etag_hex}.part":
                older.unlink(missing_ok=True)
        return quoted_etag(etag_hex)

    def _stored_parts(self, folder: Path, etags: Mapping[int, str]) -> dict[int, tuple[str, int, Path]]:
        stored: dict[int, tuple[str, int, Path]] = {}
        for path in folder.iterdir():
            match = _PART_FILE.match(path.name)
            if match is None:
                continue
            number, etag_hex = int(match.group(1)), match.group(2)
            # Two racing uploads of one part may both be present for a moment: keep the one the caller names.
            if number in stored and quoted_etag(etag_hex) != etags.get(number):
                continue
            stored[number] = (quoted_etag(etag_hex), path.stat().st_size, path)
        return stored

    @_roomy
    def complete_multipart(self, key: str, upload_id: str, etags: Mapping[int, str]) -> None:
        folder = self._upload_dir(key, upload_id)
        stored = self._stored_parts(folder, etags)
        numbers = check_parts(etags, {n: (etag, size) for n, (etag, size, _) in stored.items()})
        target = self._path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        if len(numbers) == 1:
            _move_into_place(stored[numbers[0]][2], target)
            _sync_folder(target.parent)
            shutil.rmtree(folder, ignore_errors=True)
            return
        # The upload's folder becomes the object: its parts stay where they were written.
        chosen = [(stored[number][2].name, stored[number][1]) for number in numbers]
        names = {name for name, _ in chosen} | {MANIFEST}
        # The manifest first: a write refused for a full disk leaves the upload as it was, to complete again.
        write_manifest(folder, chosen)
        for path in folder.iterdir():
            if path.name not in names:
                path.unlink(missing_ok=True)
        _move_into_place(folder, target)
        _sync_folder(target.parent)

    def abort_multipart(self, key: str, upload_id: str) -> None:
        shutil.rmtree(self._upload_dir(key, upload_id), ignore_errors=True)

    def discard_multipart(self, key: str, upload_id: str) -> None:
        check_key(key)
        if not _UPLOAD_ID.match(upload_id):
            return
        folder = self.staging / upload_id
        try:
            recorded = (folder / "key").read_text()
        except FileNotFoundError:
            recorded = key  # gone, or only a part that raced an earlier discard is left
        if recorded != key:
            raise NoSuchUpload(f"Upload {upload_id} is not for key {key}")
        shutil.rmtree(folder, ignore_errors=True)
        if folder.exists():  # a part was being renamed in while the folder was emptied
            shutil.rmtree(folder)

    def multipart_bytes(self, key: str, upload_id: str) -> int:
        folder = self._upload_dir(key, upload_id)
        total = 0
        for path in folder.iterdir():
            if _PART_FILE.match(path.name):
                try:
                    total += path.stat().st_size
                except FileNotFoundError:  # replaced by a newer upload of the same part meanwhile
                    continue
        return total

    def presigned_part_url(
        self, key: str, upload_id: str, part_number: int, expires_seconds: int
    ) -> str | None:
        return None


def _move_into_place(source: Path, target: Path) -> None:
    """Renames a file or an assembled object's folder to ``target``, replacing the object there. A file
    replaces a file atomically; replacing a folder, or a folder with a file, moves the old one aside first,
    so a reader at that moment finds no object (object keys are fresh per upload, so this is rare)."""
    if target.is_dir() or (source.is_dir() and target.exists()):
        aside = _temporary_beside(target)
        os.replace(target, aside)
        os.replace(source, target)
        shutil.rmtree(aside, ignore_errors=True)
    else:
        os.replace(source, target)


def _sync_folder(folder: Path) -> None:
    """Makes the names just created or renamed in ``folder`` durable."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _listed(folder: Path, base: str, stem: str, after: str) -> Iterator[tuple[str, float]]:
    """(key, last-modified time) of each object in ``folder`` and below whose name starts with ``stem``,
    the keys after ``after``, in key order: a folder's objects sort as ``name/...``, so walking sorted
    entries lists exactly as S3 does. Multipart staging, and entries gone meanwhile, are left out."""
    try:
        with os.scandir(folder) as scan:
            entries = [
                e for e in scan if e.name.startswith(stem) and (base != "" or e.name != RESERVED_PREFIX)
            ]
    except (FileNotFoundError, NotADirectoryError):
        return
    found: list[tuple[str, Path | None]] = []  # (key, or folder key ending in "/"; file whose time counts)
    for entry in entries:
        path = Path(entry.path)
        if not entry.is_dir(follow_symlinks=False):
            found.append((base + entry.name, path))
        elif (path / MANIFEST).is_file():  # an assembled object: its manifest is written last
            found.append((base + entry.name, path / MANIFEST))
        else:
            found.append((f"{base}{entry.name}/", None))
    for key, stamped in sorted(found, key=lambda item: item[0]):
        if stamped is None:
            if key > after or after.startswith(key):
                yield from _listed(folder / key[len(base) : -1], key, "", after)
            continue
        if key <= after:
            continue
        try:
            yield key, stamped.stat().st_mtime
        except FileNotFoundError:
            continue


def _count_objects(folder: Path) -> int:
    """Objects under ``folder``: an assembled object counts once, not once per part."""
    if (folder / MANIFEST).is_file():
        return 1
    return sum(_count_objects(path) if path.is_dir() else 1 for path in folder.iterdir())


def _temporary_beside(target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    return target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")


def part_etag_hex(digest: hashlib._Hash) -> str:
    """A part's ETag: the first 128 bits of its SHA-256, in hex. S3 answers an MD5 for a plain part but
    keeps ETags opaque (an encrypted part's is not an MD5); SHA-256 runs on the CPU's SHA extensions,
    faster than MD5, and hashing is a large share of the intake's CPU.
    """
    return digest.hexdigest()[:32]


def _drop_cached(fd: int) -> None:
    """Drop a file that is on disk from the page cache. An upload's parts are read once, by the load that
    follows, so caching them only evicts hotter data (object stores write around the cache too); and the
    kernel reuses the dropped pages for the next part, which costs far less kernel time than fresh page cache.
    """
    if hasattr(os, "posix_fadvise"):
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
