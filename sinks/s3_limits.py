"""How long the service waits on an S3 service and how often it tries, the same for every S3 client it makes:
boto3 (the object store, the bucket check at start-up), pyarrow (the object store's Arrow filesystem),
pyiceberg's FileIO (an ``s3://`` warehouse) and DuckDB's httpfs (queries on that warehouse).

Without them an endpoint that takes no connection, or takes one and never answers, holds a call for
minutes. Every client here counts the read timeout as time without a byte, not as a transfer's length, so
a large object read slowly never trips it; why 30 s is its default: docs/decisions/0003-s3-timeouts.md.

Pure: boto3 and pyarrow are imported only by the calls that build their objects.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schemas.settings import Settings

MAX_ATTEMPTS = 10
"""The largest ``SVC_S3_MAX_ATTEMPTS``: one retry-strategy name below exists for each count up to it."""
# pyiceberg's FileIO properties (pyiceberg/io/__init__.py), in seconds, and our own for the attempts.
CONNECT_TIMEOUT = "s3.connect-timeout"
REQUEST_TIMEOUT = "s3.request-timeout"
RETRY_STRATEGY = "s3.retry-strategy-impl"
ATTEMPTS = "svc.s3.max-attempts"


@dataclass(frozen=True)
class S3Limits:
    """Seconds to wait for a connection, seconds to wait for a byte, attempts per call (the first counted)."""

    connect_seconds: float
    read_seconds: float
    max_attempts: int

    def __post_init__(self) -> None:
        if self.connect_seconds <= 0 or self.read_seconds <= 0:
            raise ValueError("S3 timeouts must be positive")
        if not 1 <= self.max_attempts <= MAX_ATTEMPTS:
            raise ValueError(f"S3 attempts run from 1 to {MAX_ATTEMPTS}")

    @classmethod
    def of(cls, settings: Settings) -> S3Limits:
        return cls(
            settings.s3_connect_timeout_seconds, settings.s3_read_timeout_seconds, settings.s3_max_attempts
        )

    def boto_options(self) -> dict[str, Any]:
        """Keyword arguments of ``botocore.config.Config``. Its ``max_attempts`` counts retries only (the
        service's old ``max_attempts: 5`` made six attempts); ``total_max_attempts`` counts the first too."""
        return {
            "connect_timeout": self.connect_seconds,
            "read_timeout": self.read_seconds,
            "retries": {"total_max_attempts": self.max_attempts, "mode": "standard"},
        }

    def arrow_options(self) -> dict[str, Any]:
        """Keyword arguments of ``pyarrow.fs.S3FileSystem``."""
        return {
            "connect_timeout": self.connect_seconds,
            "request_timeout": self.read_seconds,
            "retry_strategy": _standard_retry(self.max_attempts)(),
        }

    def fileio_properties(self) -> dict[str, str]:
        """pyiceberg FileIO properties; DuckDB's readers take theirs from the same (``from_properties``)."""
        return {
            CONNECT_TIMEOUT: str(self.connect_seconds),
            REQUEST_TIMEOUT: str(self.read_seconds),
            RETRY_STRATEGY: f"{__name__}.standard_retry_{self.max_attempts}",
            ATTEMPTS: str(self.max_attempts),
        }

    @classmethod
    def from_properties(cls, properties: Mapping[str, str]) -> S3Limits | None:
        """The limits ``fileio_properties`` wrote; None when the properties carry none."""
        if not all(properties.get(name) for name in (CONNECT_TIMEOUT, REQUEST_TIMEOUT, ATTEMPTS)):
            return None
        return cls(
            float(properties[CONNECT_TIMEOUT]), float(properties[REQUEST_TIMEOUT]), int(properties[ATTEMPTS])
        )

    def duckdb_settings(self) -> dict[str, int]:
        """DuckDB's httpfs has one timeout, in whole seconds, for connecting and reading alike (so the longer
        of the two), and counts retries, not attempts."""
        timeout = math.ceil(max(self.connect_seconds, self.read_seconds))
        return {"http_timeout": timeout, "http_retries": self.max_attempts - 1}


def _standard_retry(attempts: int) -> Callable[[], Any]:
    def make() -> Any:
        from pyarrow.fs import AwsStandardS3RetryStrategy

        return AwsStandardS3RetryStrategy(max_attempts=attempts)

    return make


# pyiceberg builds the FileIO's retry strategy from a dotted name (``s3.retry-strategy-impl``) that it calls
# with no arguments, so there is one such name per attempt count: standard_retry_1 ... standard_retry_10.
for _attempts in range(1, MAX_ATTEMPTS + 1):
    globals()[f"standard_retry_{_attempts}"] = _standard_retry(_attempts)
