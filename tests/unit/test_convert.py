# mypy: disable-error-code="import-untyped"
import json
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

from schemas.column_types import ColumnDef, parse_column_type
from sinks.iceberg.convert import from_ipc, rows_to_arrow, to_ipc
from sinks.iceberg.types import arrow_schema

pytestmark = pytest.mark.unit


def column(type_text: str, nullable: bool = True, name: str = "v") -> ColumnDef:
    return ColumnDef(name, parse_column_type(type_text), nullable)


def convert_values(type_text: str, values: list[Any]) -> tuple[list[Any], dict[int, str]]:
    result = rows_to_arrow([column(type_text)], [{"v": v} for v in values], load_id="l", first_record_id=1)
    converted = dict(zip(result.accepted_indexes, result.table.column("v").to_pylist(), strict=True))
    return [converted.get(i) for i in range(len(values))], {e.index: e.message for e in result.errors}


def utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, us: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, us, tzinfo=UTC)


def wall(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, us: int = 0
) -> datetime:
    """A zone-less TIMESTAMP value."""
    return utc(year, month, day, hour, minute, second, us).replace(tzinfo=None)


VALID: list[tuple[str, Any, Any]] = [
    ("STRING", "", ""),
    ("STRING", "héllo ☃ 𝄞", "héllo ☃ 𝄞"),
    ("STRING", "x" * 100_000, "x" * 100_000),
    ("BOOLEAN", True, True),
    ("BOOLEAN", False, False),
    ("INT", 0, 0),
    ("INT", 2**31 - 1, 2**31 - 1),
    ("INT", -(2**31), -(2**31)),
    ("INT", "-42", -42),
    ("INT", 7.0, 7),
    ("LONG", 2**63 - 1, 2**63 - 1),
    ("LONG", -(2**63), -(2**63)),
    ("LONG", 2**53 + 1, 2**53 + 1),
    ("LONG", "9007199254740993", 9007199254740993),
    ("LONG", "-9223372036854775808", -(2**63)),
    ("DOUBLE", 1.5, 1.5),
    ("DOUBLE", 10, 10.0),
    ("DOUBLE", -1e308, -1e308),
    ("DOUBLE", 5e-324, 5e-324),
    ("DECIMAL(10,2)", "12.5", Decimal("12.50")),
    ("DECIMAL(10,2)", "12.500", Decimal("12.50")),
    ("DECIMAL(10,2)", "-0.01", Decimal("-0.01")),
    ("DECIMAL(10,2)", "99999999.99", Decimal("99999999.99")),
    ("DECIMAL(10,2)", "+.5", Decimal("0.50")),
    ("DECIMAL(10,2)", "1e2", Decimal("100.00")),
    ("DECIMAL(10,2)", 12, Decimal("12.00")),
    ("DECIMAL(10,2)", 0.1, Decimal("0.10")),
    ("DECIMAL(38,0)", "9" * 38, Decimal("9" * 38)),
    ("DECIMAL(38,38)", "0." + "1" * 38, Decimal("0." + "1" * 38)),
    ("DATE", "2024-02-29", date(2024, 2, 29)),
    ("DATE", "0001-01-01", date(1, 1, 1)),
    ("DATE", "9999-12-31", date(9999, 12, 31)),
    ("TIMESTAMP", "2026-11-22T10:00:00", wall(2026, 11, 22, 10)),
    ("TIMESTAMP", "2026-11-22 10:00:00.123456", wall(2026, 11, 22, 10, 0, 0, 123456)),
    ("TIMESTAMP", "2026-11-22T10:00", wall(2026, 11, 22, 10)),
    ("TIMESTAMP", "2026-11-22T10:00:00+02:00", wall(2026, 11, 22, 8)),
    ("TIMESTAMP", "2026-11-22T10:00:00.5Z", wall(2026, 11, 22, 10, 0, 0, 500000)),
    ("TIMESTAMPTZ", "2026-11-22T10:00:00Z", utc(2026, 11, 22, 10)),
    ("TIMESTAMPTZ", "2026-11-22T10:00:00z", utc(2026, 11, 22, 10)),
    ("TIMESTAMPTZ", "2026-11-22T10:00:00.5+05:30", utc(2026, 11, 22, 4, 30, 0, 500000)),
    ("TIMESTAMPTZ", "2026-11-22T10:00:00+0530", utc(2026, 11, 22, 4, 30)),
    ("TIMESTAMPTZ", "2026-11-22T10:00:00-03", utc(2026, 11, 22, 13)),
    ("TIMESTAMPTZ", "2024-02-29T23:59:59.999999-01:00", utc(2024, 3, 1, 0, 59, 59, 999999)),
    ("TIMESTAMPTZ", "1970-01-01T00:00:00Z", utc(1970, 1, 1)),
    ("STRING_LIST", [], []),
    ("STRING_LIST", ["a", "ü", ""], ["a", "ü", ""]),
    ("JSON", {"b": 1, "a": [1, 2.5, None]}, '{"a":[1,2.5,null],"b":1}'),
    ("JSON", "text ü", '"text ü"'),
    ("JSON", 0, "0"),
    ("JSON", False, "false"),
    ("JSON", [], "[]"),
]

# One value each type refuses, to push a column off the fast path onto the cell-by-cell path.
SPOILER = {"JSON": float("nan")}


@pytest.mark.parametrize(("type_text", "value", "expected"), VALID)
def test_valid_values(type_text: str, value: Any, expected: Any) -> None:
    fast, fast_errors = convert_values(type_text, [value])
    slow, slow_errors = convert_values(type_text, [value, SPOILER.get(type_text, {"not": "valid"})])
    assert fast_errors == {}
    assert fast == [expected]
    assert slow[0] == expected
    assert list(slow_errors) == [1]


INVALID: list[tuple[str, Any, str]] = [
    ("STRING", 12, "expected a string, got number 12"),
    ("STRING", True, "expected a string, got boolean true"),
    ("STRING", ["a"], "expected a string, got array"),
    ("STRING", "\ud800", "unpaired surrogate"),
    ("BOOLEAN", 1, "expected true or false, got number 1"),
    ("BOOLEAN", "true", 'expected true or false, got string "true"'),
    ("INT", 2**31, "2147483648 is out of range for INT (-2147483648 to 2147483647)"),
    ("INT", -(2**31) - 1, "out of range for INT"),
    ("INT", "2147483648", "out of range for INT"),
    ("INT", 1.5, "expected an integer, got number 1.5"),
    ("INT", True, "expected an integer, got boolean true"),
    ("INT", "12a", 'expected an integer, got string "12a"'),
    ("INT", "", "expected an integer"),
    ("LONG", 2**63, "out of range for LONG"),
    ("LONG", "99999999999999999999", "out of range for LONG"),
    ("LONG", 2.0**60, "expected an integer"),
    ("LONG", {"n": 1}, "expected an integer, got object"),
    ("DOUBLE", "1.5", 'expected a number, got string "1.5"'),
    ("DOUBLE", True, "expected a number, got boolean true"),
    ("DOUBLE", float("nan"), "is not a finite number"),
    ("DOUBLE", float("inf"), "is not a finite number"),
    ("DOUBLE", 10**400, "too large for DOUBLE"),
    ("DECIMAL(10,2)", "12.345", '"12.345" has more than 2 decimal places for DECIMAL(10,2)'),
    ("DECIMAL(10,2)", "1e-5", "more than 2 decimal places"),
    ("DECIMAL(10,2)", 0.125, "0.125 has more than 2 decimal places"),
    ("DECIMAL(10,2)", "123456789.00", "more than 8 digits before the decimal point for DECIMAL(10,2)"),
    ("DECIMAL(38,0)", "1" + "0" * 38, "more than 38 digits before the decimal point"),
    ("DECIMAL(10,2)", "abc", 'expected a decimal number (preferably as a string), got string "abc"'),
    ("DECIMAL(10,2)", "NaN", "expected a decimal number"),
    ("DECIMAL(10,2)", " 1", "expected a decimal number"),
    ("DECIMAL(10,2)", True, "expected a decimal number"),
    ("DECIMAL(10,2)", "1e999999999", "has more digits than DECIMAL(10,2) holds"),
    ("DATE", "2023-02-29", '"2023-02-29" is not a valid date'),
    ("DATE", "2024-13-01", "is not a valid date"),
    ("DATE", "0000-01-01", "is not a valid date"),
    ("TIMESTAMPTZ", "0000-01-01T00:00:00Z", "is not a valid timestamp"),
    ("TIMESTAMPTZ", "9999-12-31T23:00:00-02:00", "is not a valid timestamp"),
    ("DATE", "2024-2-1", "expected a date as a YYYY-MM-DD string"),
    ("DATE", "2024-02-29T00:00:00", "expected a date as a YYYY-MM-DD string"),
    ("DATE", 20240229, "expected a date as a YYYY-MM-DD string, got number 20240229"),
    ("TIMESTAMP", "2026-11-22", "expected an ISO-8601 timestamp string"),
    ("TIMESTAMP", "2026-11-22T25:00:00", "is not a valid timestamp"),
    ("TIMESTAMP", "2026-11-22T23:59:60", "is not a valid timestamp"),
    ("TIMESTAMP", "2023-02-29T10:00:00", "is not a valid timestamp"),
    ("TIMESTAMP", "2026-11-22T10:00:00.1234567", "more than 6 fractional digits"),
    ("TIMESTAMP", 1_700_000_000, "expected an ISO-8601 timestamp string"),
    ("TIMESTAMP", "0001-01-01T00:00:00+01:00", "is not a valid timestamp"),
    ("TIMESTAMPTZ", "2026-11-22T10:00:00", "has no zone offset; TIMESTAMPTZ needs Z or ±HH:MM"),
    ("TIMESTAMPTZ", "2026-11-22T10:00:00+24:00", "invalid zone offset"),
    ("TIMESTAMPTZ", "2026-11-22T10:00:00.1234567Z", "more than 6 fractional digits"),
    ("TIMESTAMPTZ", "22/11/2026 10:00", "expected an ISO-8601 timestamp string"),
    ("STRING_LIST", "a", 'expected an array of strings, got string "a"'),
    ("STRING_LIST", ["a", 1], "element 1 is number 1, expected a string"),
    ("STRING_LIST", ["a", None], "element 1 is null, expected a string"),
    ("STRING_LIST", ["\ud800"], "unpaired surrogate"),
    ("JSON", float("nan"), "not a JSON value"),
    ("JSON", {"a": "\ud800"}, "unpaired surrogate"),
]


@pytest.mark.parametrize(("type_text", "value", "message"), INVALID)
def test_invalid_values(type_text: str, value: Any, message: str) -> None:
    values, errors = convert_values(type_text, [value])
    assert values == [None]
    assert errors[0].startswith('column "v": ')
    assert message in errors[0]


def test_the_interface_example_message() -> None:
    result = rows_to_arrow(
        [column("DECIMAL(10,2)", name="amount")], [{"amount": "12.345"}], load_id="l", first_record_id=1
    )
    assert [(e.index, e.message) for e in result.errors] == [
        (0, 'column "amount": "12.345" has more than 2 decimal places for DECIMAL(10,2)')
    ]


COLUMNS = [column("STRING", nullable=False, name="name"), column("INT", name="n"), column("JSON", name="doc")]


def test_null_and_missing_are_null_but_required_columns_refuse_them() -> None:
    rows: list[Any] = [
        {"name": "a"},
        {"name": "b", "n": None, "doc": None},
        {"n": 1},
        {"name": None, "n": 2},
    ]
    result = rows_to_arrow(COLUMNS, rows, load_id="l", first_record_id=1)
    assert result.table.to_pylist() == [
        {"name": "a", "n": None, "doc": None, "_load_id": "l", "_record_id": 1},
        {"name": "b", "n": None, "doc": None, "_load_id": "l", "_record_id": 2},
    ]
    assert [(e.index, e.message) for e in result.errors] == [
        (2, 'column "name": is required and missing or null'),
        (3, 'column "name": is required and missing or null'),
    ]


def test_row_shape_errors() -> None:
    rows: list[Any] = [
        [1, 2],
        "row",
        None,
        {"name": "a", "extra": 1},
        {"name": "a", "x": 1, "y": 2},
        {"name": "a", "_load_id": "mine"},
        {"name": "a", "_record_id": 5},
        {"name": "ok"},
    ]
    result = rows_to_arrow(COLUMNS, rows, load_id="l", first_record_id=10)
    assert {e.index: e.message for e in result.errors} == {
        0: "row must be a JSON object, got array",
        1: 'row must be a JSON object, got string "row"',
        2: "row must be a JSON object, got null",
        3: 'unknown column "extra"',
        4: 'unknown columns "x", "y"',
        5: 'column "_load_id" is a system column and is set by the service',
        6: 'column "_record_id" is a system column and is set by the service',
    }
    assert result.accepted_indexes == [7]
    assert result.table.column("_record_id").to_pylist() == [10]


def test_every_problem_of_a_row_is_reported_and_good_rows_kept() -> None:
    rows = [{"name": 1, "n": "x", "doc": {}}, {"name": "ok", "n": 5}, {"name": "z", "n": 2**40}]
    result = rows_to_arrow(COLUMNS, rows, load_id="L", first_record_id=100)
    assert [(e.index, e.message) for e in result.errors] == [
        (
            0,
            'column "name": expected a string, got number 1; column "n": expected an integer, got string "x"',
        ),
        (2, 'column "n": 1099511627776 is out of range for INT (-2147483648 to 2147483647)'),
    ]
    assert result.accepted_indexes == [1]
    assert result.table.to_pylist() == [
        {"name": "ok", "n": 5, "doc": None, "_load_id": "L", "_record_id": 100}
    ]


def test_record_ids_are_sequential_over_accepted_rows() -> None:
    rows = [{"name": str(i)} if i % 3 else {"name": None} for i in range(10)]
    result = rows_to_arrow(COLUMNS, rows, load_id="L", first_record_id=5)
    assert result.accepted_indexes == [1, 2, 4, 5, 7, 8]
    assert result.table.column("_record_id").to_pylist() == list(range(5, 11))
    assert set(result.table.column("_load_id").to_pylist()) == {"L"}


def test_schema_and_nullability_match_the_table() -> None:
    result = rows_to_arrow(COLUMNS, [{"name": "a"}], load_id="l", first_record_id=1)
    assert result.table.schema == arrow_schema(COLUMNS)
    assert not result.table.schema.field("name").nullable
    assert not result.table.schema.field("_record_id").nullable


def test_no_rows() -> None:
    result = rows_to_arrow(COLUMNS, [], load_id="l", first_record_id=1)
    assert (result.table.num_rows, result.accepted_indexes, result.errors) == (0, [], [])


def test_masked_columns_are_encrypted_after_validation() -> None:
    columns = [ColumnDef("email", parse_column_type("STRING"), masked=True), column("INT", name="n")]
    rows: list[Any] = [{"email": "a@x"}, {"email": 5}, {"email": None, "n": 1}]
    result = rows_to_arrow(columns, rows, load_id="l", first_record_id=1, encrypt=lambda s: f"enc({s})")
    assert result.table.column("email").to_pylist() == ["enc(a@x)", None]
    assert result.table.schema.field("email").type == pa.string()
    assert [e.index for e in result.errors] == [1]
    with pytest.raises(ValueError, match="encrypt function is required"):
        rows_to_arrow(columns, rows, load_id="l", first_record_id=1)


def test_json_is_canonical_text() -> None:
    values, _ = convert_values("JSON", [{"z": {"b": 2, "a": 1}, "a": "é"}])
    assert values == ['{"a":"é","z":{"a":1,"b":2}}']
    assert json.loads(values[0]) == {"z": {"b": 2, "a": 1}, "a": "é"}


def test_parsed_json_input_converts_like_python_values() -> None:
    body = json.loads('[{"name": "a", "n": 1, "doc": {"k": [true, null]}}]')
    result = rows_to_arrow(COLUMNS, body, load_id="l", first_record_id=1)
    assert result.table.column("doc").to_pylist() == ['{"k":[true,null]}']


def test_ipc_round_trip_keeps_the_user_columns_and_their_types() -> None:
    columns = [
        column("LONG", nullable=False, name="n"),
        column("DECIMAL(12,2)", name="amount"),
        column("TIMESTAMPTZ", name="at"),
        column("STRING_LIST", name="tags"),
        column("DATE", name="day"),
    ]
    rows: list[Any] = [
        {"n": 1, "amount": "12.5", "at": "2026-11-22T10:00:00+02:00", "tags": ["a", ""], "day": "2024-02-29"},
        {"n": "9007199254740993", "amount": None, "tags": None},
    ]
    table = rows_to_arrow(columns, rows, load_id="l", first_record_id=7).table
    stored = from_ipc(to_ipc(table))
    # The writer sets the load and record ids when it commits; stored rows carry only the user columns.
    assert stored.column_names == ["n", "amount", "at", "tags", "day"]
    assert stored.schema == pa.schema([table.schema.field(name) for name in stored.column_names])
    assert stored.to_pylist() == table.drop_columns(["_load_id", "_record_id"]).to_pylist()


def test_ipc_of_no_rows() -> None:
    table = rows_to_arrow(COLUMNS, [], load_id="l", first_record_id=1).table
    assert from_ipc(to_ipc(table)).num_rows == 0
