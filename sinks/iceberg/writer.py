# mypy: disable-error-code="import-untyped"
"""Exactly-once writes into Iceberg tables.

Every commit records in its snapshot summary the ids of the writes it contains (`svc.load-ids` for
appends, `svc.op-ids` for svcdb operations) and the next free `_record_id` (`svc.next-record-id`).
Before each attempt the table is refreshed and the ids already in the snapshot chain are skipped, and
the commit asserts that the branch head is still the snapshot that check read. A lost race therefore
fails the commit (CommitFailedException); the writer then refreshes, checks again and retries, so a
redelivered or concurrently written load is never doubled and a row is never lost.
"""

from __future__ import annotations

import base64
import json
import logging
import random
import re
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TypeAlias

import pyarrow as pa
import pyarrow.compute as pc
from pyiceberg.conversions import from_bytes
from pyiceberg.exceptions import CommitFailedException, ValidationException
from pyiceberg.expressions import BooleanExpression
from pyiceberg.table import Table, Transaction
from pyiceberg.table.snapshots import Snapshot
from pyiceberg.types import LongType

from core.lru import Lru
from schemas.column_types import LOAD_ID_COLUMN, RECORD_ID_COLUMN
from sinks.iceberg.catalog import PAUSE_BEFORE_COMMIT, TABLE_PROPERTIES
from sinks.iceberg.commit_turns import writer_turn
from sinks.iceberg.convert import repeated, sequence
from sinks.iceberg.exceptions import CommitConflict
from sinks.iceberg.work_pools import Kind, in_pool

logger = logging.getLogger(__name__)

LOAD_IDS = "svc.load-ids"
OP_IDS = "svc.op-ids"
NEXT_RECORD_ID = "svc.next-record-id"
FIRST_RECORD_ID = 1
DEFAULT_ATTEMPTS = 10
# The exactly-once window: a write id is remembered while its snapshot is kept, at least this many
# commits and this long. Expiry runs every _EXPIRE_EVERY commits beyond the limit.
SNAPSHOTS_KEPT = 100
SNAPSHOTS_MIN_AGE = timedelta(minutes=2)
_EXPIRE_EVERY = 25
_RETRY_KEY = "commit.retry.num-retries"
_HEX32 = re.compile(r"^[0-9a-f]{32}$")

Predicate: TypeAlias = BooleanExpression | str
Replacement: TypeAlias = "pa.Table | Callable[[pa.Table], pa.Table]"


@dataclass(frozen=True)
class AppendOutcome:
    committed_load_ids: tuple[str, ...]
    skipped_load_ids: tuple[str, ...]
    rows: int
    first_record_id: int | None
    snapshot_id: int | None
    attempts: int


@dataclass(frozen=True)
class MutationOutcome:
    applied: bool  # False: this op id was already committed, nothing was done
    rows_removed: int
    rows_written: int
    snapshot_id: int | None
    attempts: int


def encode_ids(ids: Sequence[str]) -> str:
    """Compact form for a summary: 16 raw bytes per 32-hex id (22 base64 chars), else zlib'd JSON."""
    if all(_HEX32.match(i) for i in ids):
        return "h:" + base64.b64encode(b"".join(bytes.fromhex(i) for i in ids)).decode("ascii")
    return "z:" + base64.b64encode(zlib.compress(json.dumps(list(ids)).encode())).decode("ascii")


def decode_ids(text: str | None) -> set[str]:
    if not text:
        return set()
    raw = base64.b64decode(text[2:])
    if text.startswith("h:"):
        return {raw[i : i + 16].hex() for i in range(0, len(raw), 16)}
    if text.startswith("z:"):
        return set(json.loads(zlib.decompress(raw)))
    raise ValueError(f"unknown id list encoding {text[:2]!r}")


class _Ledger:
    """Ids recorded in the summaries along a table's snapshot chain, each summary decoded once per process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._decoded: dict[tuple[str, str], dict[int, frozenset[str]]] = {}

    def ids(self, table: Table, key: str) -> set[str]:
        by_id = {s.snapshot_id: s for s in table.metadata.snapshots}
        found: set[str] = set()
        with self._lock:
            cache = self._decoded.setdefault((str(table.metadata.table_uuid), key), {})
            walked: list[int] = []
            snapshot: Snapshot | None = table.current_snapshot()
            while snapshot is not None:
                ids = cache.get(snapshot.snapshot_id)
                if ids is None:
                    raw = snapshot.summary.additional_properties.get(key) if snapshot.summary else None
                    ids = cache[snapshot.snapshot_id] = frozenset(decode_ids(raw))
                found |= ids
                walked.append(snapshot.snapshot_id)
                parent = snapshot.parent_snapshot_id
                snapshot = by_id.get(parent) if parent is not None else None
            if len(cache) > len(walked) + 64:
                # Expired snapshots: forget them here too, so the cache stays the size of the window.
                kept = {snapshot_id: cache[snapshot_id] for snapshot_id in walked}
                cache.clear()
                cache.update(kept)
        return found


_LEDGER = _Ledger()
# The next record id of a head a foreign commit left without one, by (table uuid, snapshot id): finding it
# scans the files' bounds.
_NEXT_IDS: Lru[tuple[str, int], int] = Lru(1024)


def expire_snapshots(
    table: Table, *, keep_last: int = SNAPSHOTS_KEPT, min_age: timedelta = SNAPSHOTS_MIN_AGE
) -> int:
    """Forget snapshots beyond the newest `keep_last` that are also older than `min_age`.

    pyiceberg's commit time grows with the number of snapshots, so they are kept bounded; the ids in
    the forgotten summaries leave the exactly-once window (see docs/tables.md). Data files are kept.
    """
    snapshots = sorted(table.metadata.snapshots, key=lambda s: s.timestamp_ms, reverse=True)
    if len(snapshots) <= keep_last:
        return 0
    now_ms = int(time.time() * 1000)
    cutoff = min(snapshots[keep_last - 1].timestamp_ms, now_ms - int(min_age.total_seconds() * 1000))
    doomed = sum(1 for s in snapshots[1:] if s.timestamp_ms < cutoff)
    if doomed:
        table.maintenance.expire_snapshots().older_than(datetime.fromtimestamp(cutoff / 1000, UTC)).commit()
    return doomed


def _expire_now_and_then(table: Table) -> None:
    if len(table.metadata.snapshots) < SNAPSHOTS_KEPT + _EXPIRE_EVERY:
        return
    try:
        with writer_turn(table):
            expire_snapshots(table, keep_last=SNAPSHOTS_KEPT, min_age=SNAPSHOTS_MIN_AGE)
    except CommitFailedException:
        pass  # another writer moved on; the next commit tries again
    except Exception:
        # The write itself is committed: a failed clean-up must not make the caller retry it.
        logger.warning("snapshot expiry failed for %s", table.name(), exc_info=True)


def committed_load_ids(table: Table) -> set[str]:
    return set(_LEDGER.ids(table, LOAD_IDS))


def committed_op_ids(table: Table) -> set[str]:
    return set(_LEDGER.ids(table, OP_IDS))


def next_record_id(table: Table) -> int:
    """Max `_record_id` + 1: from the head's summary, or the files' upper bounds after a foreign commit."""
    head = table.current_snapshot()
    if head is None:
        return FIRST_RECORD_ID
    recorded = head.summary.additional_properties.get(NEXT_RECORD_ID) if head.summary else None
    if recorded:
        return int(recorded)
    key = (str(table.metadata.table_uuid), head.snapshot_id)
    return _NEXT_IDS.get_or_make(key, lambda: _max_record_id(table) + 1)


def _max_record_id(table: Table) -> int:
    field_id = table.schema().find_field(RECORD_ID_COLUMN).field_id
    best = FIRST_RECORD_ID - 1
    for task in table.scan(selected_fields=(RECORD_ID_COLUMN,)).plan_files():
        bound = (task.file.upper_bounds or {}).get(field_id)
        if bound is None:
            column = table.scan(selected_fields=(RECORD_ID_COLUMN,)).to_arrow().column(RECORD_ID_COLUMN)
            return max(best, pc.max(column).as_py() or best)
        best = max(best, int(from_bytes(LongType(), bound)))
    return best


def append(
    table: Table, batches: Sequence[tuple[str, pa.Table]], *, max_attempts: int = DEFAULT_ATTEMPTS
) -> AppendOutcome:
    """Commit the batches whose load id is not yet in the table as one snapshot; number their rows.

    `_load_id` and `_record_id` are (re)written here: the load id from the batch, record ids
    consecutively from `next_record_id` as of the attempt that commits.
    """
    unique: dict[str, pa.Table] = {}
    for load_id, data in batches:
        unique.setdefault(load_id, data)
    for attempt in range(1, max_attempts + 1):
        _prepare(table)
        done = _LEDGER.ids(table, LOAD_IDS)
        pending = [(load_id, data) for load_id, data in unique.items() if load_id not in done]
        skipped = tuple(load_id for load_id in unique if load_id in done)
        if not pending:
            return AppendOutcome((), skipped, 0, None, None, attempt)
        first = next_record_id(table)
        data = _assemble(table, pending, first)
        properties = {
            LOAD_IDS: encode_ids([load_id for load_id, _ in pending]),
            NEXT_RECORD_ID: str(first + data.num_rows),
        }
        transaction = table.transaction()
        transaction.append(data, snapshot_properties=properties)
        if _commit(table, transaction, attempt, max_attempts):
            committed = tuple(load_id for load_id, _ in pending)
            _expire_now_and_then(table)
            return AppendOutcome(committed, skipped, data.num_rows, first, _head_id(table), attempt)
    raise AssertionError("unreachable: _commit raises on the last attempt")


def delete_rows(
    table: Table, predicate: Predicate, op_id: str, *, max_attempts: int = DEFAULT_ATTEMPTS
) -> MutationOutcome:
    """Delete the rows matching `predicate` once per `op_id`."""
    return _mutate(table, predicate, None, op_id, max_attempts)


def overwrite_rows(
    table: Table,
    predicate: Predicate,
    replacement: Replacement,
    op_id: str,
    *,
    max_attempts: int = DEFAULT_ATTEMPTS,
) -> MutationOutcome:
    """Replace the rows matching `predicate` by `replacement` atomically, once per `op_id`.

    `replacement` is a table, or a function given the matched rows (as of the attempt's snapshot) that
    returns the new rows, which is what an UPDATE needs under concurrent writers. Rows without a
    `_record_id` (null or no such column) get new ones; rows without a `_load_id` get the op id.
    """
    return _mutate(table, predicate, replacement, op_id, max_attempts)


@in_pool(Kind.MUTATIONS)
def _mutate(
    table: Table, predicate: Predicate, replacement: Replacement | None, op_id: str, max_attempts: int
) -> MutationOutcome:
    for attempt in range(1, max_attempts + 1):
        _prepare(table)
        if op_id in _LEDGER.ids(table, OP_IDS):
            return MutationOutcome(False, 0, 0, None, attempt)
        target = table.schema().as_arrow()
        fields = None if callable(replacement) else (RECORD_ID_COLUMN,)
        matched = table.scan(row_filter=predicate, selected_fields=fields or ("*",)).to_arrow()
        new_rows = replacement(matched) if callable(replacement) else replacement
        first = next_record_id(table)
        rows, next_id = _with_ids(new_rows, target, first, op_id)
        properties = {OP_IDS: encode_ids([op_id]), NEXT_RECORD_ID: str(next_id)}
        transaction = table.transaction()
        if matched.num_rows:
            transaction.delete(predicate, snapshot_properties=properties)
        # Always appended, even empty, so the commit carries the op id when nothing matched too.
        transaction.append(rows, snapshot_properties=properties)
        if _commit(table, transaction, attempt, max_attempts):
            _expire_now_and_then(table)
            return MutationOutcome(True, matched.num_rows, rows.num_rows, _head_id(table), attempt)
    raise AssertionError("unreachable: _commit raises on the last attempt")


def _prepare(table: Table) -> None:
    table.refresh()
    if table.properties.get(_RETRY_KEY) != TABLE_PROPERTIES[_RETRY_KEY]:
        # A table created elsewhere: switch off pyiceberg's blind commit retry before relying on ours.
        with table.transaction() as transaction:
            transaction.set_properties({_RETRY_KEY: TABLE_PROPERTIES[_RETRY_KEY]})


def _commit(table: Table, transaction: Transaction, attempt: int, max_attempts: int) -> bool:
    """Commit what `transaction` staged (its data files, manifests and manifest list are written and, on a
    local warehouse, fsynced: `durable_io`); False after a lost race, CommitConflict after the last."""
    _pause_before_commit(table)
    try:
        # Sent in the table's turn: a compaction holding it (at most one commit interval) goes first.
        with writer_turn(table):
            transaction.commit_transaction()
    except (CommitFailedException, ValidationException) as error:
        if attempt >= max_attempts:
            raise CommitConflict(f"commit lost {attempt} races in a row; nothing was written") from error
        # Jitter keeps two writers that collided from colliding again in lockstep.
        time.sleep(min(0.02 * 2**attempt, 1.0) * random.uniform(0.5, 1.5))  # noqa: S311 - not security
        return False
    return True


def _pause_before_commit(table: Table) -> None:
    """Crash tests kill the writer here: every file of the commit is written, no snapshot names them yet."""
    seconds = float(table.io.properties.get(PAUSE_BEFORE_COMMIT) or 0)
    if seconds > 0:
        logger.warning("pausing before a commit", extra={"table": table.name()[-1], "seconds": seconds})
        time.sleep(seconds)


def _head_id(table: Table) -> int | None:
    head = table.current_snapshot()
    return head.snapshot_id if head is not None else None


def _assemble(table: Table, pending: Iterable[tuple[str, pa.Table]], first: int) -> pa.Table:
    parts = []
    for load_id, data in pending:
        kept = data.drop_columns([c for c in (LOAD_ID_COLUMN, RECORD_ID_COLUMN) if c in data.column_names])
        parts.append(kept.append_column(LOAD_ID_COLUMN, repeated(load_id, kept.num_rows)))
    combined = pa.concat_tables(parts, promote_options="permissive")
    ids = sequence(first, combined.num_rows)
    return _conform(combined.append_column(RECORD_ID_COLUMN, ids), table.schema().as_arrow())


def _with_ids(rows: pa.Table | None, target: pa.Schema, first: int, op_id: str) -> tuple[pa.Table, int]:
    if rows is None or rows.num_rows == 0:
        return target.empty_table(), first
    count = rows.num_rows
    ids = (
        rows.column(RECORD_ID_COLUMN).to_pylist() if RECORD_ID_COLUMN in rows.column_names else [None] * count
    )
    next_id = max([first, *(i + 1 for i in ids if i is not None)])
    filled = []
    for value in ids:
        if value is None:
            value, next_id = next_id, next_id + 1
        filled.append(value)
    loads = (
        rows.column(LOAD_ID_COLUMN) if LOAD_ID_COLUMN in rows.column_names else pa.nulls(count, pa.string())
    )
    rows = rows.drop_columns([c for c in (LOAD_ID_COLUMN, RECORD_ID_COLUMN) if c in rows.column_names])
    rows = rows.append_column(LOAD_ID_COLUMN, pc.fill_null(loads.cast(pa.string()), op_id))
    rows = rows.append_column(RECORD_ID_COLUMN, pa.array(filled, pa.int64()))
    return _conform(rows, target), next_id


def _conform(data: pa.Table, target: pa.Schema) -> pa.Table:
    """Columns in the table's order and types; a column added since the rows were converted is null."""
    extra = set(data.column_names) - set(target.names)
    if extra:
        raise ValueError(f"rows carry columns the table does not have: {sorted(extra)}")
    arrays = []
    fields = []
    for field in target:
        if field.name in data.column_names:
            column = data.column(field.name)
            if not _same_layout(column.type, field.type):
                column = column.cast(field.type)
            arrays.append(column)
            fields.append(field.with_type(column.type))
        elif field.nullable:
            arrays.append(pa.nulls(data.num_rows, field.type))
            fields.append(field)
        else:
            raise ValueError(f"rows lack the required column {field.name!r}")
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _same_layout(source: pa.DataType, target: pa.DataType) -> bool:
    """pyiceberg writes string and list<string> as well as their large variants: skip that copy."""
    if source == target:
        return True
    if pa.types.is_large_string(target):
        return bool(pa.types.is_string(source))
    if pa.types.is_large_list(target) and (pa.types.is_list(source) or pa.types.is_large_list(source)):
        return _same_layout(source.value_type, target.value_type)
    return False
