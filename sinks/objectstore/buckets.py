"""The buckets the service keeps its data in, made at start-up when they are missing.

`svc up` calls `ensure_buckets` once before it starts its children, so a fresh S3-compatible service (a new
MinIO, moto) needs no separate set-up step; `SVC_S3_CREATE_BUCKETS=false` turns this off where buckets are
provisioned elsewhere and the service's key may not create them.
"""

from __future__ import annotations

import logging

from schemas.settings import Settings
from sinks.s3_limits import S3Limits

log = logging.getLogger(__name__)


def s3_buckets(settings: Settings) -> list[str]:
    """The distinct buckets of an ``s3://`` warehouse and an ``s3://`` object store, in that order."""
    names: list[str] = []
    for location in (settings.resolved_warehouse, settings.resolved_object_store):
        if location.startswith("s3://"):
            bucket = location.removeprefix("s3://").split("/", 1)[0]
            if bucket and bucket not in names:
                names.append(bucket)
    return names


def ensure_buckets(settings: Settings) -> list[str]:
    """Create the missing buckets of the warehouse and the object store; answers the names it created.

    Nothing is done when ``s3_create_buckets`` is off or neither location is on S3. Raises BucketUnavailable
    (its message names the bucket and the endpoint, never a key) when S3 cannot be reached, refuses to create
    a bucket, or the name belongs to another account.
    """
    names = s3_buckets(settings) if settings.s3_create_buckets else []
    if not names:
        return []
    from sinks.objectstore.s3 import create_missing_buckets  # boto3 loads only where S3 is used

    created = create_missing_buckets(names, settings.s3_endpoint, S3Limits.of(settings))
    for bucket in created:
        log.info("created the S3 bucket", extra={"bucket": bucket, "endpoint": settings.s3_endpoint or "AWS"})
    return created
