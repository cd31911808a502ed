"""`svc admin storage`'s answer: where the metadata database's and the object store's space goes."""

from __future__ import annotations

from enum import StrEnum

from schemas.base import WireModel


class RecordKind(StrEnum):
    """The kinds of record that grow with traffic, each one table of the metadata database."""

    WEBHOOK_EXECUTIONS = "webhook_executions"
    WEBHOOK_PAYLOADS = "webhook_payloads"
    SCHEDULED_RUNS = "scheduled_runs"
    JOBS = "jobs"
    UPLOADS = "uploads"
    TABLE_WRITES = "table_writes"
    REPLAYS = "replays"
    DEDUP_KEYS = "dedup_keys"
    RATE_COUNTERS = "rate_counters"


class RecordUsage(WireModel):
    """One kind of record of one company (``company_id`` None: records of no company, rate counters)."""

    kind: RecordKind
    company_id: str | None
    rows: int
    # The lengths in bytes of the rows' growing text and binary columns (``StorageReport.counted``).
    bytes: int
    # Bytes the rows name in the object store: request bodies kept by reference, uploaded files.
    referenced_bytes: int = 0


class RecordTotal(WireModel):
    """One kind of record over the companies reported."""

    kind: RecordKind
    rows: int
    bytes: int
    referenced_bytes: int = 0
    # The table's pages on disk with its indexes, every company's rows together; None where the database
    # cannot say (a SQLite built without its dbstat table).
    table_bytes: int | None = None


class ObjectAreaUsage(WireModel):
    """The objects under one top-level folder of the object store (``uploads``, ``results``, ...) and one
    company (the key's second segment; None for a key with none)."""

    area: str
    company_id: str | None
    objects: int
    bytes: int


class DatabaseSize(WireModel):
    """The metadata database as a whole: on SQLite its file, its WAL and the free pages inside the file
    (space a VACUUM or the incremental vacuum can give back); on PostgreSQL ``pg_database_size``."""

    backend: str
    file_bytes: int
    wal_bytes: int | None = None
    free_bytes: int | None = None


class StorageReport(WireModel):
    company_id: str | None
    totals: list[RecordTotal]
    records: list[RecordUsage]
    objects: list[ObjectAreaUsage]
    database: DatabaseSize
    # What ``bytes`` counts for each kind of record.
    counted: dict[RecordKind, str]
