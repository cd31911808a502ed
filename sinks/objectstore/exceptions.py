"""Errors of the object store; the messages are safe to show to the caller."""

from __future__ import annotations

from sinks.exceptions import NotFound, SinkError


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
