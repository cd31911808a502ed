"""Automatic table maintenance, the pure rules: which of a table's maintenance actions are due when a worker
looks at it. No I/O: ``streams/analytics/maintenance.py`` claims the tables and
``sinks/iceberg/auto_maintenance.py``
reads them and acts.

- **Compaction** is due when one partition of the current snapshot holds more than ``small_files_threshold``
  small files (``core.table_maintenance.most_small_files``): a table that is merely large is left alone, and
  one compaction call is bounded by the per-call caps, so a table far past the threshold is worked off over
  the following rounds.
- **Expiry and orphan removal** are due once per ``EXPIRY_EVERY`` per table: they list the table's files and
  read every kept snapshot's manifests, far more I/O than the check, and the retention (days) and orphan age
  (hours) they apply move slowly anyway. A table never expired is due at once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from core.table_maintenance import ORDER
from schemas.maintenance import MaintenanceAction

EXPIRY_EVERY = timedelta(days=1)


def expiry_due(now: datetime, last_expired_at: datetime | None, every: timedelta = EXPIRY_EVERY) -> bool:
    return last_expired_at is None or last_expired_at <= now - every


def due_actions(
    *,
    most_small_files: int,
    small_files_threshold: int,
    now: datetime,
    last_expired_at: datetime | None,
    every: timedelta = EXPIRY_EVERY,
) -> list[MaintenanceAction]:
    """The actions due on one table, in the order they run (compaction first, so a later expiry can drop
    the snapshots a compaction replaced once they are old enough)."""
    due: set[MaintenanceAction] = set()
    if most_small_files > small_files_threshold:
        due.add(MaintenanceAction.COMPACT)
    if expiry_due(now, last_expired_at, every):
        due |= {MaintenanceAction.EXPIRE_SNAPSHOTS, MaintenanceAction.REMOVE_ORPHANS}
    return [action for action in ORDER if action in due]
