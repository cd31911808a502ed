"""Table maintenance's pure rules (core/table_maintenance.py): compaction groups, expiry, orphans."""

from __future__ import annotations

import pytest

from core.table_maintenance import (
    ORDER,
    FileEntry,
    ListedFile,
    expired_snapshots,
    files_after,
    most_small_files,
    only_in_expired,
    orphan_files,
    plan_compaction,
)
from schemas.maintenance import MaintenanceAction

pytestmark = pytest.mark.unit

MB = 1024**2


def files(partition: str, *sizes: int, spec_id: int = 0) -> list[FileEntry]:
    return [FileEntry(f"{partition}/{n}.parquet", size, spec_id, partition) for n, size in enumerate(sizes)]


def plan(entries: list[FileEntry], **caps: int) -> list[list[str]]:
    limits = {"target_bytes": 10 * MB, "small_bytes": 4 * MB, "max_files": 100, "max_bytes": 100 * MB}
    found = plan_compaction(entries, spec_id=0, **{**limits, **caps})
    return [[entry.path for entry in group] for group in found.groups]


def test_small_files_of_one_partition_pack_up_to_the_target() -> None:
    entries = files("a", 3 * MB, 3 * MB, 3 * MB, 3 * MB, 1 * MB)
    assert plan(entries) == [["a/0.parquet", "a/1.parquet", "a/2.parquet"], ["a/3.parquet", "a/4.parquet"]]


def test_partitions_never_mix_and_large_files_or_a_lone_small_file_stay() -> None:
    entries = files("a", 1 * MB, 50 * MB, 1 * MB) + files("b", 1 * MB) + files("c", 2 * MB, 2 * MB)
    assert plan(entries) == [["a/0.parquet", "a/2.parquet"], ["c/0.parquet", "c/1.parquet"]]


def test_files_of_an_older_partition_spec_are_left_alone() -> None:
    entries = files("a", 1 * MB, 1 * MB, spec_id=1) + files("b", 1 * MB, 1 * MB)
    assert plan(entries) == [["b/0.parquet", "b/1.parquet"]]


def test_the_per_call_caps_bound_the_work_and_say_more_is_left() -> None:
    entries = files("a", *[MB // 2] * 6) + files("b", *[MB // 2] * 3)
    capped = plan_compaction(
        entries, spec_id=0, target_bytes=10 * MB, small_bytes=4 * MB, max_files=7, max_bytes=100 * MB
    )
    assert capped.input_files == 6 and capped.more
    assert [len(group) for group in capped.groups] == [6]  # one file of b left: a group of one is no gain
    by_bytes = plan_compaction(
        entries, spec_id=0, target_bytes=10 * MB, small_bytes=4 * MB, max_files=100, max_bytes=2 * MB
    )
    assert by_bytes.input_bytes <= 2 * MB and by_bytes.input_files == 4 and by_bytes.more
    full = plan_compaction(
        entries, spec_id=0, target_bytes=10 * MB, small_bytes=4 * MB, max_files=100, max_bytes=100 * MB
    )
    assert full.input_files == 9 and not full.more
    assert files_after(12, full) == 12 - 9 + 2
    assert files_after(12, full, outputs=3) == 6


def test_the_busiest_partition_counts_for_automatic_compaction() -> None:
    entries = files("a", 1, 1, 1) + files("b", 1, 1) + files("c", 99 * MB)
    assert most_small_files(entries, 4 * MB, 0) == 3
    assert most_small_files([], 4 * MB, 0) == 0


def test_expiry_keeps_the_current_snapshot_and_the_writers_window() -> None:
    day = 86_400_000
    now = 100 * day
    snapshots = [(1, now - 10 * day), (2, now - 8 * day), (3, now - 6 * day), (4, now - 60_000)]

    def expired(retention_ms: int) -> set[int]:
        return expired_snapshots(
            snapshots, protected=[4], now_ms=now, retention_ms=retention_ms, floor_ms=120_000
        )

    assert expired(7 * day) == {1, 2}
    # The current snapshot stays even when it is older than the retention.
    assert expired_snapshots(snapshots, retention_ms=7 * day, protected=[1], now_ms=now, floor_ms=0) == {2}
    # A retention of 0 still keeps what the writer's exactly-once window reads (the floor).
    assert expired(0) == {1, 2, 3}


def test_only_files_no_kept_snapshot_names_are_freed() -> None:
    assert only_in_expired({"m1", "d1", "d2"}, {"d2", "d3"}) == {"m1", "d1"}


def test_orphans_are_unreferenced_and_old_enough() -> None:
    hour = 3_600_000
    now = 1000 * hour
    listed = [
        ListedFile("data/old-orphan", 10, now - 80 * hour),
        ListedFile("data/young-orphan", 10, now - 1 * hour),  # a commit in flight may name it yet
        ListedFile("data/referenced", 10, now - 500 * hour),
    ]
    found = orphan_files(listed, {"data/referenced"}, now_ms=now, min_age_ms=72 * hour)
    assert [entry.path for entry in found] == ["data/old-orphan"]


def test_actions_always_run_compaction_expiry_orphans() -> None:
    assert [action.value for action in ORDER] == [action.value for action in MaintenanceAction]
