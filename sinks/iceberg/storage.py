"""Failures of the table storage told apart from the rest.

pyarrow (and so pyiceberg's FileIO) reports an unreachable S3 service, a refused key or a failing disk as a
bare OSError whose text names the bucket and the object key. `table_storage()` turns it into
StorageUnavailable with a message a tenant may read: what went wrong, without the warehouse's paths (a full
disk is StorageFull, "The table storage is full").
A commit that fails this way has not changed the table: the catalog's pointer moves last. A load's source
files sit in the object store, whose failures are told apart the same way (`storage_failure` with the
"upload storage" named, `sinks/loads`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager

from sinks.iceberg.exceptions import StorageFull, StorageUnavailable
from sinks.storage_full import full

log = logging.getLogger(__name__)
_AWS_ERROR = re.compile(r"AWS Error ([A-Z_]+)")
_AWS_REASONS = {
    "NETWORK_CONNECTION": "the S3 service could not be reached",
    "ACCESS_DENIED": "the S3 service refused the service's key",
    "NO_SUCH_BUCKET": "its S3 bucket does not exist",
    "SLOW_DOWN": "the S3 service is throttling requests",
    "SERVICE_UNAVAILABLE": "the S3 service is unavailable",
}


def s3_service_failure(error: OSError) -> bool:
    """pyarrow's report of the S3 service failing the call (unreachable, refusing, throttling), as opposed
    to an object that is missing or unreadable."""
    return _AWS_ERROR.search(str(error)) is not None


def storage_failure(error: OSError, storage: str = "table storage") -> StorageUnavailable:
    """StorageUnavailable for ``error``, its message free of bucket names and keys: StorageFull when the
    storage had no room left for a write."""
    if full(error):
        return StorageFull(storage)
    found = _AWS_ERROR.search(str(error))
    if found is not None:
        code = found.group(1)
        reason = _AWS_REASONS.get(code, f"the S3 service answered {code}")
    else:
        reason = error.strerror or type(error).__name__
    return StorageUnavailable(f"The {storage} is unavailable: {reason}")


@contextmanager
def table_storage() -> Iterator[None]:
    """Raise StorageUnavailable for an OSError of the block; the full error goes to the log only."""
    try:
        yield
    except OSError as error:
        log.warning("the table storage failed", exc_info=True)
        raise storage_failure(error) from error
