# mypy: disable-error-code="import-untyped"
"""The compaction commit, built fast enough to fit in the table's turn (``maintenance.py``,
``commit_turns.py``).

pyiceberg's OVERWRITE reads every manifest of the head twice per build, deep-copies the table metadata dozens
of times and writes every manifest again, which rebuilt after each lost race can outlast the writer's commit
interval. Here what does not depend on the head is prepared once per compaction (``Prepared``): each
manifest's entries are read once (a manifest never changes), and the manifests the commit writes (its new
files, an old manifest without the removed ones) are written once, under one snapshot id kept across the
attempts (an attempt that lost its race never landed, so the id is still free). A rebuild on a new head then
only checks the head's manifests and writes the manifest list. What is committed is what ``_OverwriteFiles``
commits, less its manifest of DELETED entries (``_manifests``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pyiceberg.manifest import DataFileContent, ManifestEntry, ManifestEntryStatus, ManifestFile
from pyiceberg.table import Transaction
from pyiceberg.table.metadata import TableMetadata
from pyiceberg.table.update.snapshot import _OverwriteFiles
from pyiceberg.typedef import KeyDefaultDict
from pyiceberg.utils.concurrent import ExecutorFactory


@dataclass
class Prepared:
    """What the attempts of one compaction share."""

    # Live entries (DELETED ones discarded) by manifest path.
    entries: dict[str, list[ManifestEntry]] = field(default_factory=dict)
    snapshot_id: int | None = None
    added: list[ManifestFile] | None = None
    # By the path of a head manifest holding removed files: the one written without them (None: none left).
    rewritten: dict[str, ManifestFile | None] = field(default_factory=dict)

    def written(self) -> list[str]:
        """The manifests written for the commit: to delete when it never lands."""
        files = [*(self.added or ()), *self.rewritten.values()]
        return [manifest.manifest_path for manifest in files if manifest is not None]


class CompactionTransaction(Transaction):
    """Until the commit stages an update the metadata it reads is the table's own (immutable): no copy."""

    @property
    def table_metadata(self) -> TableMetadata:
        if not self._updates:
            return self._table.metadata
        return super().table_metadata


class CompactionFiles(_OverwriteFiles):
    """``_OverwriteFiles`` building on what ``prepared`` holds, under its snapshot id."""

    def __init__(self, *args: object, prepared: Prepared, **kwargs: object) -> None:
        self._prepared = prepared
        self._entry_cache = prepared.entries
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        if prepared.snapshot_id is None:
            prepared.snapshot_id = self._snapshot_id
        self._snapshot_id = prepared.snapshot_id

    def _clean_all_uncommitted(self) -> None:
        # The prepared manifests serve the next attempt; the compaction deletes them if it gives up.
        shared = set(self._prepared.written())
        self._written_manifests = [path for path in self._written_manifests if path not in shared]
        super()._clean_all_uncommitted()

    def _manifests(self) -> list[ManifestFile]:
        self._build_delete_files_partition_predicate()
        # Checks that every removed file is still in the head (ValidationException if not). Its DELETED
        # entries are not written: the spec calls them informational, never used in scans, yet a manifest of
        # hundreds of them made every DuckDB query of the compacted table several times slower (until the
        # next append dropped it). The snapshot summary still counts the removed files.
        self._deleted_entries()
        if self._prepared.added is None:
            self._prepared.added = self._write_added()
        return self._process_manifests([*self._prepared.added, *self._existing_manifests()])

    def _write_added(self) -> list[ManifestFile]:
        if not self._added_data_files:
            return []
        with self.new_manifest_writer(spec=self._transaction.table_metadata.spec()) as writer:
            for data_file in self._added_data_files:
                writer.add(
                    ManifestEntry.from_args(
                        status=ManifestEntryStatus.ADDED,
                        snapshot_id=self._snapshot_id,
                        sequence_number=None,
                        file_sequence_number=None,
                        data_file=data_file,
                    )
                )
        return [writer.to_manifest_file()]

    def _live_entries(self, manifest: ManifestFile) -> list[ManifestEntry]:
        found = self._entry_cache.get(manifest.manifest_path)
        if found is None:
            found = self._entry_cache[manifest.manifest_path] = manifest.fetch_manifest_entry(
                io=self._io, discard_deleted=True
            )
        return found

    def _existing_manifests(self) -> list[ManifestFile]:
        existing: list[ManifestFile] = []
        evaluators: dict[int, Callable[[ManifestFile], bool]] = KeyDefaultDict(self._build_manifest_evaluator)
        snapshot = self._transaction.table_metadata.snapshot_by_name(name=self._target_branch)
        if snapshot is None:
            return existing
        for manifest in snapshot.manifests(io=self._io):
            if not evaluators[manifest.partition_spec_id](manifest):
                existing.append(manifest)
                continue
            path = manifest.manifest_path
            if path in self._prepared.rewritten:
                rewritten = self._prepared.rewritten[path]
            else:
                rewritten = self._without_removed(manifest)
                if rewritten is manifest:
                    existing.append(manifest)  # holds no removed file: kept as it is
                    continue
                self._prepared.rewritten[path] = rewritten
            if rewritten is not None:
                existing.append(rewritten)
        return existing

    def _without_removed(self, manifest: ManifestFile) -> ManifestFile | None:
        """``manifest`` itself when it holds no removed file, else one written without them (None: empty)."""
        entries = self._live_entries(manifest)
        kept = [entry for entry in entries if entry.data_file not in self._deleted_data_files]
        if len(kept) == len(entries):
            return manifest
        if not kept:
            return None
        with self.new_manifest_writer(self.spec(manifest.partition_spec_id)) as writer:
            for entry in kept:
                writer.add_entry(
                    ManifestEntry.from_args(
                        status=ManifestEntryStatus.EXISTING,
                        snapshot_id=entry.snapshot_id,
                        sequence_number=entry.sequence_number,
                        file_sequence_number=entry.file_sequence_number,
                        data_file=entry.data_file,
                    )
                )
        return writer.to_manifest_file()

    def _deleted_entries(self) -> list[ManifestEntry]:
        if self._parent_snapshot_id is None:
            return []
        previous = self._transaction.table_metadata.snapshot_by_id(self._parent_snapshot_id)
        if previous is None:
            raise ValueError(f"Could not find the previous snapshot: {self._parent_snapshot_id}")
        evaluators: dict[int, Callable[[ManifestFile], bool]] = KeyDefaultDict(self._build_manifest_evaluator)
        manifests = [m for m in previous.manifests(self._io) if evaluators[m.partition_spec_id](m)]
        unread = [m for m in manifests if m.manifest_path not in self._entry_cache]
        # The manifests not read before are read in parallel, as pyiceberg does.
        for manifest, entries in zip(
            unread,
            ExecutorFactory.get_or_create().map(
                lambda m: m.fetch_manifest_entry(self._io, discard_deleted=True), unread
            ),
            strict=True,
        ):
            self._entry_cache[manifest.manifest_path] = entries
        deleted = [
            ManifestEntry.from_args(
                status=ManifestEntryStatus.DELETED,
                snapshot_id=self._snapshot_id,
                sequence_number=entry.sequence_number,
                file_sequence_number=entry.file_sequence_number,
                data_file=entry.data_file,
            )
            for manifest in manifests
            for entry in self._entry_cache[manifest.manifest_path]
            if entry.data_file.content == DataFileContent.DATA and entry.data_file in self._deleted_data_files
        ]
        self._validate_required_deletes(deleted)
        return deleted
