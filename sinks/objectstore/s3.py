"""The object store on S3 (or an S3-compatible service at ``endpoint``), through boto3.

Credentials come from the standard AWS chain (environment, shared files, instance role); none are settings.
Every client waits and retries within the service's S3 limits (``sinks/s3_limits.py``); a call that fails
because the service could not be reached, did not answer in time or said it is unavailable raises
StoreUnavailable (a StorageUnavailable: 503 with Retry-After at the ingress), never botocore's own error.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from itertools import islice
from typing import Any, BinaryIO
from urllib.parse import urlsplit

import boto3
import pyarrow.fs
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from sinks.objectstore.base import ObjectStore, check_key, check_part_number, check_parts
from sinks.objectstore.exceptions import (
    BucketUnavailable,
    InvalidPart,
    NoSuchKey,
    NoSuchUpload,
    PartTooSmall,
)
from sinks.objectstore.s3_failures import error_code, reachable
from sinks.s3_limits import S3Limits
from sinks.s3_session import new_session, s3_region

__all__ = [
    "S3ObjectStore",
    "create_missing_buckets",
    "new_session",
    "s3_client",
    "s3_region",
]

_DELETE_BATCH = 1000
_NOT_FOUND = {"404", "NoSuchKey", "NotFound"}
_NO_BUCKET = {"404", "NoSuchBucket", "NotFound"}
_NOT_OURS_TO_CHECK = {"403", "AccessDenied", "Forbidden"}
# S3's default location: AWS refuses it when it is named as a LocationConstraint.
_DEFAULT_REGION = "us-east-1"


def s3_client(session: boto3.session.Session, endpoint: str | None, limits: S3Limits) -> Any:
    """A client of AWS S3, or of the S3-compatible service at ``endpoint`` with path-style URLs."""
    config = Config(
        signature_version="s3v4",
        s3={"addressing_style": "path" if endpoint else "auto"},
        **limits.boto_options(),
    )
    return session.client("s3", endpoint_url=endpoint, config=config)


class S3ObjectStore(ObjectStore):
    def __init__(self, bucket: str, prefix: str, *, endpoint: str | None, limits: S3Limits) -> None:
        super().__init__(bucket, prefix)
        self.endpoint = endpoint
        self.limits = limits
        self.region = s3_region()
        self.session = new_session(self.region)
        self.client: Any = s3_client(self.session, endpoint, limits)

    @reachable
    def put_bytes(self, key: str, data: bytes) -> None:
        self.client.put_object(Bucket=self.bucket, Key=self.object_key(key), Body=data)

    @reachable
    def get_bytes(self, key: str) -> bytes:
        try:
            answer = self.client.get_object(Bucket=self.bucket, Key=self.object_key(key))
        except ClientError as error:
            if error_code(error) in _NOT_FOUND:
                raise NoSuchKey(f"No object {key}") from error
            raise
        body: bytes = answer["Body"].read()
        return body

    def _head(self, key: str) -> dict[str, Any] | None:
        try:
            head: dict[str, Any] = self.client.head_object(Bucket=self.bucket, Key=self.object_key(key))
        except ClientError as error:
            if error_code(error) in _NOT_FOUND:
                return None
            raise
        return head

    @reachable
    def exists(self, key: str) -> bool:
        return self._head(key) is not None

    @reachable
    def size(self, key: str) -> int:
        head = self._head(key)
        if head is None:
            raise NoSuchKey(f"No object {key}")
        return int(head["ContentLength"])

    @reachable
    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self.object_key(key))

    def _entries(self, prefix: str, start_after: str | None = None) -> Iterator[dict[str, Any]]:
        paginator = self.client.get_paginator("list_objects_v2")
        after = {} if start_after is None else {"StartAfter": start_after}
        for page in paginator.paginate(Bucket=self.bucket, Prefix=prefix, **after):
            yield from page.get("Contents", [])

    def _listed(self, prefix: str) -> Iterator[str]:
        for entry in self._entries(prefix):
            yield str(entry["Key"])

    @reachable
    def delete_prefix(self, prefix: str) -> int:
        check_key(prefix, prefix=True)
        full = f"{self.prefix}/{prefix}" if self.prefix else prefix
        removed = 0
        batch: list[str] = []
        for name in self._listed(full):
            batch.append(name)
            if len(batch) == _DELETE_BATCH:
                removed += self._delete_batch(batch)
                batch = []
        if batch:
            removed += self._delete_batch(batch)
        return removed

    @reachable
    def list_older(
        self, prefix: str, older_than: datetime, limit: int, start_after: str | None = None
    ) -> list[str]:
        check_key(prefix, prefix=True)
        full = f"{self.prefix}/{prefix}" if self.prefix else prefix
        after = None if start_after is None else self.object_key(start_after)
        skip = len(self.prefix) + 1 if self.prefix else 0
        entries = self._entries(full, after)
        old = (str(entry["Key"])[skip:] for entry in entries if entry["LastModified"] < older_than)
        return list(islice(old, limit))

    def sizes(self, prefix: str = "") -> Iterator[tuple[str, int]]:
        if prefix:
            check_key(prefix, prefix=True)
        full = f"{self.prefix}/{prefix}" if self.prefix else prefix
        token: str | None = None
        while True:  # a page per call, so a bucket of millions of objects is never held at once
            entries, token = self._size_page(full, token)
            yield from entries
            if token is None:
                return

    @reachable
    def _size_page(self, full: str, token: str | None) -> tuple[list[tuple[str, int]], str | None]:
        skip = len(self.prefix) + 1 if self.prefix else 0
        more = {} if token is None else {"ContinuationToken": token}
        page = self.client.list_objects_v2(Bucket=self.bucket, Prefix=full, **more)
        entries = [(str(entry["Key"])[skip:], int(entry["Size"])) for entry in page.get("Contents", [])]
        return entries, page.get("NextContinuationToken") if page.get("IsTruncated") else None

    @reachable
    def top_level(self) -> list[str]:
        base = f"{self.prefix}/" if self.prefix else ""
        paginator = self.client.get_paginator("list_objects_v2")
        names: list[str] = []
        for page in paginator.paginate(Bucket=self.bucket, Prefix=base, Delimiter="/"):
            names.extend(
                str(common["Prefix"])[len(base) :].rstrip("/") for common in page.get("CommonPrefixes", [])
            )
        return sorted(names)

    def _delete_batch(self, names: list[str]) -> int:
        self.client.delete_objects(
            Bucket=self.bucket, Delete={"Objects": [{"Key": name} for name in names], "Quiet": True}
        )
        return len(names)

    def arrow_filesystem(self) -> tuple[pyarrow.fs.FileSystem, str]:
        credentials = self.session.get_credentials()
        options: dict[str, Any] = {"region": self.region, **self.limits.arrow_options()}
        if credentials is not None:
            frozen = credentials.get_frozen_credentials()
            options.update(
                access_key=frozen.access_key, secret_key=frozen.secret_key, session_token=frozen.token
            )
        if self.endpoint:
            parts = urlsplit(self.endpoint)
            options.update(endpoint_override=parts.netloc, scheme=parts.scheme or "https")
        base = f"{self.bucket}/{self.prefix}" if self.prefix else self.bucket
        return pyarrow.fs.S3FileSystem(**options), base

    # multipart

    @reachable
    def initiate_multipart(self, key: str) -> str:
        answer = self.client.create_multipart_upload(Bucket=self.bucket, Key=self.object_key(key))
        return str(answer["UploadId"])

    @reachable
    def put_part(self, key: str, upload_id: str, part_number: int, data: bytes | BinaryIO) -> str:
        check_part_number(part_number)
        try:
            answer = self.client.upload_part(
                Bucket=self.bucket,
                Key=self.object_key(key),
                UploadId=upload_id,
                PartNumber=part_number,
                Body=data,
            )
        except ClientError as error:
            _raise_mapped(error, upload_id)
            raise
        return str(answer["ETag"])

    def _stored_parts(self, key: str, upload_id: str) -> dict[int, tuple[str, int]]:
        paginator = self.client.get_paginator("list_parts")
        stored: dict[int, tuple[str, int]] = {}
        pages = paginator.paginate(Bucket=self.bucket, Key=self.object_key(key), UploadId=upload_id)
        for page in pages:
            for part in page.get("Parts", []):
                stored[int(part["PartNumber"])] = (str(part["ETag"]), int(part["Size"]))
        return stored

    @reachable
    def complete_multipart(self, key: str, upload_id: str, etags: Mapping[int, str]) -> None:
        try:
            # Checked here first so both stores refuse the same completions with the same messages.
            stored = self._stored_parts(key, upload_id)
            numbers = check_parts(etags, stored)
            self.client.complete_multipart_upload(
                Bucket=self.bucket,
                Key=self.object_key(key),
                UploadId=upload_id,
                MultipartUpload={
                    "Parts": [{"PartNumber": number, "ETag": stored[number][0]} for number in numbers]
                },
            )
        except ClientError as error:
            _raise_mapped(error, upload_id)
            raise

    @reachable
    def abort_multipart(self, key: str, upload_id: str) -> None:
        try:
            self.client.abort_multipart_upload(
                Bucket=self.bucket, Key=self.object_key(key), UploadId=upload_id
            )
        except ClientError as error:
            _raise_mapped(error, upload_id)
            raise

    def discard_multipart(self, key: str, upload_id: str) -> None:
        try:
            self.abort_multipart(key, upload_id)
        except NoSuchUpload:
            return

    @reachable
    def multipart_bytes(self, key: str, upload_id: str) -> int:
        try:
            return sum(size for _, size in self._stored_parts(key, upload_id).values())
        except ClientError as error:
            _raise_mapped(error, upload_id)
            raise

    def presigned_part_url(
        self, key: str, upload_id: str, part_number: int, expires_seconds: int
    ) -> str | None:
        check_part_number(part_number)
        url: str = self.client.generate_presigned_url(
            "upload_part",
            Params={
                "Bucket": self.bucket,
                "Key": self.object_key(key),
                "UploadId": upload_id,
                "PartNumber": part_number,
            },
            ExpiresIn=expires_seconds,
        )
        return url


def _raise_mapped(error: ClientError, upload_id: str) -> None:
    """Raises the store's own error for a multipart failure S3 reports; returns for any other error."""
    code = error_code(error)
    if code == "NoSuchUpload":
        raise NoSuchUpload(f"No upload {upload_id} (completed, aborted or never started)") from error
    if code == "EntityTooSmall":
        raise PartTooSmall("A part other than the last is under the 5 MiB minimum") from error
    if code in ("InvalidPart", "InvalidPartOrder"):
        raise InvalidPart("A part was not uploaded or its ETag does not match") from error


def create_missing_buckets(names: list[str], endpoint: str | None, limits: S3Limits) -> list[str]:
    """Create each bucket of ``names`` that does not exist; answers the ones this call created."""
    region = s3_region()
    client = s3_client(new_session(region), endpoint, limits)
    where = endpoint or "AWS S3"
    return [
        name
        for name in names
        if not _bucket_exists(client, name, where) and _create(client, name, region, where)
    ]


def _bucket_exists(client: Any, bucket: str, where: str) -> bool:
    try:
        client.head_bucket(Bucket=bucket)
    except ClientError as error:
        code = error_code(error)
        if code in _NO_BUCKET:
            return False
        if code in _NOT_OURS_TO_CHECK:
            # A key limited to objects may not look at the bucket itself. The bucket exists either way (a
            # missing one answers 404), and if it is not usable the first read or write says so.
            return True
        raise BucketUnavailable(f"S3 bucket {bucket} at {where} could not be checked: {code}") from error
    except BotoCoreError as error:
        raise BucketUnavailable(
            f"S3 at {where} could not be reached to check bucket {bucket}: {error}"
        ) from error
    return True


def _create(client: Any, bucket: str, region: str, where: str) -> bool:
    """Whether this call created the bucket (False: another process made it a moment earlier)."""
    location = (
        {} if region == _DEFAULT_REGION else {"CreateBucketConfiguration": {"LocationConstraint": region}}
    )
    try:
        client.create_bucket(Bucket=bucket, **location)
    except ClientError as error:
        code = error_code(error)
        if code == "BucketAlreadyOwnedByYou":
            return False
        if code == "BucketAlreadyExists":
            raise BucketUnavailable(
                f"S3 bucket {bucket} belongs to another account; choose another name"
            ) from error
        raise BucketUnavailable(f"S3 bucket {bucket} at {where} could not be created: {code}") from error
    except BotoCoreError as error:
        raise BucketUnavailable(
            f"S3 at {where} could not be reached to create bucket {bucket}: {error}"
        ) from error
    return True
