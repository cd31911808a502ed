"""Errors of the object store; the messages are safe to show to the caller."""

from __future__ import annotations

from sinks.exceptions import NotFound, SinkError
from sinks.iceberg.exceptions import StorageUnavailable

# Why the S3 service behind a store failed a call, as a caller may read it (no endpoint, bucket or key).
UNREACHABLE = "the S3 service could not be reached"
NO_ANSWER = "the S3 service did not answer in time"
CUT_OFF = "the S3 service broke off the connection"
THROTTLING = "the S3 service is throttling requests"
DOWN = "the S3 service is unavailable"


class ObjectStoreError(SinkError):
    """Base of the errors below."""


class InvalidKey(ObjectStoreError, ValueError):
    """A key that is not a plain relative path: empty, absolute, with ``..``, ``.`` or empty segments."""


class NoSuchKey(NotFound, FileNotFoundError):
    """No object under this key."""


class NoSuchUpload(NotFound):
    """The multipart upload does not exist, or was completed or aborted already."""


class InvalidPart(ObjectStoreError):
    """A part named in a completion was never uploaded, or its ETag does not match what was stored."""


class PartTooSmall(InvalidPart):
    """A part other than the last is under the 5 MiB minimum."""


class BucketUnavailable(ObjectStoreError):
    """A bucket of the service could not be checked or created: S3 unreachable, refused, or taken."""


class StoreUnavailable(StorageUnavailable, ObjectStoreError):
    """The S3 service behind the store could not be reached, did not answer in time, or answered that it is
    unavailable, after every attempt: the caller is to retry later (503), not to send anything again."""

    def __init__(self, reason: str, storage: str = "object storage") -> None:
        super().__init__(f"The {storage} is unavailable: {reason}")
        self.reason = reason
