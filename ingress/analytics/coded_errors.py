"""Errors of the analytics calls: ``{"errorCode", "errors", "hint"}`` with the spec's status per code.

Errors raised by what every area shares (request validation, keys, rate limits, the body-size limit) get
their code in ``ingress/errors.py`` (``failure_body``), from the same statuses as here.
"""

from __future__ import annotations

import math

from ingress.errors import ApiError

STATUS = {
    "PARSE_ERROR": 400,
    "FORBIDDEN_CONSTRUCT": 400,
    "UNKNOWN_TABLE": 400,
    "UNKNOWN_COLUMN": 400,
    "INVALID_SCHEMA": 400,
    "INVALID_REQUEST": 400,
    "UNAUTHORIZED": 401,
    "SCAN_LIMIT": 413,
    "ROW_LIMIT": 413,
    "REQUEST_TOO_LARGE": 413,
    "QUOTA": 429,
    "RATE_LIMITED": 429,
    "VERSION_CONFLICT": 409,
    "FORBIDDEN": 403,
    "NOT_FOUND": 404,
    "METHOD_NOT_ALLOWED": 405,
    "INTERNAL": 500,
    "UNAVAILABLE": 503,
    "STORAGE_UNAVAILABLE": 503,
}


def analytics_error(
    code: str, message: str, hint: str | None = None, *, retry_after: float | None = None
) -> ApiError:
    """``retry_after``: seconds until the refused call can succeed, sent as ``Retry-After`` (whole seconds,
    at least 1)."""
    headers = None if retry_after is None else {"Retry-After": str(max(1, math.ceil(retry_after)))}
    body = {"errorCode": code, "errors": [message], "hint": hint}
    return ApiError(STATUS[code], message, body=body, headers=headers)


def check_row_count(field: str, value: int, cap: int, *, cap_is: str = "its limit") -> None:
    """413 ROW_LIMIT for a row-count field above its cap, with a hint naming the field and the cap.

    The one rule for every row count a caller sends (maxRows, pageSize, the preview's limit): checked
    before anything is read, so the refusal does not depend on the table or the job. A count below 1 never
    gets here: the request model refuses it (400 INVALID_REQUEST)."""
    if value > cap:
        raise analytics_error(
            "ROW_LIMIT", f"{field} {value} is over {cap_is} of {cap} rows", f"Lower {field} to {cap} or less"
        )
