"""Committing data files written beforehand (a bulk load's), once per write id.

The files are written while the load reads its sources (``sinks/loads/stage.py``); no snapshot names them
until this commit, which records the write id in the same ledger as the writer's other commits
(``writer.py``), so a job run again after a crash finds it committed and adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyiceberg.expressions import AlwaysTrue
from pyiceberg.manifest import DataFile
from pyiceberg.table import Table, TableProperties, Transaction
from pyiceberg.utils.properties import property_as_bool

from sinks.iceberg.exceptions import CommitConflict
from sinks.iceberg.writer import (
    _LEDGER,
    DEFAULT_ATTEMPTS,
    LOAD_IDS,
    NEXT_RECORD_ID,
    OP_IDS,
    _commit,
    _expire_now_and_then,
    _head_id,
    _prepare,
    encode_ids,
    next_record_id,
)

# Ids left free below a renumbered staged write, for rows other writers commit while its files are rewritten.
RENUMBER_HEADROOM = 1 << 20


@dataclass(frozen=True)
class StagedWrite:
    """Data files written for one write id and not yet committed; their `_record_id`s are consecutive
    from `first_record_id`, `rows` of them."""

    write_id: str
    data_files: tuple[DataFile, ...]
    rows: int
    first_record_id: int


@dataclass(frozen=True)
class StagedOutcome:
    applied: bool  # False: this write id was already committed, the staged files were not used
    staged: StagedWrite  # as committed (or not): renumbered files replace the ones given
    snapshot_id: int | None
    attempts: int


def commit_staged(
    table: Table,
    staged: StagedWrite,
    *,
    replace: bool,
    renumber: Callable[[int], StagedWrite],
    max_attempts: int = DEFAULT_ATTEMPTS,
) -> StagedOutcome:
    """Commit data files written beforehand in one commit, once per write id.

    An append records the id with the appends (`svc.load-ids`); `replace=True` deletes every row of the
    table in the same commit and records it with the operations (`svc.op-ids`), as `overwrite_rows` does.
    When rows committed since the files were written hold some of their `_record_id`s, `renumber(first)`
    rewrites the files with ids from `first` (the next free id plus `RENUMBER_HEADROOM`, so writers that
    keep committing meanwhile do not force a second rewrite); ids stay unique and consecutive in the write.
    """
    key = OP_IDS if replace else LOAD_IDS
    for attempt in range(1, max_attempts + 1):
        ready = _ids_free(table, staged, key, renumber, max_attempts)
        if ready is None:
            return StagedOutcome(False, staged, None, attempt)
        staged = ready
        properties = {
            key: encode_ids([staged.write_id]),
            NEXT_RECORD_ID: str(staged.first_record_id + staged.rows),
        }
        transaction = table.transaction()
        if replace and _has_rows(table):
            transaction.delete(AlwaysTrue(), snapshot_properties=properties)
        with _appending(transaction, properties) as appending:
            for data_file in staged.data_files:
                appending.append_data_file(data_file)
        if _commit(table, transaction, attempt, max_attempts):
            _expire_now_and_then(table)
            return StagedOutcome(True, staged, _head_id(table), attempt)
    raise AssertionError("unreachable: _commit raises on the last attempt")


def _ids_free(
    table: Table, staged: StagedWrite, key: str, renumber: Callable[[int], StagedWrite], max_renumbers: int
) -> StagedWrite | None:
    """`staged` (renumbered if it must be) once the table is refreshed and none of its record ids is taken;
    None when its write id is already committed."""
    for _ in range(max_renumbers + 1):
        _prepare(table)
        if staged.write_id in _LEDGER.ids(table, key):
            return None
        first = next_record_id(table)
        if staged.first_record_id >= first:
            return staged
        staged = renumber(first + RENUMBER_HEADROOM)
    raise CommitConflict(f"record ids were taken {max_renumbers} times in a row; nothing was written")


def _appending(transaction: Transaction, properties: dict[str, str]) -> Any:
    """The snapshot producer `Transaction.append` would use: merging manifests when the table asks for it."""
    update = transaction.update_snapshot(snapshot_properties=properties)
    merge = property_as_bool(
        transaction.table_metadata.properties,
        TableProperties.MANIFEST_MERGE_ENABLED,
        TableProperties.MANIFEST_MERGE_ENABLED_DEFAULT,
    )
    return update.merge_append() if merge else update.fast_append()


def _has_rows(table: Table) -> bool:
    head = table.current_snapshot()
    if head is None:
        return False
    total = head.summary.additional_properties.get("total-records") if head.summary else None
    if total is not None:
        return int(total) > 0
    return any(True for _ in table.scan().plan_files())
