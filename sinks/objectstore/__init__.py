"""One object store for the whole service: uploads, query results, load inputs.

A local directory by default (``<data dir>/objects``), or ``s3://bucket/prefix``. Either way callers name
objects by a plain relative key and users see ``s3://<bucket>/<key>`` URIs.
"""

from __future__ import annotations

from pathlib import Path

from schemas.settings import Settings
from sinks.objectstore.base import MIN_PART_BYTES, ObjectStore, check_key
from sinks.objectstore.buckets import ensure_buckets
from sinks.objectstore.exceptions import (
    BucketUnavailable,
    InvalidKey,
    InvalidPart,
    NoSuchKey,
    NoSuchUpload,
    ObjectStoreError,
    PartTooSmall,
    StoreUnavailable,
)
from sinks.s3_limits import S3Limits

__all__ = [
    "MIN_PART_BYTES",
    "BucketUnavailable",
    "InvalidKey",
    "InvalidPart",
    "NoSuchKey",
    "NoSuchUpload",
    "ObjectStore",
    "ObjectStoreError",
    "PartTooSmall",
    "StoreUnavailable",
    "check_key",
    "ensure_buckets",
    "object_store",
]


def object_store(settings: Settings) -> ObjectStore:
    """The object store the settings name: ``s3://bucket/prefix`` or a local directory."""
    location = settings.resolved_object_store
    if location.startswith("s3://"):
        from sinks.objectstore.s3 import S3ObjectStore  # boto3 loads only where S3 is used

        bucket, _, prefix = location.removeprefix("s3://").partition("/")
        return S3ObjectStore(bucket, prefix, endpoint=settings.s3_endpoint, limits=S3Limits.of(settings))
    from sinks.objectstore.local import LocalObjectStore

    return LocalObjectStore(Path(location), settings.object_store_bucket)
