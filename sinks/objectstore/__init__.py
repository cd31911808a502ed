"""One object store for the whole service: uploads, query results, load inputs.

A local directory by default (``<data dir>/objects``), or ``s3://bucket/prefix``. Either way callers name
objects by a plain relative key and users see ``s3://<bucket>/<key>`` URIs.
"""

from __future__ import annotations

from sinks.objectstore.base import MIN_PART_BYTES, ObjectStore, check_key
from sinks.objectstore.exceptions import (
    InvalidKey,
    InvalidPart,
    NoSuchKey,
    NoSuchUpload,
    ObjectStoreError,
    PartTooSmall,
)

__all__ = [
    "MIN_PART_BYTES",
    "InvalidKey",
    "InvalidPart",
    "NoSuchKey",
    "NoSuchUpload",
    "ObjectStore",
    "ObjectStoreError",
    "PartTooSmall",
    "check_key",
]
