# mypy: disable-error-code="import-untyped"
"""Table maintenance: compaction, snapshot expiry and orphan removal on one table (the rules are in
``core/table_maintenance.py``; docs/tables.md, "Maintenance").

Compaction reads the small files of the current snapshot and writes their rows into new files (the slow
part, no commit involved, no lock held), then commits one OVERWRITE that removes exactly those files and
adds the new ones, marked ``svc.maintenance=COMPACT`` (the snapshots list shows it as REPLACE). The commit
requires the branch head it was built on, as every commit of the writer does (``writer.py``): when an append
landed in between, it is built again on the new head with the same files, which only adds to the table, so
no append is lost or doubled and the rewrite is not redone. After ``OPTIMISTIC_ATTEMPTS`` lost races it
takes the table's turn (``commit_turns.py``): this process's writer sends no commit while the compaction
commit is built on the current head and sent, for at most ``Limits.turn_seconds`` (the writer's commit
interval); past that deadline the commit is not sent and the compaction gives up. If one of the rewritten
files left the table meanwhile (an svcdb update or delete rewrote it), the compaction is dropped and its new
files deleted. An append that loses the race to it retries as after any commit.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from pyiceberg.exceptions import CommitFailedException, ValidationException
from pyiceberg.expressions import AlwaysTrue
from pyiceberg.io.pyarrow import ArrowScan, _dataframe_to_data_files
from pyiceberg.manifest import DataFile
from pyiceberg.table import FileScanTask, Table
from pyiceberg.table.snapshots import Operation

from core.table_maintenance import (
    CompactionPlan,
    FileEntry,
    expired_snapshots,
    files_after,
    only_in_expired,
    orphan_files,
    plan_compaction,
)
from schemas.maintenance import MaintenanceAction as Action
from sinks.iceberg import table_files
from sinks.iceberg.commit_turns import compaction_turn
from sinks.iceberg.compaction_commit import CompactionFiles, CompactionTransaction, Prepared
from sinks.iceberg.snapshots import COMPACT_MARK, MAINTENANCE
from sinks.iceberg.work_pools import Kind, in_pool
from sinks.iceberg.writer import NEXT_RECORD_ID, SNAPSHOTS_MIN_AGE

log = logging.getLogger(__name__)

COMMIT_ATTEMPTS = 20
# Lost races before the compaction takes the table's turn from this process's writer.
OPTIMISTIC_ATTEMPTS = 3


@dataclass(frozen=True)
class Limits:
    target_file_bytes: int
    small_file_bytes: int
    max_files: int
    max_bytes: int
    retention: timedelta
    orphan_min_age: timedelta
    # How long appends may wait while the compaction holds the table's turn: the writer's commit interval.
    turn_seconds: float = 1.0


@dataclass(frozen=True)
class Report:
    files_before: int
    files_after: int
    snapshots_expired: int = 0
    orphans_removed: int = 0
    bytes_reclaimed: int = 0
    more_to_compact: bool = False
    commit_attempts: int = 0  # of the compaction commit that landed (0: none did)


def maintain(
    table: Table, actions: Collection[Action], limits: Limits, *, now: datetime, dry_run: bool
) -> Report:
    """Run ``actions`` in the order compaction, expiry, orphans; with ``dry_run`` nothing is changed and the
    report says what would be."""
    table.refresh()
    reader = table_files.ManifestReader(table)
    data_files, _ = reader.current_data_files()
    report = Report(files_before=len(data_files), files_after=len(data_files))
    return run_actions(table, reader, actions, limits, report, now=now, dry_run=dry_run)


@in_pool(Kind.MAINTENANCE)
def run_actions(
    table: Table,
    reader: table_files.ManifestReader,
    actions: Collection[Action],
    limits: Limits,
    report: Report,
    *,
    now: datetime,
    dry_run: bool,
) -> Report:
    """``actions`` in the order compaction, expiry, orphans, each adding to ``report``."""
    if Action.COMPACT in actions:
        report = compact(table, reader, limits, report, dry_run=dry_run)
    if Action.EXPIRE_SNAPSHOTS in actions:
        report = expire(table, limits, report, now=now, dry_run=dry_run)
    if Action.REMOVE_ORPHANS in actions:
        report = remove_orphans(table, limits, report, now=now, dry_run=dry_run)
    return report


def compact(
    table: Table, reader: table_files.ManifestReader, limits: Limits, report: Report, *, dry_run: bool
) -> Report:
    data_files, deletes = reader.current_data_files()
    if deletes:
        # pyiceberg writes copy-on-write deletes only; a delete file came from another engine.
        log.warning("not compacting a table with delete files", extra={"table": table.name()[-1]})
        return report
    by_path = {data.file_path: data for data in data_files}
    entries = [
        FileEntry(data.file_path, data.file_size_in_bytes, data.spec_id, repr(data.partition))
        for data in data_files
    ]
    plan = plan_compaction(
        entries,
        spec_id=table.metadata.default_spec_id,
        target_bytes=limits.target_file_bytes,
        small_bytes=limits.small_file_bytes,
        max_files=limits.max_files,
        max_bytes=limits.max_bytes,
    )
    if dry_run or not plan.groups:
        return replace(report, files_after=files_after(len(data_files), plan), more_to_compact=plan.more)
    sources = [by_path[entry.path] for group in plan.groups for entry in group]
    written = _rewrite(table, plan, by_path)
    attempts = _commit_replacement(table, sources, written, limits.turn_seconds)
    if not attempts:
        table_files.delete_files(table, (table_files.file_key(f.file_path) for f in written))
        return replace(report, more_to_compact=True)
    table.refresh()
    after, _ = table_files.ManifestReader(table).current_data_files()
    log.info(
        "table compacted",
        extra={"table": table.name()[-1], "files_in": len(sources), "files_out": len(written)},
    )
    return replace(report, files_after=len(after), more_to_compact=plan.more, commit_attempts=attempts)


def _rewrite(table: Table, plan: CompactionPlan, by_path: dict[str, DataFile]) -> list[DataFile]:
    """Each group's rows read (at the table's current schema) and written as new files of its partition."""
    metadata = table.metadata
    written: list[DataFile] = []
    try:
        for group in plan.groups:
            tasks = [FileScanTask(by_path[entry.path]) for entry in group]
            rows = ArrowScan(metadata, table.io, metadata.schema(), AlwaysTrue()).to_table(tasks)
            written.extend(_dataframe_to_data_files(metadata, rows, table.io, write_uuid=uuid.uuid4()))
    except BaseException:
        table_files.delete_files(table, (table_files.file_key(f.file_path) for f in written))
        raise
    return written


def _commit_replacement(
    table: Table, sources: list[DataFile], written: list[DataFile], turn_seconds: float
) -> int:
    """One commit that removes ``sources`` and adds ``written``, rebuilt on the new head after a lost race,
    in the table's turn after ``OPTIMISTIC_ATTEMPTS`` of them. The attempts it took, 0 when nothing was
    committed (a source file left the table, the turn ran past its deadline, or every attempt lost)."""
    prepared = Prepared()
    for attempt in range(1, COMMIT_ATTEMPTS + 1):
        if attempt <= OPTIMISTIC_ATTEMPTS:
            outcome = _attempt(table, sources, written, prepared, deadline=None)
        else:
            with compaction_turn(table, wait_seconds=turn_seconds) as held:
                # Without the turn (the writer sending a commit for that long) this counts as a lost race.
                deadline = time.monotonic() + turn_seconds
                outcome = _attempt(table, sources, written, prepared, deadline=deadline) if held else _LOST
        if outcome is _COMMITTED:
            return attempt
        if outcome is _DROPPED:
            break
        if attempt == COMMIT_ATTEMPTS:
            # Compaction yields to the writers: the next call tries again.
            log.warning("compaction lost every race; not committed", extra={"table": table.name()[-1]})
            break
        time.sleep(min(0.01 * 2**attempt, 0.5) * random.uniform(0.5, 1.5))  # noqa: S311 - not security
    # Never landed: the manifests written for it are named by no snapshot.
    table_files.delete_files(table, (table_files.file_key(path) for path in prepared.written()))
    return 0


_COMMITTED = "committed"
_DROPPED = "dropped"
_LOST = "lost"


def _attempt(
    table: Table,
    sources: list[DataFile],
    written: list[DataFile],
    prepared: Prepared,
    *,
    deadline: float | None,
) -> str:
    """Build the compaction commit on the current head and send it unless ``deadline`` has passed."""
    table.refresh()
    head = table.current_snapshot()
    properties = {MAINTENANCE: COMPACT_MARK}
    following = head.summary.additional_properties.get(NEXT_RECORD_ID) if head and head.summary else None
    if following:
        # Kept on the head, so the next append numbers its rows without scanning the files' bounds.
        properties[NEXT_RECORD_ID] = following
    transaction = CompactionTransaction(table)
    producer = CompactionFiles(
        prepared=prepared,
        operation=Operation.OVERWRITE,
        transaction=transaction,
        io=table.io,
        snapshot_properties=properties,
    )
    for data in sources:
        producer.delete_data_file(data)
    for data in written:
        producer.append_data_file(data)
    try:
        producer.commit()
        if deadline is not None and time.monotonic() > deadline:
            # Appends have waited a whole commit interval: they go on, this compaction gives up.
            log.warning(
                "compaction commit not built within its turn; not committed",
                extra={"table": table.name()[-1]},
            )
            return _DROPPED
        transaction.commit_transaction()
        return _COMMITTED
    except ValidationException:
        log.info("compaction dropped: a file it rewrote left the table", extra={"table": table.name()[-1]})
        return _DROPPED
    except CommitFailedException:
        return _LOST


def expire(table: Table, limits: Limits, report: Report, *, now: datetime, dry_run: bool) -> Report:
    table.refresh()
    metadata = table.metadata
    protected = {ref.snapshot_id for ref in metadata.refs.values()}
    doomed = expired_snapshots(
        ((s.snapshot_id, s.timestamp_ms) for s in metadata.snapshots),
        protected=protected,
        now_ms=int(now.timestamp() * 1000),
        retention_ms=int(limits.retention.total_seconds() * 1000),
        floor_ms=int(SNAPSHOTS_MIN_AGE.total_seconds() * 1000),
    )
    if not doomed:
        return report
    reader = table_files.ManifestReader(table)
    named_by_doomed: set[str] = set()
    for snapshot in metadata.snapshots:
        if snapshot.snapshot_id in doomed:
            named_by_doomed |= reader.snapshot_files(snapshot)
    if dry_run:
        kept = table_files.referenced_files(table, reader, skip=doomed)
        freed = table_files.sizes(table, only_in_expired(named_by_doomed, kept))
        return _add(report, expired=len(doomed), reclaimed=sum(freed.values()))
    live = {s.snapshot_id for s in metadata.snapshots}
    table.maintenance.expire_snapshots().by_ids(sorted(doomed & live)).commit()
    table.refresh()
    # Named again after the commit: a snapshot committed meanwhile may name a file the plan did not see.
    kept = table_files.referenced_files(table, table_files.ManifestReader(table))
    freed = table_files.sizes(table, only_in_expired(named_by_doomed, kept))
    table_files.delete_files(table, freed)
    log.info(
        "snapshots expired", extra={"table": table.name()[-1], "snapshots": len(doomed), "files": len(freed)}
    )
    return _add(report, expired=len(doomed), reclaimed=sum(freed.values()))


def remove_orphans(table: Table, limits: Limits, report: Report, *, now: datetime, dry_run: bool) -> Report:
    # Listed before the table is read: a file written after the listing is not in it, and one listed but
    # committed since is named by the metadata read next.
    listed = table_files.list_files(table)
    table.refresh()
    referenced = table_files.referenced_files(table, table_files.ManifestReader(table))
    orphans = orphan_files(
        listed,
        referenced,
        now_ms=int(now.timestamp() * 1000),
        min_age_ms=int(limits.orphan_min_age.total_seconds() * 1000),
    )
    if not dry_run:
        table_files.delete_files(table, (orphan.path for orphan in orphans))
        if orphans:
            log.info("orphan files removed", extra={"table": table.name()[-1], "files": len(orphans)})
    return _add(report, orphans=len(orphans), reclaimed=sum(orphan.size for orphan in orphans))


def _add(report: Report, *, expired: int = 0, orphans: int = 0, reclaimed: int = 0) -> Report:
    return replace(
        report,
        snapshots_expired=report.snapshots_expired + expired,
        orphans_removed=report.orphans_removed + orphans,
        bytes_reclaimed=report.bytes_reclaimed + reclaimed,
    )
