# mypy: disable-error-code="import-untyped"
import json
from collections.abc import Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs
import pytest

from schemas.column_types import ColumnDef, parse_column_type
from sinks.iceberg.masking import Masker
from sinks.iceberg.types import JSON_ENCODER
from sinks.loads import (
    Converted,
    CsvOptions,
    LoadMappingError,
    Rejected,
    convert_batch,
    plan_columns,
    read_batches,
    user_schema,
)

pytestmark = pytest.mark.unit

COMPANY = "c" * 32
MASKER = Masker("s" * 32)


def column(type_text: str, nullable: bool = True, name: str = "v", masked: bool = False) -> ColumnDef:
    return ColumnDef(name, parse_column_type(type_text), nullable, masked)


def convert(
    columns: Sequence[ColumnDef],
    data: dict[str, pa.Array | list[Any]],
    *,
    csv: CsvOptions | None = None,
    plan: dict[str, str] | None = None,
    first_row: int = 1,
    sample: list[Rejected] | None = None,
    sample_limit: int = 20,
) -> Converted:
    batch = pa.RecordBatch.from_pydict(
        {k: v if isinstance(v, pa.Array) else pa.array(v, pa.string()) for k, v in data.items()}
    )
    return convert_batch(
        batch,
        columns,
        plan if plan is not None else {c.name: c.name for c in columns if c.name in data},
        csv=csv,
        encrypt=MASKER.encryptor(COMPANY) if any(c.masked for c in columns) else None,
        source="s3://b/f.csv",
        first_row=first_row,
        sample=sample,
        sample_limit=sample_limit,
    )


def one(type_text: str, value: Any, csv: CsvOptions | None = None) -> tuple[Any, str | None]:
    """The stored value, or None and the message of the refusal."""
    source = value if isinstance(value, pa.Array) else [value]
    result = convert([column(type_text)], {"v": source}, csv=csv or CsvOptions())
    if result.rejected_count:
        return None, result.sample[0].message
    return result.table.column("v")[0].as_py(), None


def utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, us: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, us, tzinfo=UTC)


ACCEPTED: list[tuple[str, str, Any]] = [
    ("INT", "42", 42),
    ("INT", " -7 ", -7),
    ("INT", "+5", 5),
    ("INT", "007", 7),
    ("INT", "2147483647", 2**31 - 1),
    ("LONG", "-9223372036854775808", -(2**63)),
    ("DOUBLE", "1.5", 1.5),
    ("DOUBLE", "-2e3", -2000.0),
    ("DOUBLE", ".5", 0.5),
    ("DOUBLE", "Infinity", float("inf")),
    ("DECIMAL(10,2)", "12.5", Decimal("12.50")),
    ("DECIMAL(10,2)", "-0.01", Decimal("-0.01")),
    ("DECIMAL(10,2)", "12.500", Decimal("12.50")),
    ("DECIMAL(10,2)", "99999999.99", Decimal("99999999.99")),
    ("DECIMAL(10,2)", "+3", Decimal("3.00")),
    ("BOOLEAN", "true", True),
    ("BOOLEAN", "F", False),
    ("BOOLEAN", " Yes ", True),
    ("BOOLEAN", "no", False),
    ("BOOLEAN", "1", True),
    ("BOOLEAN", "0", False),
    ("DATE", "2024-02-29", date(2024, 2, 29)),
    ("DATE", "0001-01-01", date(1, 1, 1)),
    ("TIMESTAMPTZ", "2024-01-01T10:00:00Z", utc(2024, 1, 1, 10)),
    ("TIMESTAMPTZ", "2024-01-01 10:00:00.123456+02:00", utc(2024, 1, 1, 8, 0, 0, 123456)),
    ("TIMESTAMPTZ", "2024-01-01T10:00:00", utc(2024, 1, 1, 10)),
    ("TIMESTAMPTZ", "2024-01-01", utc(2024, 1, 1)),
    ("TIMESTAMP", "2024-01-01T10:00:00-01:30", datetime(2024, 1, 1, 11, 30)),  # noqa: DTZ001
    ("TIMESTAMP", "2024-01-01T10:00", datetime(2024, 1, 1, 10)),  # noqa: DTZ001
    ("STRING", "  kept as is ", "  kept as is "),
    ("STRING", "", ""),
    ("STRING_LIST", '["a", "b"]', ["a", "b"]),
    ("STRING_LIST", "[]", []),
    ("JSON", '{"b": 1, "a": [true, null]}', '{"a":[true,null],"b":1}'),
    ("JSON", '"héllo"', '"héllo"'),
    ("JSON", "3", "3"),
]


@pytest.mark.parametrize(("type_text", "text", "expected"), ACCEPTED)
def test_accepted_text(type_text: str, text: str, expected: Any) -> None:
    assert one(type_text, text) == (expected, None)


REFUSED: list[tuple[str, str, str]] = [
    ("INT", "12a", '"12a" is not an integer'),
    ("INT", "1.5", '"1.5" is not an integer'),
    ("INT", "2147483648", "out of range for INT"),
    ("LONG", "9223372036854775808", "out of range for LONG"),
    ("LONG", "1e3", "not an integer"),
    ("DOUBLE", "1,5", '"1,5" is not a DOUBLE'),
    ("DOUBLE", "0x10", "is not a DOUBLE"),
    ("DECIMAL(10,2)", "12,5", '"12,5" is not a DECIMAL(10,2)'),
    ("DECIMAL(10,2)", "12.345", "more than 2 decimal places"),
    ("DECIMAL(10,2)", "123456789", "more than 8 digits before the decimal point"),
    ("DECIMAL(10,2)", "NaN", "is not a DECIMAL(10,2)"),
    ("BOOLEAN", "maybe", '"maybe" is not a BOOLEAN'),
    ("BOOLEAN", "2", "is not a BOOLEAN"),
    ("DATE", "2023-02-29", "not a valid date"),
    ("DATE", "05/01/2024", "YYYY-MM-DD"),
    ("DATE", "0000-01-01", "not a valid date"),
    ("TIMESTAMPTZ", "2024-01-01T10:00:00.1234567Z", "more than 6 fractional digits"),
    ("TIMESTAMPTZ", "2024-01-01T24:00:00Z", "not a valid timestamp"),
    ("TIMESTAMPTZ", "yesterday", "expected an ISO-8601 timestamp"),
    ("TIMESTAMPTZ", "9999-12-31T23:00:00-05:00", "is not a valid timestamp"),
    ("TIMESTAMP", "0000-06-01T00:00:00Z", "is not a valid timestamp"),
    ("STRING_LIST", '"a"', "expected an array of strings"),
    ("STRING_LIST", '["a", 1]', "element 1 is number 1"),
    ("STRING_LIST", "a,b", "is not a JSON array of strings"),
    ("JSON", "{bad", "is not valid JSON"),
    ("JSON", "NaN", "not a JSON value"),
]


@pytest.mark.parametrize(("type_text", "text", "message"), REFUSED)
def test_refused_text(type_text: str, text: str, message: str) -> None:
    value, refusal = one(type_text, text)
    assert value is None
    assert refusal is not None and refusal.startswith('column "v": ') and message in refusal


def test_cast_failure_isolates_bad_cells_only() -> None:
    texts = [str(i) for i in range(1000)]
    texts[3], texts[500], texts[999] = "x", "99999999999", "+12"
    result = convert([column("INT")], {"v": texts})
    assert result.rejected_count == 2
    assert [r.row for r in result.sample] == [4, 501]
    kept = result.table.column("v").to_pylist()
    assert len(kept) == 998 and kept[:3] == [0, 1, 2] and kept[-1] == 12


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["true", "FALSE", "True", "0", "1", None], [True, False, True, False, True, None]),
        (["true", "yes", "F", "0", " no ", "T"], [True, True, False, False, False, True]),
    ],
)
def test_a_boolean_column_reads_every_spelling_in_one_array(
    texts: list[str | None], expected: list[bool | None]
) -> None:
    result = convert([column("BOOLEAN")], {"v": texts})
    assert result.rejected_count == 0
    assert result.table.column("v").to_pylist() == expected


@pytest.mark.parametrize(
    "type_text", ["INT", "DOUBLE", "DECIMAL(5,1)", "BOOLEAN", "DATE", "TIMESTAMPTZ", "JSON"]
)
def test_empty_and_blank_fields_are_null_except_in_strings(type_text: str) -> None:
    result = convert([column(type_text), column("STRING", name="s")], {"v": ["", "  "], "s": ["", "  "]})
    assert result.rejected_count == 0
    assert result.table.to_pylist() == [{"v": None, "s": ""}, {"v": None, "s": "  "}]


def test_empty_or_null_in_a_required_column_rejects_the_row() -> None:
    columns = [column("LONG", nullable=False, name="n"), column("STRING", nullable=False, name="s")]
    result = convert(columns, {"n": ["1", "", "3"], "s": ["a", "b", None]})
    assert result.table.to_pylist() == [{"n": 1, "s": "a"}]
    assert [(r.row, r.column, r.message) for r in result.sample] == [
        (2, "n", 'column "n": is required and missing or empty'),
        (3, "s", 'column "s": is required and missing or empty'),
    ]


def test_a_row_refused_in_one_column_is_dropped_from_all() -> None:
    columns = [column("LONG", name="n"), column("DATE", name="d"), column("STRING", name="s")]
    result = convert(
        columns, {"n": ["1", "2", "x"], "d": ["2024-01-01", "bad", "2024-01-03"], "s": ["a", "b", "c"]}
    )
    assert result.table.to_pylist() == [{"n": 1, "d": date(2024, 1, 1), "s": "a"}]
    assert result.table.schema == user_schema(columns)
    assert [(r.row, r.column) for r in result.sample] == [(2, "d"), (3, "n")]
    assert result.sample[0].values == {"n": "2", "d": "bad", "s": "b"}


def test_date_and_timestamp_formats() -> None:
    options = CsvOptions(date_format="%d/%m/%Y", timestamp_format="%d/%m/%Y %H:%M")
    columns = [column("DATE", name="d"), column("TIMESTAMPTZ", name="t")]
    result = convert(
        columns,
        {"d": ["05/01/2024", "5/1/2024", "31/02/2024"], "t": ["05/01/2024 10:30", "5/1/2024 7:05", "x"]},
        csv=options,
    )
    assert result.table.to_pylist() == [
        {"d": date(2024, 1, 5), "t": utc(2024, 1, 5, 10, 30)},
        {"d": date(2024, 1, 5), "t": utc(2024, 1, 5, 7, 5)},
    ]
    assert result.sample[0].message == 'column "d": "31/02/2024" is not a date in the format "%d/%m/%Y"'


def test_timestamp_format_with_offset() -> None:
    options = CsvOptions(timestamp_format="%Y%m%d %H%M%S %z")
    assert one("TIMESTAMPTZ", "20240105 103000 +0200", options) == (utc(2024, 1, 5, 8, 30), None)


def test_json_is_stored_as_append_rows_stores_it() -> None:
    text = '{"z": [1, 2.5, "é"], "a": {"y": null, "b": false}}'
    assert one("JSON", text)[0] == JSON_ENCODER.encode(json.loads(text))


# Parquet values of other Arrow types

PARQUET_ACCEPTED: list[tuple[str, pa.Array, Any]] = [
    ("LONG", pa.array([7], pa.int32()), 7),
    ("INT", pa.array([7], pa.uint8()), 7),
    ("INT", pa.array([7.0], pa.float64()), 7),
    ("LONG", pa.array([Decimal("12")], pa.decimal128(5, 0)), 12),
    ("DOUBLE", pa.array([1.5], pa.float32()), 1.5),
    ("DOUBLE", pa.array([3], pa.int64()), 3.0),
    ("DECIMAL(10,2)", pa.array([0.1], pa.float64()), Decimal("0.10")),
    ("DECIMAL(10,2)", pa.array([Decimal("1.5")], pa.decimal128(3, 1)), Decimal("1.50")),
    ("DECIMAL(10,2)", pa.array([5], pa.int16()), Decimal("5.00")),
    ("STRING", pa.array(["x"], pa.large_string()), "x"),
    ("STRING", pa.array(["x", "y"]).dictionary_encode(), "x"),
    ("DATE", pa.array(["2024-01-05"], pa.large_string()), date(2024, 1, 5)),
    ("DATE", pa.array([datetime(2024, 1, 5)], pa.timestamp("ms")), date(2024, 1, 5)),  # noqa: DTZ001
    ("TIMESTAMPTZ", pa.array([1_000_000_000], pa.timestamp("ns")), utc(1970, 1, 1, 0, 0, 1)),
    ("TIMESTAMPTZ", pa.array([0], pa.timestamp("s", "Europe/Paris")), utc(1970, 1, 1)),
    ("TIMESTAMP", pa.array([60_000], pa.timestamp("ms", "UTC")), datetime(1970, 1, 1, 0, 1)),  # noqa: DTZ001
    ("TIMESTAMP", pa.array([date(2024, 1, 5)], pa.date32()), datetime(2024, 1, 5)),  # noqa: DTZ001
    ("BOOLEAN", pa.array([True]), True),
    ("STRING_LIST", pa.array([["a", "b"]], pa.list_(pa.large_string())), ["a", "b"]),
    ("STRING_LIST", pa.array([["a"]], pa.large_list(pa.string())), ["a"]),
    ("LONG", pa.nulls(1), None),
]


@pytest.mark.parametrize(("type_text", "values", "expected"), PARQUET_ACCEPTED)
def test_parquet_types_accepted(type_text: str, values: pa.Array, expected: Any) -> None:
    result = convert([column(type_text)], {"v": values}, csv=None)
    assert result.rejected_count == 0
    assert result.table.column("v")[0].as_py() == expected


PARQUET_REFUSED: list[tuple[str, pa.Array, str]] = [
    ("INT", pa.array([2**40], pa.int64()), "1099511627776 (int64) does not fit INT"),
    ("LONG", pa.array([2**63], pa.uint64()), "does not fit LONG"),
    ("INT", pa.array([7.5], pa.float64()), "7.5 (double) does not fit INT"),
    ("LONG", pa.array([float("nan")], pa.float64()), "does not fit LONG"),
    ("DOUBLE", pa.array([2**53 + 1], pa.int64()), "does not fit DOUBLE"),
    ("DECIMAL(10,2)", pa.array([0.125], pa.float64()), "does not fit DECIMAL(10,2)"),
    ("DECIMAL(4,2)", pa.array([Decimal("123.4")], pa.decimal128(4, 1)), "does not fit DECIMAL(4,2)"),
    ("DATE", pa.array([datetime(2024, 1, 5, 10)], pa.timestamp("us")), "does not fit DATE"),  # noqa: DTZ001
    ("TIMESTAMPTZ", pa.array([1_000_000_001], pa.timestamp("ns")), "does not fit TIMESTAMPTZ"),
    ("DATE", pa.array([5], pa.int32()), "5 (int32) does not fit DATE"),
    ("INT", pa.array([True]), "true (bool) does not fit INT"),
    ("INT", pa.array([Decimal("7.50")], pa.decimal128(4, 2)), "7.50 (decimal128(4, 2)) does not fit INT"),
    ("STRING", pa.array([5], pa.int64()), "5 (int64) does not fit STRING"),
    ("JSON", pa.array([5], pa.int64()), "does not fit JSON"),
    ("STRING_LIST", pa.array([["a", None]], pa.list_(pa.string())), "does not fit STRING_LIST"),
    ("DATE", pa.array([-800_000], pa.date32()), "does not fit DATE"),
    ("TIMESTAMP", pa.array([300_000_000_000_000_000], pa.timestamp("us")), "does not fit TIMESTAMP"),
    ("INT", pa.array(["12a"], pa.large_string()), '"12a" is not an integer'),
]


@pytest.mark.parametrize(("type_text", "values", "message"), PARQUET_REFUSED)
def test_parquet_types_refused(type_text: str, values: pa.Array, message: str) -> None:
    result = convert([column(type_text)], {"v": values}, csv=None)
    assert result.rejected_count == 1 and result.table.num_rows == 0
    assert message in result.sample[0].message


def test_parquet_bad_cells_isolated_among_good() -> None:
    values = pa.array([1.0, 2.5, 3.0, None, 2.0**40], pa.float64())
    result = convert([column("INT")], {"v": values}, csv=None)
    assert result.table.column("v").to_pylist() == [1, 3, None]
    assert [r.row for r in result.sample] == [2, 5]
    assert result.sample[0].values == {"v": "2.5"}


# Mapping


def test_plan_without_mapping_matches_names_exactly_then_ignoring_case() -> None:
    columns = [column("LONG", name="id"), column("STRING", name="name"), column("DATE", name="day")]
    plan, unused = plan_columns(["ID", "name", "Name", "extra"], columns, None)
    assert plan == {"id": "ID", "name": "name"}
    assert unused == ["Name", "extra"]


def test_plan_with_mapping_fills_only_mapped_columns() -> None:
    columns = [column("LONG", name="id"), column("STRING", name="name")]
    plan, unused = plan_columns(["Id", "name"], columns, {"Id": "id"})
    assert plan == {"id": "Id"}
    assert unused == ["name"]


@pytest.mark.parametrize(
    ("file_columns", "mapping", "message"),
    [
        (["a"], {"b": "id"}, '"b", which is not a column of the file'),
        (["a"], {"a": "nope"}, '"nope", which is not a column of the table'),
        (["a", "b"], {"a": "id", "b": "id"}, 'both "a" and "b" to "id"'),
        (["a"], {"a": "name"}, "required table column 'id' has no file column"),
        (["x", "y"], None, "no file column matches a table column"),
        (["ID", "Id"], None, 'file columns "ID", "Id" all match table column "id"'),
        (["id", "id"], None, 'file column "id" appears more than once'),
    ],
)
def test_plan_errors(file_columns: list[str], mapping: dict[str, str] | None, message: str) -> None:
    columns = [column("LONG", name="id", nullable=False), column("STRING", name="name")]
    with pytest.raises(LoadMappingError, match=message.replace("(", r"\(")):
        plan_columns(file_columns, columns, mapping)


def test_unmapped_nullable_column_is_null() -> None:
    columns = [column("LONG", name="id"), column("STRING", name="name")]
    result = convert(columns, {"a": ["1"]}, plan={"id": "a"})
    assert result.table.to_pylist() == [{"id": 1, "name": None}]


# Masking, sample


def test_masked_column_is_encrypted_and_hidden_in_the_sample() -> None:
    columns = [column("STRING", name="secret", masked=True), column("LONG", name="n")]
    result = convert(columns, {"secret": ["hunter2", "s3cret", ""], "n": ["1", "x", "3"]})
    stored = result.table.column("secret").to_pylist()
    assert [MASKER.decrypt(COMPANY, token) for token in stored] == ["hunter2", ""]
    assert all(token.startswith("v1:") for token in stored)
    assert result.sample[0].values == {"secret": "••••", "n": "x"}
    assert "s3cret" not in repr(result.sample)


def test_masked_column_needs_an_encrypt_function() -> None:
    batch = pa.RecordBatch.from_pydict({"v": ["a"]})
    with pytest.raises(ValueError, match="encrypt"):
        convert_batch(
            batch,
            [column("STRING", masked=True)],
            {"v": "v"},
            csv=None,
            encrypt=None,
            source="s",
            first_row=1,
        )


def test_sample_limit_and_shared_sample_across_batches() -> None:
    sample: list[Rejected] = []
    first = convert([column("INT")], {"v": ["x"] * 15}, sample=sample, sample_limit=20)
    second = convert(
        [column("INT")], {"v": ["1", "y", "z"] * 5}, sample=sample, first_row=16, sample_limit=20
    )
    assert first.rejected_count == 15 and second.rejected_count == 10
    assert second.sample is sample and len(sample) == 20
    assert [r.row for r in sample] == [*range(1, 16), 17, 18, 20, 21, 23]
    assert sample[-1].source == "s3://b/f.csv"


def test_sample_values_are_cut() -> None:
    result = convert([column("INT")], {"v": ["9" * 500]})
    assert result.sample[0].values["v"] == "9" * 200
    assert len(result.sample[0].message) < 200


def test_malformed_lines_are_rejected_rows_with_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "f.csv"
    path.write_text("n,secret,v\n1,a,x\n2,b\n3,c,y\n4,d,z,extra\n5,e,w\n")
    fs = pyarrow.fs.LocalFileSystem()
    for masked, shown in (
        (False, {"n": "2", "secret": "b", "v": None}),
        (True, dict.fromkeys(["n", "secret", "v"], "••••")),
    ):
        reader = read_batches(fs, str(path), "CSV", CsvOptions())
        columns = [
            column("INT", name="n"),
            column("STRING", name="secret", masked=masked),
            column("STRING", name="v"),
        ]
        plan, _ = plan_columns(reader.column_names, columns, None)
        sample: list[Rejected] = []
        total = 0
        for part in reader.batches():
            converted = convert_batch(
                part.data, columns, plan, csv=CsvOptions(), source="f.csv", first_row=part.first_row,
                malformed=part.malformed, sample=sample,
                encrypt=MASKER.encryptor(COMPANY) if masked else None,
            )  # fmt: skip
            total += converted.rejected_count
        assert total == 2
        assert [(r.row, r.column, r.message) for r in sample] == [
            (2, None, "the line has 2 fields, expected 3"),
            (4, None, "the line has 4 fields, expected 3"),
        ]
        assert sample[0].values == shown


def test_row_numbers_skip_malformed_lines_within_a_batch() -> None:
    from sinks.loads.read import MalformedRow

    batch = pa.RecordBatch.from_pydict({"v": ["1", "x", "3", "y"]})
    malformed = (MalformedRow(11, "a,b", 2, 1), MalformedRow(13, "c,d", 2, 1))
    result = convert_batch(
        batch, [column("INT")], {"v": "v"}, csv=CsvOptions(), encrypt=None, source="s", first_row=10,
        malformed=malformed,
    )  # fmt: skip
    # rows: 10 "1", 11 malformed, 12 "x", 13 malformed, 14 "3", 15 "y"
    assert result.rejected_count == 4
    assert [(r.row, r.column) for r in result.sample] == [(11, None), (12, "v"), (13, None), (15, "v")]
