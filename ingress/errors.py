"""Errors in the spec's shared format: a JSON body with ``errors`` (array of strings).

While the metadata database cannot be reached, a call that needs it answers 503 with ``Retry-After`` in its
area's format (the trigger's ``ExecuteWebhookResponse``, analytics' ``errorCode``, ``errors`` and ``hint``,
``errors`` elsewhere), never a 500, and logs at most one line a second saying so. So does a call whose
storage (the object store, the warehouse) cannot be reached, with analytics' ``errorCode``
``STORAGE_UNAVAILABLE``.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from sqlalchemy.exc import DataError, InterfaceError, OperationalError, SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from schemas.deliveries import ExecuteWebhookResponse
from sinks.db.availability import DatabaseUnreachable, describe, unreachable
from sinks.exceptions import BrokerUnavailable
from sinks.iceberg.exceptions import StorageUnavailable

log = logging.getLogger(__name__)
DATABASE_RETRY_AFTER_SECONDS = 2
DATABASE_UNAVAILABLE = "The service's database is unavailable; retry after the time in Retry-After"
# An S3 outage is not expected to end as fast as a database failover: ask for a little longer.
STORAGE_RETRY_AFTER_SECONDS = 5
# Paths whose errors have their own shape (ingress/routes/webhook_trigger.py, ingress/analytics_errors.py).
_TRIGGER_PATH = "/clients/custom-webhooks"
_ANALYTICS_PREFIX = "/clients/svcdb/analytics/"


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


def _location(loc: tuple[Any, ...]) -> str:
    parts = [str(part) for part in loc if part not in ("body", "query")]
    return ".".join(parts) or "body"


def messages_of(exc: RequestValidationError | ValidationError, *, prefix: str = "") -> list[str]:
    """One readable message per problem: ``field.path: what is wrong``."""
    messages = []
    for error in exc.errors():
        message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
        location = _location(tuple(error.get("loc", ())))
        if prefix:
            location = prefix if location == "body" else f"{prefix}.{location}"
        messages.append(f"{location}: {message}")
    return messages or ["Invalid request"]


def database_unavailable(exc: BaseException) -> bool:
    """The request failed because the metadata database did not answer: a 503 to retry, not a 500."""
    return isinstance(exc, OperationalError | InterfaceError) or unreachable(exc)


NUL_REFUSED = "The request contains a NUL character, which no field accepts"


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
    elif path.startswith(_ANALYTICS_PREFIX):
        hint = f"Retry in {DATABASE_RETRY_AFTER_SECONDS} seconds"
        body = {"errorCode": "UNAVAILABLE", "errors": [DATABASE_UNAVAILABLE], "hint": hint}
    else:
        body = {"errors": [DATABASE_UNAVAILABLE]}
    return JSONResponse(body, status_code=503, headers=headers)


def storage_unavailable_response(path: str, message: str) -> JSONResponse:
    """503 for a call whose storage failed; ``message`` is StorageUnavailable's, safe to show."""
    headers = {"Retry-After": str(STORAGE_RETRY_AFTER_SECONDS)}
    if not path.startswith(_ANALYTICS_PREFIX):
        return JSONResponse({"errors": [message]}, status_code=503, headers=headers)
    hint = f"Nothing was changed; retry in {STORAGE_RETRY_AFTER_SECONDS} seconds"
    body = {"errorCode": "STORAGE_UNAVAILABLE", "errors": [message], "hint": hint}
    return JSONResponse(body, status_code=503, headers=headers)


class _OutageLog:
    """One line a second at most while the refusals last: an outage under load is thousands a second."""

    def __init__(self, every_seconds: float = 1.0) -> None:
        self._every = every_seconds
        self._lock = threading.Lock()
        self._last = float("-inf")
        self._unlogged = 0

    def refused(self, path: str, exc: BaseException) -> None:
        with self._lock:
            moment = time.monotonic()
            if moment - self._last < self._every:
                self._unlogged += 1
                return
            self._last, also, self._unlogged = moment, self._unlogged, 0
        log.warning(
            "metadata database unavailable; answered 503",
            extra={"path": path, "error": describe(exc), "also_refused": also},
        )


_outage_log = _OutageLog()


def database_outage_response(path: str, exc: BaseException) -> JSONResponse:
    _outage_log.refused(path, exc)
    return unavailable_response(path)


class DatabaseOutage:
    """The 503 for what FastAPI's exception handlers never see: the trigger's fast path
    (``ingress/trigger_fast_path.py``) sits in front of FastAPI."""

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
                await error_response(400, [NUL_REFUSED])(scope, receive, send)
                return
            if started or not database_unavailable(exc):
                raise
            await database_outage_response(scope["path"], exc)(scope, receive, send)


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        if exc.body is not None:
            return JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)
        return error_response(exc.status, exc.errors, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(400, messages_of(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error_response(exc.status_code, [str(exc.detail)], dict(exc.headers or {}))

    async def _database(request: Request, exc: Exception) -> JSONResponse:
        if nul_in_text(exc):  # no stored name or value holds a NUL: the input is bad, not the service
            return error_response(400, [NUL_REFUSED])
        if not database_unavailable(exc):
            raise exc  # a real error: the edge's last-resort 500
        return database_outage_response(request.url.path, exc)

    for kind in (SQLAlchemyError, DatabaseUnreachable, sqlite3.OperationalError):
        app.add_exception_handler(kind, _database)

    @app.exception_handler(StorageUnavailable)
    async def _storage(request: Request, exc: StorageUnavailable) -> JSONResponse:
        return storage_unavailable_response(request.url.path, str(exc))

    @app.exception_handler(BrokerUnavailable)
    async def _broker(_request: Request, exc: BrokerUnavailable) -> JSONResponse:
        log.error("broker unavailable", extra={"error": str(exc)})
        return error_response(503, ["The message queue is unavailable; retry later"], {"Retry-After": "5"})
