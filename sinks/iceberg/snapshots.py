"""A table's snapshots, as the snapshots list shows them and time travel reads them.

Each commit to a table (an append, a load, a REPLACE load, an svcdb change) is one Iceberg snapshot; the
table's snapshot log says which snapshot was current from when. Snapshots are kept until maintenance
expires them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from core.sql.as_of import pick_snapshot
from core.sql.model import TableRef
from sinks.scan_estimate import snapshot_schema

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# A compaction's mark in its snapshot summary (sinks/iceberg/maintenance.py).
MAINTENANCE = "svc.maintenance"
COMPACT_MARK = "COMPACT"


@dataclass(frozen=True)
class SnapshotInfo:
    snapshot_id: int
    committed_ms: int  # Iceberg's commit time: milliseconds since the epoch
    operation: str | None  # APPEND, OVERWRITE, DELETE or REPLACE (Iceberg's operations, upper case)
    added_rows: int | None
    added_files: int | None
    total_rows: int | None
    sequence_number: int

    @property
    def committed_at(self) -> datetime:
        return _EPOCH + timedelta(milliseconds=self.committed_ms)

    @property
    def position(self) -> tuple[int, int, int]:
        """Where the snapshot stands in the order of ``list_snapshots`` (which lists the largest first)."""
        return self.committed_ms, self.sequence_number, self.snapshot_id


def _count(summary: Any, key: str) -> int | None:
    value = summary.get(key) if summary is not None else None
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


def list_snapshots(handle: Any) -> list[SnapshotInfo]:
    """Every snapshot the table holds, newest first (by commit time, then by commit order)."""
    found = []
    for snapshot in handle.snapshots():
        summary = snapshot.summary
        operation = summary.operation.value.upper() if summary is not None else None
        if summary is not None and summary.get(MAINTENANCE) == COMPACT_MARK:
            # pyiceberg commits only APPEND, OVERWRITE and DELETE; a compaction changes no row: REPLACE.
            operation = "REPLACE"
        found.append(
            SnapshotInfo(
                snapshot_id=int(snapshot.snapshot_id),
                committed_ms=int(snapshot.timestamp_ms),
                operation=operation,
                added_rows=_count(summary, "added-records"),
                added_files=_count(summary, "added-data-files"),
                total_rows=_count(summary, "total-records"),
                sequence_number=int(snapshot.sequence_number or 0),
            )
        )
    found.sort(key=lambda s: s.position, reverse=True)
    return found


def pin(handle: Any, ref: TableRef, now: datetime) -> int | None:
    """The snapshot ``ref`` reads (``core.sql.as_of.pick_snapshot``); raises SnapshotNotFound."""
    current = handle.current_snapshot()
    return pick_snapshot(
        ref,
        snapshots={int(s.snapshot_id) for s in handle.snapshots()},
        log=[(int(entry.timestamp_ms), int(entry.snapshot_id)) for entry in handle.history()],
        current=None if current is None else int(current.snapshot_id),
        now=now,
    )


def columns_at(handle: Any, snapshot_id: int | None) -> frozenset[str] | None:
    """The names of the columns a reader of the snapshot sees (None: the table has no such snapshot)."""
    schema = snapshot_schema(handle, snapshot_id)
    return None if schema is None else frozenset(field.name for field in schema.fields)
