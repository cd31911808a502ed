"""DuckDB failing to read a table's files, told apart from DuckDB refusing the query.

DuckDB reports an S3 service that cannot be reached, does not answer or fails the read as an ``IO Error`` (an
``HTTP Error`` for an answer with a failing status), with the full URL in the text: the endpoint, the
bucket and the object key. That is the storage failing, not the query: the job ends ``STORAGE_UNAVAILABLE``
with one of the reasons below, and DuckDB's own text goes to the log only.

Pure: the text of the error in, the caller's reason (or None) out.
"""

from __future__ import annotations

import re

from sinks.objectstore.exceptions import CUT_OFF, DOWN, NO_ANSWER, THROTTLING, UNREACHABLE

REFUSED = "the S3 service refused the service's key"
MISSING = "a file of the table is missing from the storage"
UNREADABLE = "a file of the table could not be read"
# Past the first batch, DuckDB's errors reach Arrow's reader and come out as OSError with DuckDB's text.
_PREFIXES = ("IO Error:", "HTTP Error:")
_STATUS = re.compile(r"\(HTTP (\d{3})\b")
_NO_CONNECTION = (
    "could not connect",
    "could not establish connection",
    "couldn't connect",
    "failed to connect",
    "connection refused",
    "could not resolve",
    "couldn't resolve",
)
_TIMEOUT = ("timeout was reached", "timed out")
_CUT = (
    "connection reset",
    "connection was reset",
    "empty reply",
    "recv failure",
    "send failure",
    "broken pipe",
)


def is_io_error(message: str) -> bool:
    """Whether DuckDB's text (as Arrow's reader passes it on) is one of its IO or HTTP errors."""
    return message.lstrip().startswith(_PREFIXES)


def storage_reason(message: str) -> str:
    """The reason a caller may read for DuckDB's IO/HTTP error ``message``: no endpoint, bucket or key."""
    status = _STATUS.search(message)
    if status is not None:
        return _status_reason(int(status.group(1)))
    lowered = message.lower()
    if any(marker in lowered for marker in _TIMEOUT):
        return NO_ANSWER
    if any(marker in lowered for marker in _NO_CONNECTION):
        return UNREACHABLE
    if any(marker in lowered for marker in _CUT):
        return CUT_OFF
    return UNREADABLE


def _status_reason(status: int) -> str:
    if status in (401, 403):
        return REFUSED
    if status == 404:
        return MISSING
    if status in (429, 503):
        return THROTTLING if status == 429 else DOWN
    if status >= 500:
        return DOWN
    return f"the S3 service answered HTTP {status}"
