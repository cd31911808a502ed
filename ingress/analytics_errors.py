"""Errors of the analytics calls: ``{"errorCode", "errors", "hint"}`` with the spec's status per code."""

from __future__ import annotations

from ingress.errors import ApiError

STATUS = {
    "PARSE_ERROR": 400,
    "FORBIDDEN_CONSTRUCT": 400,
    "UNKNOWN_TABLE": 400,
    "UNKNOWN_COLUMN": 400,
    "INVALID_SCHEMA": 400,
    "SCAN_LIMIT": 413,
    "ROW_LIMIT": 413,
    "QUOTA": 429,
    "VERSION_CONFLICT": 409,
    "FORBIDDEN": 403,
    "NOT_FOUND": 404,
}


def analytics_error(code: str, message: str, hint: str | None = None) -> ApiError:
    return ApiError(STATUS[code], message, body={"errorCode": code, "errors": [message], "hint": hint})
