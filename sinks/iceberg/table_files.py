# mypy: disable-error-code="import-untyped"
"""The files of a table: those its snapshots and metadata name, and those under its location.

Paths are compared in one form, pyiceberg's ``parse_location`` path: ``bucket/key`` on S3, an absolute path
on a local warehouse, which is also how ``pyarrow.fs`` lists them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from pyarrow import fs as pafs
from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.manifest import DataFile, DataFileContent, ManifestContent, ManifestFile
from pyiceberg.table import Table
from pyiceberg.table.snapshots import Snapshot

from core.table_maintenance import ListedFile


def file_key(location: str) -> str:
    return PyArrowFileIO.parse_location(location)[2]


def _filesystem(table: Table, location: str) -> tuple[pafs.FileSystem, str]:
    io = table.io
    if not isinstance(io, PyArrowFileIO):
        raise TypeError(f"table maintenance needs pyiceberg's PyArrow FileIO, not {type(io).__name__}")
    scheme, netloc, path = io.parse_location(location)
    return io.fs_by_scheme(scheme, netloc), path


@dataclass
class ManifestReader:
    """Manifests are immutable: each is read once per maintenance run, whichever snapshots share it."""

    table: Table
    _entries: dict[str, list[DataFile]] = field(default_factory=dict)

    def live_files(self, manifest: ManifestFile) -> list[DataFile]:
        found = self._entries.get(manifest.manifest_path)
        if found is None:
            entries = manifest.fetch_manifest_entry(self.table.io, discard_deleted=True)
            found = self._entries[manifest.manifest_path] = [entry.data_file for entry in entries]
        return found

    def snapshot_files(self, snapshot: Snapshot) -> set[str]:
        """Every file reading ``snapshot`` opens: its manifest list, manifests, data and delete files."""
        named = {file_key(snapshot.manifest_list)}
        for manifest in snapshot.manifests(self.table.io):
            named.add(file_key(manifest.manifest_path))
            named.update(file_key(data.file_path) for data in self.live_files(manifest))
        return named

    def current_data_files(self) -> tuple[list[DataFile], bool]:
        """The current snapshot's live data files, and whether it has delete files too."""
        snapshot = self.table.current_snapshot()
        if snapshot is None:
            return [], False
        data: list[DataFile] = []
        deletes = False
        for manifest in snapshot.manifests(self.table.io):
            files = self.live_files(manifest)
            if manifest.content == ManifestContent.DELETES:
                deletes = deletes or bool(files)
                continue
            data.extend(f for f in files if f.content == DataFileContent.DATA)
        return data, deletes


def metadata_files(table: Table) -> set[str]:
    """The current metadata file, the ones its log keeps, and statistics files."""
    metadata = table.metadata
    named = {file_key(table.metadata_location)}
    named.update(file_key(entry.metadata_file) for entry in metadata.metadata_log)
    named.update(file_key(stats.statistics_path) for stats in metadata.statistics)
    named.update(file_key(stats.statistics_path) for stats in metadata.partition_statistics)
    return named


def referenced_files(table: Table, reader: ManifestReader, skip: Iterable[int] = ()) -> set[str]:
    """Every file the table's snapshots (except ``skip``) and metadata name."""
    skipped = set(skip)
    named = metadata_files(table)
    for snapshot in table.metadata.snapshots:
        if snapshot.snapshot_id not in skipped:
            named |= reader.snapshot_files(snapshot)
    return named


def list_files(table: Table) -> list[ListedFile]:
    """Every file under the table's location, with its size and last write time."""
    filesystem, root = _filesystem(table, table.location())
    selector = pafs.FileSelector(root, recursive=True, allow_not_found=True)
    return [
        ListedFile(info.path, info.size or 0, (info.mtime_ns or 0) // 1_000_000)
        for info in filesystem.get_file_info(selector)
        if info.type == pafs.FileType.File
    ]


def sizes(table: Table, keys: Iterable[str]) -> dict[str, int]:
    """The size of each file that exists (a missing one is left out)."""
    wanted = sorted(keys)
    if not wanted:
        return {}
    filesystem, _root = _filesystem(table, table.location())
    return {
        info.path: info.size or 0
        for info in filesystem.get_file_info(wanted)
        if info.type == pafs.FileType.File
    }


def delete_files(table: Table, keys: Iterable[str]) -> int:
    """Delete the files (a file already gone counts as deleted); how many were deleted."""
    filesystem, _root = _filesystem(table, table.location())
    deleted = 0
    for key in sorted(keys):
        with contextlib.suppress(FileNotFoundError):
            filesystem.delete_file(key)
        deleted += 1
    return deleted
