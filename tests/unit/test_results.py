# mypy: disable-error-code="import-untyped"
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

from schemas.column_types import ColumnDef, MaskStrategy, parse_column_type
from sinks.iceberg.convert import rows_to_arrow
from sinks.iceberg.results import (
    MASK_TEXT,
    ResultColumn,
    column_type_of_arrow,
    mask_value,
    result_columns,
    to_json_rows,
)

pytestmark = pytest.mark.unit


def wall(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, us: int = 0
) -> datetime:
    """A zone-less TIMESTAMP value."""
    return datetime(year, month, day, hour, minute, second, us, tzinfo=UTC).replace(tzinfo=None)


def render(type_text: str, values: list[Any], arrow_type: pa.DataType) -> list[Any]:
    table = pa.table({"v": pa.array(values, arrow_type)})
    rows = to_json_rows(table, [ResultColumn("v", parse_column_type(type_text))])
    return [row["v"] for row in rows]


@pytest.mark.parametrize(
    ("type_text", "arrow_type", "values", "expected"),
    [
        ("STRING", pa.string(), ["a", "ü ☃", "", None], ["a", "ü ☃", "", None]),
        ("STRING", pa.large_string(), ["x"], ["x"]),
        ("BOOLEAN", pa.bool_(), [True, False, None], [True, False, None]),
        ("INT", pa.int32(), [-(2**31), 0, 2**31 - 1], [-(2**31), 0, 2**31 - 1]),
        (
            "LONG",
            pa.int64(),
            [2**53 - 1, -(2**53 - 1), 2**53, -(2**53), 2**63 - 1, None],
            [2**53 - 1, -(2**53 - 1), "9007199254740992", "-9007199254740992", "9223372036854775807", None],
        ),
        ("DOUBLE", pa.float64(), [1.5, 0.0, None], [1.5, 0.0, None]),
        (
            "DOUBLE",
            pa.float64(),
            [float("nan"), float("inf"), float("-inf")],
            ["NaN", "Infinity", "-Infinity"],
        ),
        (
            "DECIMAL(10,2)",
            pa.decimal128(10, 2),
            [Decimal("12.5"), Decimal("0"), Decimal("-0.05"), None],
            ["12.50", "0.00", "-0.05", None],
        ),
        ("DECIMAL(38,0)", pa.decimal128(38, 0), [Decimal("9" * 38)], ["9" * 38]),
        ("DECIMAL(38,38)", pa.decimal128(38, 38), [Decimal("0." + "1" * 38)], ["0." + "1" * 38]),
        (
            "DATE",
            pa.date32(),
            [date(2024, 2, 29), date(1, 1, 1), date(9999, 12, 31), None],
            ["2024-02-29", "0001-01-01", "9999-12-31", None],
        ),
        (
            "TIMESTAMP",
            pa.timestamp("us"),
            [wall(2026, 11, 22, 10), wall(1, 1, 1, 0, 0, 0, 5), None],
            ["2026-11-22T10:00:00.000000Z", "0001-01-01T00:00:00.000005Z", None],
        ),
        (
            "TIMESTAMPTZ",
            pa.timestamp("us", tz="UTC"),
            [datetime(2026, 11, 22, 10, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)],
            ["2026-11-22T10:00:00.000000Z", "9999-12-31T23:59:59.999999Z"],
        ),
        (
            "TIMESTAMPTZ",
            pa.timestamp("ns", tz="Europe/Paris"),
            [datetime(2026, 7, 1, 12, tzinfo=UTC)],
            ["2026-07-01T12:00:00.000000Z"],
        ),
        (
            "TIMESTAMP",
            pa.timestamp("ms"),
            [wall(2026, 1, 1, 0, 0, 0, 123000)],
            ["2026-01-01T00:00:00.123000Z"],
        ),
        ("STRING_LIST", pa.list_(pa.string()), [["a", "b"], [], None], [["a", "b"], [], None]),
        ("STRING_LIST", pa.large_list(pa.large_string()), [["x"]], [["x"]]),
        (
            "JSON",
            pa.string(),
            ['{"a":[1,2.5,null],"b":"ü"}', '"text"', "0", "false", "null", None],
            [{"a": [1, 2.5, None], "b": "ü"}, "text", 0, False, None, None],
        ),
    ],
)
def test_values_in_results(
    type_text: str, arrow_type: pa.DataType, values: list[Any], expected: list[Any]
) -> None:
    assert render(type_text, values, arrow_type) == expected


def test_masked_values() -> None:
    table = pa.table({"email": ["t:ada@example.com", None, "t:ab"]})
    decrypt = lambda token: token.removeprefix("t:")  # noqa: E731
    hidden = ResultColumn("email", parse_column_type("STRING"), masked=True)
    last4 = ResultColumn("email", parse_column_type("STRING"), masked=True, mask_strategy=MaskStrategy.LAST4)
    assert [r["email"] for r in to_json_rows(table, [hidden])] == [MASK_TEXT, None, MASK_TEXT]
    assert [r["email"] for r in to_json_rows(table, [hidden], reveal=True, decrypt=decrypt)] == [
        "ada@example.com",
        None,
        "ab",
    ]
    assert [r["email"] for r in to_json_rows(table, [last4], decrypt=decrypt)] == [
        "••••.com",
        None,
        MASK_TEXT,
    ]
    with pytest.raises(ValueError, match="decrypt function is required"):
        to_json_rows(table, [hidden], reveal=True)


def test_mask_value_never_shows_short_values() -> None:
    assert mask_value("1234", MaskStrategy.LAST4) == MASK_TEXT
    assert mask_value("12345", MaskStrategy.LAST4) == "••••2345"
    assert mask_value("anything", MaskStrategy.FULL) == MASK_TEXT


@pytest.mark.parametrize(
    ("arrow_type", "expected"),
    [
        (pa.bool_(), "BOOLEAN"),
        (pa.int8(), "INT"),
        (pa.int32(), "INT"),
        (pa.uint32(), "LONG"),
        (pa.int64(), "LONG"),
        (pa.float32(), "DOUBLE"),
        (pa.float64(), "DOUBLE"),
        (pa.decimal128(12, 2), "DECIMAL(12,2)"),
        (pa.date32(), "DATE"),
        (pa.timestamp("us"), "TIMESTAMP"),
        (pa.timestamp("ns", tz="UTC"), "TIMESTAMPTZ"),
        (pa.list_(pa.string()), "STRING_LIST"),
        (pa.large_string(), "STRING"),
    ],
)
def test_column_type_of_arrow(arrow_type: pa.DataType, expected: str) -> None:
    assert str(column_type_of_arrow(arrow_type)) == expected


def test_result_columns_take_json_and_masking_from_the_definition() -> None:
    schema = pa.schema(
        [("doc", pa.string()), ("email", pa.string()), ("_record_id", pa.int64()), ("x", pa.int32())]
    )
    defined = {
        "doc": ColumnDef("doc", parse_column_type("JSON")),
        "email": ColumnDef("email", parse_column_type("STRING"), masked=True),
    }
    assert [(c.name, str(c.type), c.masked) for c in result_columns(schema, defined)] == [
        ("doc", "JSON", False),
        ("email", "STRING", True),
        ("_record_id", "LONG", False),
        ("x", "INT", False),
    ]


def test_rows_keep_column_order_and_count() -> None:
    table = pa.table({"b": [1, 2], "a": ["x", "y"]})
    rows = to_json_rows(table)
    assert rows == [{"b": 1, "a": "x"}, {"b": 2, "a": "y"}]
    assert list(rows[0]) == ["b", "a"]
    assert to_json_rows(table.slice(0, 0)) == []
    with pytest.raises(ValueError, match="1 result columns given for a table of 2"):
        to_json_rows(table, [ResultColumn("b", parse_column_type("LONG"))])


def test_converted_rows_render_back_to_their_input() -> None:
    columns = [
        ColumnDef("amount", parse_column_type("DECIMAL(10,2)")),
        ColumnDef("big", parse_column_type("LONG")),
        ColumnDef("at", parse_column_type("TIMESTAMPTZ")),
        ColumnDef("day", parse_column_type("DATE")),
        ColumnDef("doc", parse_column_type("JSON")),
        ColumnDef("tags", parse_column_type("STRING_LIST")),
    ]
    row = {
        "amount": "12.50",
        "big": str(2**60),
        "at": "2024-02-29T23:59:59.999999Z",
        "day": "2024-02-29",
        "doc": {"a": [1, None]},
        "tags": ["x"],
    }
    table = rows_to_arrow(columns, [row], load_id="l", first_record_id=1).table.select(
        [c.name for c in columns]
    )
    assert to_json_rows(table, result_columns(table.schema, {c.name: c for c in columns})) == [row]
