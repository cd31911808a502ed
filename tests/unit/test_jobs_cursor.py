"""The /jobs cursor: what it issues reads back, and anything else is 400 INVALID_REQUEST (not 404)."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest

from ingress.analytics.jobs import _cursor, _next_cursor
from ingress.errors import ApiError


def encoded(text: str | bytes) -> str:
    raw = text.encode() if isinstance(text, str) else text
    return base64.urlsafe_b64encode(raw).decode()


def test_an_issued_cursor_reads_back() -> None:
    moment = datetime(2026, 3, 1, 12, 30, 5, 123000, tzinfo=UTC)
    assert _cursor(_next_cursor(moment, "a" * 32)) == (moment, "a" * 32)


@pytest.mark.parametrize("text", [None, ""])
def test_no_cursor_is_the_first_page(text: str | None) -> None:
    assert _cursor(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "not base64 at all!",
        "abc",  # bad padding
        encoded("no separator"),
        encoded("yesterday|" + "a" * 32),
        encoded("2026-03-01T12:30:05|" + "a" * 32),  # no zone: not one this service issues
        encoded("2026-03-01T12:30:05+00:00|"),  # no job id
        encoded("0001-01-01T00:00:00+05:00|" + "a" * 32),  # before any time in UTC
        encoded(b"\xff\xfe|x"),  # not UTF-8
    ],
)
def test_a_malformed_cursor_is_invalid_request(text: str) -> None:
    with pytest.raises(ApiError) as raised:
        _cursor(text)
    assert raised.value.status == 400
    body = raised.value.body
    assert body is not None and body["errorCode"] == "INVALID_REQUEST"
    assert body["errors"] == ["cursor: not a cursor this service issued"] and body["hint"]
