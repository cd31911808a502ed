"""requestId: the digest tells a retry (same job-shaping fields) from a reused id, and the model's rules."""

import pytest
from pydantic import ValidationError

from core.request_ids import request_digest
from schemas.jobs import QueryRequest

pytestmark = pytest.mark.unit

SQL = "SELECT region, count(*) AS n FROM orders GROUP BY 1"


def test_the_same_fields_give_the_same_digest() -> None:
    assert request_digest("t1", SQL, 10, None) == request_digest("t1", SQL, 10, None)


@pytest.mark.parametrize(
    "other",
    [
        ("t2", SQL, 10, None),
        ("t1", SQL + " ", 10, None),
        ("t1", SQL, 11, None),
        ("t1", SQL, None, None),
        ("t1", SQL, 10, 0),
    ],
)
def test_any_job_shaping_field_changes_the_digest(other: tuple[str, str, int | None, int | None]) -> None:
    assert request_digest(*other) != request_digest("t1", SQL, 10, None)


def test_fields_cannot_run_into_each_other() -> None:
    assert request_digest("t1", "a", None, None) != request_digest("t1a", "", None, None)


@pytest.mark.parametrize("value", ["r", "A-z_0.9:x", "x" * 128])
def test_request_ids_the_model_takes(value: str) -> None:
    assert QueryRequest.model_validate({"tableId": "t", "sql": SQL, "requestId": value}).request_id == value


@pytest.mark.parametrize("value", ["", "x" * 129, "has space", "slash/", "ü", "new\nline"])
def test_request_ids_the_model_refuses(value: str) -> None:
    with pytest.raises(ValidationError):
        QueryRequest.model_validate({"tableId": "t", "sql": SQL, "requestId": value})
