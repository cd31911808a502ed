"""The object store's interface and the rules both backends share (keys, URIs, multipart validation)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, BinaryIO

from sinks.objectstore.exceptions import InvalidKey, InvalidPart, PartTooSmall

if TYPE_CHECKING:
    import pyarrow.fs


MIN_PART_BYTES = 5 * 1024 * 1024
MAX_PART_NUMBER = 10_000
MAX_KEY_BYTES = 1024
# Multipart staging of the local store lives under this top-level folder; no object key may start with it.
RESERVED_PREFIX = ".multipart"


def check_key(key: str, *, prefix: bool = False) -> str:
    """``key`` when it is a plain relative path; a prefix may end with ``/``."""
    body = key[:-1] if prefix and key.endswith("/") else key
    if not body:
        raise InvalidKey("An object key must not be empty")
    if len(key.encode()) > MAX_KEY_BYTES:
        raise InvalidKey(f"An object key has at most {MAX_KEY_BYTES} bytes")
    if body.startswith("/") or "\\" in body or "\x00" in body:
        raise InvalidKey(f"Object key {key!r} must be a relative path with / separators")
    segments = body.split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        raise InvalidKey(f"Object key {key!r} must not have empty, '.' or '..' segments")
    if segments[0] == RESERVED_PREFIX:
        raise InvalidKey(f"Object keys under {RESERVED_PREFIX}/ are reserved")
    return key


def check_part_number(part_number: int) -> int:
    if not 1 <= part_number <= MAX_PART_NUMBER:
        raise InvalidPart(f"Part numbers run from 1 to {MAX_PART_NUMBER}; got {part_number}")
    return part_number


def quoted_etag(digest_hex: str) -> str:
    return f'"{digest_hex}"'


def same_etag(given: str, stored: str) -> bool:
    """ETags compare without their quotes (clients keep or drop them) and without case."""
    return given.strip().strip('"').lower() == stored.strip().strip('"').lower()


def check_parts(etags: Mapping[int, str], stored: Mapping[int, tuple[str, int]]) -> list[int]:
    """The part numbers of a completion in order, once every named part exists with the given ETag and every
    part but the last has at least ``MIN_PART_BYTES``. ``stored`` maps a part number to (ETag, size)."""
    if not etags:
        raise InvalidPart("A completion names at least one part")
    numbers = sorted(check_part_number(number) for number in etags)
    missing = [number for number in numbers if number not in stored]
    if missing:
        raise InvalidPart(f"Part(s) {', '.join(map(str, missing))} were not uploaded")
    wrong = [number for number in numbers if not same_etag(etags[number], stored[number][0])]
    if wrong:
        raise InvalidPart(
            f"The ETag of part(s) {', '.join(map(str, wrong))} does not match the uploaded part"
        )
    small = [number for number in numbers[:-1] if stored[number][1] < MIN_PART_BYTES]
    if small:
        raise PartTooSmall(
            f"Part(s) {', '.join(map(str, small))} are under the {MIN_PART_BYTES}-byte minimum; "
            "only the last part may be smaller"
        )
    return numbers


class ObjectStore(ABC):
    """Objects by plain relative key. ``bucket`` and ``prefix`` make the ``s3://`` URIs users see."""

    def __init__(self, bucket: str, prefix: str = "") -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/")

    def object_key(self, key: str) -> str:
        """The key's name inside the bucket (the store's prefix, then the key)."""
        check_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    def uri(self, key: str) -> str:
        return f"s3://{self.bucket}/{self.object_key(key)}"

    def key_of(self, uri: str) -> str | None:
        """The key of an ``s3://`` URI of this store; None for another bucket, prefix or a malformed URI."""
        head = f"s3://{self.bucket}/" + (f"{self.prefix}/" if self.prefix else "")
        if not uri.startswith(head):
            return None
        try:
            return check_key(uri[len(head) :])
        except InvalidKey:
            return None

    @abstractmethod
    def put_bytes(self, key: str, data: bytes) -> None: ...

    @abstractmethod
    def get_bytes(self, key: str) -> bytes: ...

    @abstractmethod
    def exists(self, key: str) -> bool: ...

    @abstractmethod
    def size(self, key: str) -> int: ...

    @abstractmethod
    def delete(self, key: str) -> None:
        """Removes the object; no error when there is none."""

    @abstractmethod
    def delete_prefix(self, prefix: str) -> int:
        """Removes every object whose key starts with ``prefix`` (a folder when it ends with ``/``)."""

    @abstractmethod
    def list_older(
        self, prefix: str, older_than: datetime, limit: int, start_after: str | None = None
    ) -> list[str]:
        """Up to ``limit`` keys starting with ``prefix`` whose objects were last modified before
        ``older_than``, in key order (as S3 lists them) and after the key ``start_after``, so a sweep can go
        on where its last page ended instead of meeting the same old objects at every pass."""

    @abstractmethod
    def sizes(self, prefix: str = "") -> Iterator[tuple[str, int]]:
        """``(key, bytes)`` of every object whose key starts with ``prefix`` ("": every object), in key
        order; an incomplete multipart upload's parts are not objects yet and are left out."""

    @abstractmethod
    def top_level(self) -> list[str]:
        """The names of the store's top-level folders (``results``, ``uploads``, ...), sorted."""

    @abstractmethod
    def arrow_filesystem(self) -> tuple[pyarrow.fs.FileSystem, str]:
        """``(filesystem, base)`` so that ``f"{base}/{key}"`` opens the object with pyarrow."""

    @abstractmethod
    def initiate_multipart(self, key: str) -> str:
        """Starts a multipart upload to ``key``; answers its upload id."""

    @abstractmethod
    def put_part(self, key: str, upload_id: str, part_number: int, data: bytes | BinaryIO) -> str:
        """Stores one part (streamed when ``data`` is a file); answers its ETag (quoted MD5 hex, as S3)."""

    @abstractmethod
    def complete_multipart(self, key: str, upload_id: str, etags: Mapping[int, str]) -> None:
        """Assembles the named parts in order into the object, atomically, after checking them all."""

    @abstractmethod
    def abort_multipart(self, key: str, upload_id: str) -> None: ...

    @abstractmethod
    def discard_multipart(self, key: str, upload_id: str) -> None:
        """Ends an incomplete upload and deletes every part stored for it; no error when it is gone already
        (an abort and the expiry sweep may both try, and a retry must succeed)."""

    @abstractmethod
    def multipart_bytes(self, key: str, upload_id: str) -> int:
        """Bytes of the parts stored so far for an incomplete upload (what it holds of the store)."""

    @abstractmethod
    def presigned_part_url(
        self, key: str, upload_id: str, part_number: int, expires_seconds: int
    ) -> str | None:
        """A presigned S3 ``UploadPart`` URL; None for the local store (the ingress signs its own link)."""
