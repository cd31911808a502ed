"""The analytics error shape of the refusals every area shares, the row-count rule and the reveal checks."""

from __future__ import annotations

import pytest

from ingress.analytics.coded_errors import STATUS, check_row_count
from ingress.analytics.job_results_view import check_reveal_pair, row_out_of_range
from ingress.errors import ANALYTICS_PREFIX, SHARED_ANALYTICS_CODES, ApiError, failure_body

QUERY = f"{ANALYTICS_PREFIX}query"


def test_every_shared_code_has_its_status_in_the_analytics_table() -> None:
    for status, code in SHARED_ANALYTICS_CODES.items():
        assert STATUS[code] == status, code


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, "INVALID_REQUEST"),
        (401, "UNAUTHORIZED"),
        (405, "METHOD_NOT_ALLOWED"),
        (413, "REQUEST_TOO_LARGE"),
        (429, "RATE_LIMITED"),
        (500, "INTERNAL"),
    ],
)
def test_an_analytics_refusal_carries_its_code_and_a_hint(status: int, code: str) -> None:
    body = failure_body(QUERY, status, ["why"], {"Retry-After": "7"})
    assert body["errorCode"] == code and body["errors"] == ["why"] and body["hint"]


def test_a_rate_limit_hint_names_the_wait() -> None:
    assert "7 seconds" in failure_body(QUERY, 429, ["slow down"], {"Retry-After": "7"})["hint"]


def test_a_given_hint_wins() -> None:
    assert failure_body(QUERY, 400, ["bad"], hint="do this")["hint"] == "do this"


def test_other_paths_keep_the_shared_body() -> None:
    for path in ("/clients/whoami", "/svc_poweruser/whoami", "/clients/svcdb/analyticsx"):
        assert failure_body(path, 401, ["Invalid API key"]) == {"errors": ["Invalid API key"]}


def test_a_status_without_a_code_keeps_the_shared_body() -> None:
    assert failure_body(QUERY, 418, ["I'm a teapot"]) == {"errors": ["I'm a teapot"]}


def test_an_empty_message_list_gets_the_status_phrase() -> None:
    assert failure_body(QUERY, 401, [])["errors"] == ["Unauthorized"]


@pytest.mark.parametrize(("field", "cap"), [("maxRows", 1_000_000), ("pageSize", 1000), ("limit", 100)])
def test_a_row_count_over_its_cap_is_row_limit_naming_field_and_cap(field: str, cap: int) -> None:
    check_row_count(field, cap, cap)
    with pytest.raises(ApiError) as refused:
        check_row_count(field, cap + 1, cap)
    assert refused.value.status == 413 and refused.value.body is not None
    body = refused.value.body
    assert body["errorCode"] == "ROW_LIMIT"
    assert field in body["hint"] and str(cap) in body["hint"]
    assert field in body["errors"][0] and str(cap) in body["errors"][0]


@pytest.mark.parametrize(("row", "column"), [(0, None), (None, "email")])
def test_half_a_cell_reveal_is_invalid_request(row: int | None, column: str | None) -> None:
    with pytest.raises(ApiError) as refused:
        check_reveal_pair(row, column)
    assert refused.value.status == 400 and refused.value.body is not None
    assert refused.value.body["errorCode"] == "INVALID_REQUEST" and refused.value.body["hint"]


def test_a_whole_cell_or_none_passes() -> None:
    check_reveal_pair(0, "email")
    check_reveal_pair(None, None)


def test_a_row_past_the_result_names_the_range() -> None:
    refused = row_out_of_range(4, 4)
    assert isinstance(refused, ApiError) and refused.status == 400 and refused.body is not None
    assert (
        refused.body["errorCode"] == "INVALID_REQUEST"
        and refused.body["hint"] == "revealRow is 0-based: 0 to 3"
    )
    empty = row_out_of_range(0, 0)
    assert isinstance(empty, ApiError) and empty.body is not None and "no rows" in empty.body["hint"]
