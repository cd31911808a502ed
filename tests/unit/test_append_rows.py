# mypy: disable-error-code="import-untyped"
import json
import math
from typing import Any

import pytest

from ingress.analytics.append_rows import (
    MAX_BYTES,
    MAX_ROWS,
    check_count,
    check_size,
    column_definitions,
    convert,
    parse_body,
)
from ingress.errors import ApiError
from schemas.column_types import ColumnDef, parse_column_type
from schemas.tables import AppendRowsRequest
from sinks.iceberg.convert import from_ipc

pytestmark = pytest.mark.unit

COLUMNS = [
    ColumnDef("n", parse_column_type("LONG"), nullable=False),
    ColumnDef("amount", parse_column_type("DECIMAL(38,0)")),
    ColumnDef("email", parse_column_type("STRING"), masked=True),
]


def body(rows_text: str) -> bytes:
    return ('{"tableId":"t","rows":' + rows_text + "}").encode()


@pytest.mark.parametrize(
    "rows_text",
    [
        '[{"n":1,"amount":"12"}]',
        '[{"amount":123456789012345678901234567890}]',  # beyond 64 bits: stays an exact integer
        '[{"n":18446744073709551615},{"n":-9223372036854775808}]',
        '[{"n":NaN},{"n":Infinity},{"n":-Infinity},{"n":1e400}]',
        '[{"n":1,"n":2}]',
        '[{"s":"\\ud83d\\ude00 \\u00e9 \\u0000"},-0.0,1.5e-400,0.1,123456789.123456789]',
        '[[[[]]],"x",null,true]',
        "[]",
    ],
)
def test_parsed_values_are_the_ones_pydantic_reads(rows_text: str) -> None:
    parsed = parse_body(body(rows_text))
    expected = AppendRowsRequest.model_validate_json(body(rows_text))
    assert parsed.table_id == expected.table_id == "t"
    # repr: NaN equals itself as text, and an int never equals a float that looks the same.
    assert repr(parsed.rows) == repr(expected.rows)


def test_big_integers_and_non_finite_numbers_keep_their_type() -> None:
    rows = parse_body(body('[{"amount":123456789012345678901234567890,"n":NaN}]')).rows
    assert rows[0]["amount"] == 123456789012345678901234567890
    assert math.isnan(rows[0]["n"])


@pytest.mark.parametrize(
    ("raw", "messages"),
    [
        (b"[]", ["body: Input should be an object"]),
        (b'{"tableId":"t","rows":{}}', ["rows: Input should be a valid array"]),
        (b'{"rows":[]}', ["tableId: Field required"]),
        (b'{"tableId":"t","rows":[],"x":1}', ["x: Extra inputs are not permitted"]),
        (b'{"tableId":"t","rows":[]} x', None),
        (b'{"tableId":"t","rows":["\\ud800"]}', None),
    ],
)
def test_a_bad_body_answers_400_with_the_json_messages(raw: bytes, messages: list[str] | None) -> None:
    with pytest.raises(ApiError) as raised:
        parse_body(raw)
    assert raised.value.status == 400
    errors = raised.value.errors
    if messages is not None:
        assert errors == messages
    else:
        assert len(errors) == 1 and "Invalid JSON" in errors[0]


def test_row_limits() -> None:
    check_size(b"x" * MAX_BYTES)
    with pytest.raises(ApiError) as too_big:
        check_size(b"x" * (MAX_BYTES + 1))
    assert too_big.value.status == 413
    # Bytes are not rows: the same code as any body over the request limit.
    assert too_big.value.body is not None and too_big.value.body["errorCode"] == "REQUEST_TOO_LARGE"
    check_count(AppendRowsRequest(table_id="t", rows=[{}] * MAX_ROWS))
    with pytest.raises(ApiError) as too_many:
        check_count(AppendRowsRequest(table_id="t", rows=[{}] * (MAX_ROWS + 1)))
    assert too_many.value.status == 413
    assert too_many.value.body is not None and too_many.value.body["errorCode"] == "ROW_LIMIT"


def test_column_definitions_follow_the_registry_text() -> None:
    stored: list[dict[str, Any]] = [{"name": "n", "type": "INT", "nullable": True, "masked": False}]
    first = column_definitions(json.dumps(stored))
    assert first == (ColumnDef("n", parse_column_type("INT"), nullable=True),)
    assert column_definitions(json.dumps(stored)) is first
    stored[0]["type"] = "LONG"  # a widened column is a new text, so never the cached definitions
    assert column_definitions(json.dumps(stored))[0].type == parse_column_type("LONG")


def test_accepted_rows_are_stored_converted_and_encrypted() -> None:
    rows: list[Any] = [{"n": 1, "email": "a@x"}, {"n": "x"}, {"n": 3, "amount": 12, "email": None}]
    converted = convert(COLUMNS, rows, "load", lambda text: f"enc({text})")
    assert converted.accepted == 2
    assert [(e.index, e.message) for e in converted.errors] == [
        (1, 'column "n": expected an integer, got string "x"')
    ]
    assert from_ipc(converted.rows).to_pylist() == [
        {"n": 1, "amount": None, "email": "enc(a@x)"},
        {"n": 3, "amount": 12, "email": None},
    ]


def test_nothing_accepted_stores_nothing() -> None:
    converted = convert(COLUMNS, [5, {"n": None}], "load", lambda text: text)
    assert (converted.accepted, converted.rows) == (0, b"")
    assert [e.index for e in converted.errors] == [0, 1]
