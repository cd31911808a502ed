# mypy: disable-error-code="import-untyped"
"""One table's automatic maintenance: look at its current snapshot, then run the actions due
(``core/auto_maintenance.py``) with the same code as the maintain call (``sinks/iceberg/maintenance.py``), so
compaction keeps its guarantees: its commit rebuilt on a new head, after a few lost races in the table's turn
(this worker's table writer holds its commits back for at most one commit interval meanwhile), and at most
the per-call caps of input per call."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from pyiceberg.table import Table

from core.auto_maintenance import due_actions
from core.table_maintenance import FileEntry, most_small_files
from schemas.maintenance import MaintenanceAction as Action
from schemas.settings import Settings
from sinks.iceberg import table_files
from sinks.iceberg.maintenance import Limits, Report, run_actions


def limits_of(settings: Settings) -> Limits:
    return Limits(
        target_file_bytes=settings.compact_target_file_bytes,
        small_file_bytes=settings.compact_small_file_bytes,
        max_files=settings.compact_max_files_per_call,
        max_bytes=settings.compact_max_bytes_per_call,
        retention=timedelta(days=settings.snapshot_retention_days),
        orphan_min_age=timedelta(hours=settings.orphan_min_age_hours),
        # The writer commits a table once per interval: a compaction's turn may hold one commit back.
        turn_seconds=settings.table_commit_interval_seconds,
    )


@dataclass(frozen=True)
class Outcome:
    actions: tuple[Action, ...]
    most_small_files: int
    report: Report


def small_files_now(table: Table, reader: table_files.ManifestReader, small_bytes: int) -> tuple[int, int]:
    """(data files of the current snapshot, the most small files one partition holds)."""
    data_files, _ = reader.current_data_files()
    entries = [
        FileEntry(data.file_path, data.file_size_in_bytes, data.spec_id, repr(data.partition))
        for data in data_files
    ]
    return len(data_files), most_small_files(entries, small_bytes, table.metadata.default_spec_id)


def maintain_if_due(
    table: Table,
    limits: Limits,
    *,
    small_files_threshold: int,
    now: datetime,
    last_expired_at: datetime | None,
) -> Outcome:
    """Run what is due on ``table``: compaction past the small-file threshold, expiry and orphan removal
    once a day. Blocking (reads and writes files): run it in a thread."""
    table.refresh()
    reader = table_files.ManifestReader(table)
    files, small = small_files_now(table, reader, limits.small_file_bytes)
    actions = due_actions(
        most_small_files=small,
        small_files_threshold=small_files_threshold,
        now=now,
        last_expired_at=last_expired_at,
    )
    report = Report(files_before=files, files_after=files)
    report = run_actions(table, reader, actions, limits, report, now=now, dry_run=False)
    return Outcome(tuple(actions), small, report)
