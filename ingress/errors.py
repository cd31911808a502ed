"""Errors in the spec's shared format: a JSON body with ``errors`` (array of strings)."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from sinks.exceptions import BrokerUnavailable

log = logging.getLogger(__name__)


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

    @app.exception_handler(BrokerUnavailable)
    async def _broker(_request: Request, exc: BrokerUnavailable) -> JSONResponse:
        log.error("broker unavailable", extra={"error": str(exc)})
        return error_response(503, ["The message queue is unavailable; retry later"], {"Retry-After": "5"})
