"""Errors of the Iceberg storage core; each maps to one interface error code."""

from __future__ import annotations

from sinks.exceptions import Conflict, NotFound, SinkError
from sinks.storage_full import NoRoom


class IcebergError(SinkError):
    """Base of the errors below."""


class InvalidSchema(IcebergError):
    """A column, type, partition spec or schema change the interface refuses (INVALID_SCHEMA)."""


class TableNotFound(NotFound):
    """No such table in the catalog (NOT_FOUND)."""


class TableExists(Conflict):
    """A table with this id already exists."""


class CommitConflict(IcebergError):
    """Concurrent commits kept winning and the bounded retries ran out; nothing was committed."""


class MaskingError(IcebergError):
    """A masked value cannot be decrypted: tampered, truncated, or written for another company."""


class StorageUnavailable(IcebergError):
    """The table storage (an S3 service, or the warehouse's disk) failed a read or a write; nothing of the
    write was committed, and trying again once the storage is back is safe."""


class StorageFull(StorageUnavailable, NoRoom):
    """The storage had no room left for the write (a full file system or quota, or an S3 service out of
    space; ``sinks/storage_full.py``); nothing of it was kept, and the same write succeeds once space returns.
    Raised from the error that said so (the log has it)."""

    def __init__(self, storage: str = "storage") -> None:
        super().__init__(f"The {storage} is full")
