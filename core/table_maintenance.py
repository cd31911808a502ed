"""Table maintenance, the pure rules: which small files compact into which groups, which snapshots expire,
which files are orphans. No I/O: ``sinks/iceberg/maintenance.py`` reads the table and applies them.

- **Compaction** bin-packs the current snapshot's small data files (under ``small_bytes``) of one partition
  into groups of at most ``target_bytes``, each group rewritten as one file. A group of one file gains
  nothing and is left alone. One call takes at most ``max_files`` files and ``max_bytes`` bytes, so its
  time is bounded; what is left is compacted by the next call (``CompactionPlan.more``).
- **Expiry** removes the snapshots committed before the retention, never the current one (nor another
  branch or tag head), and never one younger than ``floor``: the table writer's exactly-once window
  (docs/tables.md, "The window") reads the write ids in the kept snapshots' summaries.
- **Orphans** are files under the table's location that no kept snapshot, manifest or metadata file names,
  and that are older than ``min_age``: a commit in flight has written files no snapshot names yet.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from schemas.maintenance import MaintenanceAction

# Compaction first, so expiry can then drop what it replaced once it is old enough; orphans last.
ORDER = (
    MaintenanceAction.COMPACT,
    MaintenanceAction.EXPIRE_SNAPSHOTS,
    MaintenanceAction.REMOVE_ORPHANS,
)


@dataclass(frozen=True)
class FileEntry:
    """A live data file of the current snapshot."""

    path: str
    size: int
    spec_id: int
    partition: Hashable


@dataclass(frozen=True)
class CompactionPlan:
    groups: tuple[tuple[FileEntry, ...], ...]
    more: bool  # small files left for a later call (the per-call caps were reached)

    @property
    def input_files(self) -> int:
        return sum(len(group) for group in self.groups)

    @property
    def input_bytes(self) -> int:
        return sum(entry.size for group in self.groups for entry in group)


def _bins(files: Sequence[FileEntry], target_bytes: int) -> list[list[FileEntry]]:
    """Consecutive files packed while the bin stays within ``target_bytes`` (a file alone may be larger)."""
    bins: list[list[FileEntry]] = []
    size = 0
    for entry in files:
        if bins and size + entry.size <= target_bytes:
            bins[-1].append(entry)
            size += entry.size
        else:
            bins.append([entry])
            size = entry.size
    return bins


def small_files_by_partition(
    files: Iterable[FileEntry], small_bytes: int, spec_id: int
) -> dict[Hashable, list[FileEntry]]:
    """The small files of the current partition spec, by partition, in the order given (commit order)."""
    found: dict[Hashable, list[FileEntry]] = {}
    for entry in files:
        if entry.spec_id == spec_id and entry.size < small_bytes:
            found.setdefault(entry.partition, []).append(entry)
    return found


def plan_compaction(
    files: Iterable[FileEntry],
    *,
    spec_id: int,
    target_bytes: int,
    small_bytes: int,
    max_files: int,
    max_bytes: int,
) -> CompactionPlan:
    """Groups of two or more small files of one partition, each within ``target_bytes``, the largest
    partitions' groups first, within the per-call caps. Files of an older partition spec are left alone
    (their rows would be written under the current spec: a rewrite across specs is not a compaction)."""
    by_partition = small_files_by_partition(files, small_bytes, spec_id)
    candidates = [
        group
        for partition in sorted(by_partition, key=lambda p: (-len(by_partition[p]), repr(p)))
        for group in _bins(by_partition[partition], target_bytes)
        if len(group) > 1
    ]
    chosen: list[tuple[FileEntry, ...]] = []
    taken_files = taken_bytes = 0
    more = False
    for group in candidates:
        room_files = max_files - taken_files
        kept: list[FileEntry] = []
        size = 0
        for entry in group:
            if len(kept) >= room_files or taken_bytes + size + entry.size > max_bytes:
                break
            kept.append(entry)
            size += entry.size
        if len(kept) < len(group):
            more = True
        if len(kept) > 1:
            chosen.append(tuple(kept))
            taken_files += len(kept)
            taken_bytes += size
    return CompactionPlan(tuple(chosen), more)


def most_small_files(files: Iterable[FileEntry], small_bytes: int, spec_id: int) -> int:
    """The most small files any one partition holds: what automatic compaction compares to its threshold."""
    counts = [len(group) for group in small_files_by_partition(files, small_bytes, spec_id).values()]
    return max(counts, default=0)


def expired_snapshots(
    snapshots: Iterable[tuple[int, int]],
    *,
    protected: Iterable[int],
    now_ms: int,
    retention_ms: int,
    floor_ms: int,
) -> set[int]:
    """Ids of the ``(snapshot_id, committed_ms)`` committed before ``now - max(retention, floor)``, except the
    protected ones (the current snapshot, branch and tag heads)."""
    cutoff = now_ms - max(retention_ms, floor_ms)
    keep = set(protected)
    return {snapshot_id for snapshot_id, committed_ms in snapshots if committed_ms < cutoff} - keep


def only_in_expired(expired_files: Iterable[str], kept_files: Iterable[str]) -> set[str]:
    """Files that only expired snapshots name: safe to delete once the expiry is committed."""
    return set(expired_files) - set(kept_files)


@dataclass(frozen=True)
class ListedFile:
    path: str
    size: int
    modified_ms: int


def orphan_files(
    listed: Iterable[ListedFile], referenced: Iterable[str], *, now_ms: int, min_age_ms: int
) -> list[ListedFile]:
    """The listed files nothing references that were last written before ``now - min_age``."""
    named = set(referenced)
    cutoff = now_ms - min_age_ms
    return [entry for entry in listed if entry.path not in named and entry.modified_ms < cutoff]


def files_after(files_before: int, plan: CompactionPlan, outputs: int | None = None) -> int:
    """Data files of the current snapshot after the plan: each group becomes ``outputs`` files in all, or
    one per group when not yet written (what a dry run reports)."""
    written = len(plan.groups) if outputs is None else outputs
    return files_before - plan.input_files + written
