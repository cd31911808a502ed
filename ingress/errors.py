"""Errors in the spec's shared format: a JSON body with ``errors`` (array of strings).

Under ``/clients/svcdb/analytics/`` every error also carries analytics' ``errorCode`` and ``hint``, those
raised by what all areas share too (``failure_body``): a refused body is 400 ``INVALID_REQUEST``, a missing
or wrong key 401 ``UNAUTHORIZED``, a body over the size limit 413 ``REQUEST_TOO_LARGE``, a rate limit 429
``RATE_LIMITED``.

While the metadata database cannot be reached, a call that needs it answers 503 with ``Retry-After`` in its
area's format (the trigger's ``ExecuteWebhookResponse``, analytics' ``errorCode``, ``errors`` and ``hint``,
``errors`` elsewhere), never a 500, and logs at most one line a second saying so. So does a call whose storage
(the object store, the warehouse) cannot be reached, with analytics' ``errorCode`` ``STORAGE_UNAVAILABLE``.
A write refused because the storage is full (the database's disk, the object store's, the warehouse's:
``sinks/storage_full.py``) answers the same way, 503 with ``Retry-After`` and a message saying the storage is
full, and is remembered for a few seconds for ``/readyz``.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from sqlalchemy.exc import DataError, InterfaceError, OperationalError, SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ingress.log_throttle import LogThrottle
from schemas.deliveries import ExecuteWebhookResponse
from sinks.db.availability import DatabaseUnreachable, describe, unreachable
from sinks.exceptions import BrokerUnavailable
from sinks.iceberg.exceptions import StorageUnavailable
from sinks.storage_full import Sightings, full

log = logging.getLogger(__name__)
DATABASE_RETRY_AFTER_SECONDS = 2
DATABASE_UNAVAILABLE = "The service's database is unavailable; retry after the time in Retry-After"
# An S3 outage is not expected to end as fast as a database failover: ask for a little longer.
STORAGE_RETRY_AFTER_SECONDS = 5
STORAGE_FULL = "The service's storage is full; retry after the time in Retry-After"
# Space comes back when someone frees it, not within a failover: longer still.
STORAGE_FULL_RETRY_AFTER_SECONDS = 10
# How long /readyz says "full" after a write was refused for lack of space: a database server or S3 service
# that is full is no file system the ingress can measure.
FULL_SIGHTING_SECONDS = 5.0
full_sightings = Sightings(FULL_SIGHTING_SECONDS)
# Paths whose errors have their own shape (ingress/webhooks/trigger.py, ingress/analytics/coded_errors.py).
_TRIGGER_PATH = "/clients/custom-webhooks"
ANALYTICS_PREFIX = "/clients/svcdb/analytics/"
# Analytics answers every failure with a code, also those raised by what all areas share (request
# validation, authentication, rate limits, the body-size limit), which cannot know whose call it refuses.
# The codes and their statuses are those of ingress/analytics/coded_errors.py (a unit test holds them equal).
SHARED_ANALYTICS_CODES = {
    400: "INVALID_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "REQUEST_TOO_LARGE",
    429: "RATE_LIMITED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
_SHARED_HINTS = {
    400: "Correct what each message names (field: problem) and send the call again; "
    "GET /openapi.json has every request's schema",
    401: "Send your client API key as-is in the Authorization header (a poweruser or webhook key is refused "
    "here)",
    403: "Ask an admin of your company for the permission this call needs",
    404: "No such analytics operation: GET /openapi.json lists them",
    405: "Every analytics operation is a POST with a JSON body",
    500: "Retry the call; if it fails again, report the X-Request-Id of the answer",
    413: "Send a smaller body: split the rows over several /append-rows calls, or upload large data and "
    "load it with /load-from-s3",
}


class ApiError(Exception):
    """Raised in a request; rendered as ``{"errors": [...]}``, or as ``body`` for an area's own shape."""

    def __init__(
        self,
        status: int,
        *errors: str,
        headers: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(errors[0] if errors else str(status))
        self.status = status
        self.errors = list(errors)
        self.headers = headers or {}
        self.body = body


class BodyTooLarge(StarletteHTTPException):
    """An HTTP error, not a plain exception, so FastAPI's body parsing re-raises it rather than answer 400."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"Request body exceeds the limit of {limit} bytes")


def error_response(status: int, errors: list[str], headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"errors": errors}, status_code=status, headers=headers)


def _shared_hint(status: int, headers: Mapping[str, str] | None) -> str | None:
    retry = (headers or {}).get("Retry-After")
    if status in (429, 503):
        return f"Retry in {retry} seconds (the Retry-After header)" if retry else "Retry shortly"
    return _SHARED_HINTS.get(status)


def failure_body(
    path: str,
    status: int,
    errors: list[str],
    headers: Mapping[str, str] | None = None,
    hint: str | None = None,
) -> dict[str, Any]:
    """An error's body on ``path``: ``{"errorCode", "errors", "hint"}`` under the analytics prefix (for a
    status with a code), ``{"errors"}`` elsewhere. ``hint`` replaces the status's generic one."""
    errors = errors or [HTTPStatus(status).phrase]
    code = SHARED_ANALYTICS_CODES.get(status) if path.startswith(ANALYTICS_PREFIX) else None
    if code is None:
        return {"errors": errors}
    return {"errorCode": code, "errors": errors, "hint": hint or _shared_hint(status, headers)}


def failure_response(
    path: str,
    status: int,
    errors: list[str],
    headers: dict[str, str] | None = None,
    hint: str | None = None,
) -> JSONResponse:
    body = failure_body(path, status, errors, headers, hint)
    return JSONResponse(body, status_code=status, headers=headers)


# The first element of a request validation error's path says where the value was (FastAPI's names).
_REQUEST_PARTS = frozenset({"body", "query", "path", "header", "cookie"})


def _location(loc: tuple[Any, ...], *, in_request: bool) -> str:
    """The path of a problem. Only a request error's first element names the request part and is dropped;
    any later ``body`` or ``query`` is a field (``webhookConfig.filterConfig.body.order.$gte``)."""
    if in_request and loc and loc[0] in _REQUEST_PARTS:
        loc = loc[1:]
    return ".".join(str(part) for part in loc) or "body"


def messages_of(exc: RequestValidationError | ValidationError, *, prefix: str = "") -> list[str]:
    """One readable message per problem: ``field.path: what is wrong``."""
    messages = []
    in_request = isinstance(exc, RequestValidationError)
    for error in exc.errors():
        message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
        location = _location(tuple(error.get("loc", ())), in_request=in_request)
        if prefix:
            location = prefix if location == "body" else f"{prefix}.{location}"
        messages.append(f"{location}: {message}")
    return messages or ["Invalid request"]


def database_unavailable(exc: BaseException) -> bool:
    """The request failed because the metadata database did not answer, or a write found the storage full
    (``unreachable`` counts that too): a 503 to retry, not a 500."""
    return isinstance(exc, OperationalError | InterfaceError) or unreachable(exc)


NUL_REFUSED = "The request contains a NUL character, which no field accepts"
NUL_HINT = "Remove the NUL characters (\\u0000) from the request's text"


def nul_in_text(exc: BaseException) -> bool:
    """The database refused a value because it holds a NUL character (PostgreSQL's text types hold none)."""
    return isinstance(exc, DataError) and "NUL (0x00)" in str(exc)


def unavailable_response(path: str) -> JSONResponse:
    headers = {"Retry-After": str(DATABASE_RETRY_AFTER_SECONDS)}
    body: dict[str, Any]
    if path == _TRIGGER_PATH:
        answer = ExecuteWebhookResponse(
            success=False, message=DATABASE_UNAVAILABLE, errors=[DATABASE_UNAVAILABLE]
        )
        body = answer.model_dump(by_alias=True)
    elif path.startswith(ANALYTICS_PREFIX):
        hint = f"Retry in {DATABASE_RETRY_AFTER_SECONDS} seconds"
        body = {"errorCode": "UNAVAILABLE", "errors": [DATABASE_UNAVAILABLE], "hint": hint}
    else:
        body = {"errors": [DATABASE_UNAVAILABLE]}
    return JSONResponse(body, status_code=503, headers=headers)


def storage_full_response(path: str) -> JSONResponse:
    """503 for a write the storage had no room for, in the area's shape; nothing was done."""
    full_sightings.saw()
    headers = {"Retry-After": str(STORAGE_FULL_RETRY_AFTER_SECONDS)}
    body: dict[str, Any]
    if path == _TRIGGER_PATH:
        answer = ExecuteWebhookResponse(success=False, message=STORAGE_FULL, errors=[STORAGE_FULL])
        body = answer.model_dump(by_alias=True)
    elif path.startswith(ANALYTICS_PREFIX):
        hint = f"Nothing was changed; retry in {STORAGE_FULL_RETRY_AFTER_SECONDS} seconds"
        body = {"errorCode": "STORAGE_UNAVAILABLE", "errors": [STORAGE_FULL], "hint": hint}
    else:
        body = {"errors": [STORAGE_FULL]}
    return JSONResponse(body, status_code=503, headers=headers)


def storage_unavailable_response(path: str, message: str) -> JSONResponse:
    """503 for a call whose storage failed; ``message`` is StorageUnavailable's, safe to show."""
    headers = {"Retry-After": str(STORAGE_RETRY_AFTER_SECONDS)}
    if not path.startswith(ANALYTICS_PREFIX):
        return JSONResponse({"errors": [message]}, status_code=503, headers=headers)
    hint = f"Nothing was changed; retry in {STORAGE_RETRY_AFTER_SECONDS} seconds"
    body = {"errorCode": "STORAGE_UNAVAILABLE", "errors": [message], "hint": hint}
    return JSONResponse(body, status_code=503, headers=headers)


class _OutageLog:
    """One line a second at most while the refusals last: an outage under load is thousands a second."""

    def __init__(self, every_seconds: float = 1.0) -> None:
        self._throttle = LogThrottle(every_seconds)

    def refused(self, path: str, exc: BaseException, *, storage_full: bool) -> None:
        also = self._throttle.take()
        if also is None:
            return
        what = "storage full" if storage_full else "metadata database unavailable"
        log.warning(
            f"{what}; answered 503", extra={"path": path, "error": describe(exc), "also_refused": also}
        )


_outage_log = _OutageLog()


def outage_response(path: str, exc: BaseException) -> JSONResponse:
    """The 503 of a call the database (or the storage, when full) refused."""
    storage_full = full(exc)
    _outage_log.refused(path, exc, storage_full=storage_full)
    return storage_full_response(path) if storage_full else unavailable_response(path)


class DatabaseOutage:
    """The 503 for what FastAPI's exception handlers never see: the trigger's fast path
    (``ingress/webhooks/trigger_fast_path.py``) sits in front of FastAPI."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            if not started and nul_in_text(exc):
                refused = failure_response(scope["path"], 400, [NUL_REFUSED], hint=NUL_HINT)
                await refused(scope, receive, send)
                return
            if started or not database_unavailable(exc):
                raise
            await outage_response(scope["path"], exc)(scope, receive, send)


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        if exc.body is not None:
            return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)
        return failure_response(request.url.path, exc.status, exc.errors, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return failure_response(request.url.path, 400, messages_of(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        path = request.url.path
        return failure_response(path, exc.status_code, [str(exc.detail)], dict(exc.headers or {}))

    async def _database(request: Request, exc: Exception) -> JSONResponse:
        if nul_in_text(exc):  # no stored name or value holds a NUL: the input is bad, not the service
            return failure_response(request.url.path, 400, [NUL_REFUSED], hint=NUL_HINT)
        if not database_unavailable(exc):
            raise exc  # a real error: the edge's last-resort 500
        return outage_response(request.url.path, exc)

    for kind in (SQLAlchemyError, DatabaseUnreachable, sqlite3.OperationalError):
        app.add_exception_handler(kind, _database)

    @app.exception_handler(StorageUnavailable)
    async def _storage(request: Request, exc: StorageUnavailable) -> JSONResponse:
        if full(exc):
            return outage_response(request.url.path, exc)
        return storage_unavailable_response(request.url.path, str(exc))

    @app.exception_handler(BrokerUnavailable)
    async def _broker(request: Request, exc: BrokerUnavailable) -> JSONResponse:
        log.error("broker unavailable", extra={"error": str(exc)})
        message = ["The message queue is unavailable; retry later"]
        return failure_response(request.url.path, 503, message, {"Retry-After": "5"})
