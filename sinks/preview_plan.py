"""Which data files a preview opens: the first rows by ``_record_id`` come from the files whose lowest
``_record_id`` (Iceberg keeps it per file) is smallest, so a preview reads files in that order, a few at a
time, and stops once no unread file can hold a row before the last one it keeps. A table's ids grow with
its writes, so a preview of a large table opens its first file or two instead of every file; a preview is
charged the bytes of the files it opens (``sinks/table_reads.py``).

Pure: the files are plain values taken from Iceberg's scan planning.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class DataFile:
    path: str
    size: int
    rows: int
    first_id: int | None  # the file's lowest _record_id; None when Iceberg has no bound for it


def in_id_order(files: Iterable[DataFile]) -> list[DataFile]:
    """Files by their lowest id; a file without a bound first, since it may hold any id."""
    return sorted(files, key=lambda f: (f.first_id is not None, f.first_id or 0, f.path))


def next_round(
    pending: Sequence[DataFile], *, kept: int, limit: int, last_id: int | None, rows_read: int
) -> int:
    """How many of ``pending`` (in id order) the next round opens; 0 when the preview is complete.

    ``kept`` rows are held so far (the smallest ids read, at most ``limit``), the largest being ``last_id``.
    Short of ``limit``, a round opens files until they hold enough rows for what is missing, and at least
    as many as were read already (so a row filter that keeps few rows costs few rounds). At ``limit``, only
    files that may hold an id below ``last_id`` are left to open."""
    if not pending:
        return 0
    if kept >= limit:
        count = 0
        for file in pending:
            if file.first_id is not None and last_id is not None and file.first_id > last_id:
                break
            count += 1
        return count
    wanted = max(limit - kept, rows_read, 1)
    count = rows = 0
    for file in pending:
        count += 1
        rows += file.rows
        if rows >= wanted:
            break
    return count
