"""S3 failing a call because the service is away (no connection, no answer in time, a connection cut,
throttling, a 5xx after every attempt), told apart from S3 refusing the call: the first is StoreUnavailable
for the caller (503 with Retry-After at the ingress), with botocore's error, which names the endpoint, bucket
and key, in the log only. A service out of space is StorageFull."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from botocore.exceptions import BotoCoreError, ClientError, ConnectionError, HTTPClientError, ReadTimeoutError

from sinks.iceberg.exceptions import StorageFull
from sinks.objectstore import exceptions as failures
from sinks.objectstore.exceptions import StoreUnavailable
from sinks.storage_full import full

log = logging.getLogger(__name__)
_BUSY = {"SlowDown", "429"}
_DOWN = {"ServiceUnavailable", "503", "InternalError", "500"}
P = ParamSpec("P")
R = TypeVar("R")


def error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def unavailable_reason(error: BaseException) -> str | None:
    """Why S3 failed the call, when ``error`` says the service was away rather than that the call was wrong:
    no connection, no answer in time, a connection cut, throttling or a 5xx (each after every attempt)."""
    if isinstance(error, ReadTimeoutError):
        return failures.NO_ANSWER
    if isinstance(error, ConnectionError):  # EndpointConnectionError, ConnectTimeoutError, proxy, TLS
        return failures.UNREACHABLE
    if isinstance(error, HTTPClientError):  # ConnectionClosedError, ResponseStreamingError
        return failures.CUT_OFF
    if isinstance(error, ClientError):
        code = error_code(error)
        if code in _BUSY:
            return failures.THROTTLING
        if code in _DOWN:
            return failures.DOWN
    return None


def reachable(call: Callable[P, R]) -> Callable[P, R]:
    """The store's call, an S3 service that is away reported as StoreUnavailable (the cause in the log)."""

    @functools.wraps(call)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return call(*args, **kwargs)
        except (BotoCoreError, ClientError) as error:
            if full(error):  # an S3-compatible service out of space (HTTP 507)
                log.warning("the object storage is full", extra={"operation": call.__name__}, exc_info=True)
                raise StorageFull("object storage") from error
            reason = unavailable_reason(error)
            if reason is None:
                raise
            log.warning("the object storage failed", extra={"operation": call.__name__}, exc_info=True)
            raise StoreUnavailable(reason) from error

    return guarded
