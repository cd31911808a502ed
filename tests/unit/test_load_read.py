# mypy: disable-error-code="import-untyped"
import threading
from datetime import date
from pathlib import Path

import pyarrow as pa
import pyarrow.fs
import pyarrow.parquet as pq
import pytest

from sinks.loads import read
from sinks.loads.read import CsvOptions, LoadFileError, LoadFormat, SourceBatch, read_batches

pytestmark = pytest.mark.unit

FS = pyarrow.fs.LocalFileSystem()


def write(tmp_path: Path, data: bytes | str, name: str = "data.csv") -> str:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


def read_csv(path: str, options: CsvOptions | None = None) -> tuple[list[str], list[SourceBatch]]:
    reader = read_batches(FS, path, "CSV", options or CsvOptions())
    return reader.column_names, list(reader.batches())


def rows(parts: list[SourceBatch]) -> list[dict[str, object]]:
    return [row for part in parts for row in part.data.to_pylist()]


def test_csv_columns_are_text_and_named_by_the_header(tmp_path: Path) -> None:
    names, parts = read_csv(write(tmp_path, "id,amount,day\n1,2.50,2024-01-05\n"))
    assert names == ["id", "amount", "day"]
    assert all(field.type == pa.string() for field in parts[0].data.schema)
    assert rows(parts) == [{"id": "1", "amount": "2.50", "day": "2024-01-05"}]
    assert parts[0].first_row == 1


def test_csv_without_header_names_columns_by_position(tmp_path: Path) -> None:
    names, parts = read_csv(write(tmp_path, "1,a\n2,b\n"), CsvOptions(header=False))
    assert names == ["column_1", "column_2"]
    assert rows(parts) == [{"column_1": "1", "column_2": "a"}, {"column_1": "2", "column_2": "b"}]


def test_csv_delimiter_and_quote(tmp_path: Path) -> None:
    path = write(tmp_path, "a;b\n'x;y';'it''s'\n")
    _, parts = read_csv(path, CsvOptions(delimiter=";", quote="'"))
    assert rows(parts) == [{"a": "x;y", "b": "it's"}]


def test_quoted_values_may_hold_newlines(tmp_path: Path) -> None:
    _, parts = read_csv(write(tmp_path, 'a,b\n"line 1\nline 2",x\n'))
    assert rows(parts) == [{"a": "line 1\nline 2", "b": "x"}]


@pytest.mark.parametrize(
    ("null_string", "expected"),
    [
        (None, ["", "", "NULL", "NULL"]),
        ("NULL", ["", "", None, "NULL"]),
        ("", [None, "", "NULL", "NULL"]),
    ],
)
def test_null_string(tmp_path: Path, null_string: str | None, expected: list[str | None]) -> None:
    path = write(tmp_path, 'a,b\n,1\n"",2\nNULL,3\n"NULL",4\n')
    _, parts = read_csv(path, CsvOptions(null_string=null_string))
    assert [row["a"] for row in rows(parts)] == expected


def test_malformed_lines_are_skipped_and_numbered(tmp_path: Path) -> None:
    path = write(tmp_path, 'a,b\n1,2\n3\n\n4,5\n"x\ny",6\n7,8,9\n10,11\n')
    reader = read_batches(FS, path, "CSV", CsvOptions())
    parts = list(reader.batches())
    assert rows(parts) == [
        {"a": "1", "b": "2"},
        {"a": "4", "b": "5"},
        {"a": "x\ny", "b": "6"},
        {"a": "10", "b": "11"},
    ]
    malformed = [m for part in parts for m in part.malformed]
    assert [(m.row, m.text, m.fields, m.expected) for m in malformed] == [(2, "3", 1, 2), (5, "7,8,9", 3, 2)]
    assert reader.malformed_count == 2
    assert reader.rows_read == 4


def test_malformed_lines_without_header_are_numbered_from_one(tmp_path: Path) -> None:
    reader = read_batches(FS, write(tmp_path, "1,2\n3\n"), "CSV", CsvOptions(header=False))
    parts = list(reader.batches())
    assert [m.row for part in parts for m in part.malformed] == [2]


def test_row_numbers_across_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read, "CSV_BLOCK_BYTES", 64)
    lines = ["n,v"]
    bad = {5, 17, 18, 40}
    for number in range(1, 51):
        lines.append(f"{number},x,extra" if number in bad else f"{number},x")
    lines.append("51")  # a malformed last line, after every good row
    reader = read_batches(FS, write(tmp_path, "\n".join(lines) + "\n"), "CSV", CsvOptions())
    parts = list(reader.batches())
    assert len(parts) > 3
    for part in parts:
        skipped = sorted(m.row for m in part.malformed)
        numbers = []
        number = part.first_row
        for _ in range(part.data.num_rows):
            while number in skipped:
                number += 1
            numbers.append(number)
            number += 1
        # the n column holds each good row's own data row number
        assert [int(v) for v in part.data.column("n").to_pylist()] == numbers
    assert sorted(m.row for part in parts for m in part.malformed) == [5, 17, 18, 40, 51]
    assert parts[-1].data.num_rows == 0 and parts[-1].malformed[0].text == "51"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "empty"),
        (b"a,b\n\xff\xfe,1\n", "UTF8"),
    ],
)
def test_unreadable_csv_is_a_file_error(tmp_path: Path, content: bytes, problem: str) -> None:
    path = write(tmp_path, content, "bad.csv")
    with pytest.raises(LoadFileError, match=problem) as raised:
        list(read_batches(FS, path, "CSV", CsvOptions()).batches())
    assert "bad.csv" in str(raised.value)


def test_missing_file_is_a_file_error(tmp_path: Path) -> None:
    formats: tuple[LoadFormat, ...] = ("CSV", "PARQUET")
    for fmt in formats:
        with pytest.raises(LoadFileError, match=r"gone\.csv: file not found"):
            read_batches(FS, str(tmp_path / "gone.csv"), fmt, CsvOptions())


def test_header_only_csv_has_columns_and_no_rows(tmp_path: Path) -> None:
    names, parts = read_csv(write(tmp_path, "a,b\n"))
    assert names == ["a", "b"]
    assert rows(parts) == []


def test_parquet_keeps_types_and_batches(tmp_path: Path) -> None:
    table = pa.table(
        {"n": pa.array(range(10), pa.int32()), "d": pa.array([date(2024, 1, i + 1) for i in range(10)])}
    )
    pq.write_table(table, tmp_path / "t.parquet")
    reader = read_batches(FS, str(tmp_path / "t.parquet"), "PARQUET", CsvOptions(), batch_rows=4)
    assert reader.column_names == ["n", "d"]
    parts = list(reader.batches())
    assert [p.data.num_rows for p in parts] == [4, 4, 2]
    assert [p.first_row for p in parts] == [1, 5, 9]
    assert parts[0].data.schema == table.schema.remove_metadata()


@pytest.mark.parametrize("content", [b"a,b\n1,2\n", b"PAR1 not really parquet PAR1", b""])
def test_non_parquet_file_is_a_file_error(tmp_path: Path, content: bytes) -> None:
    path = write(tmp_path, content, "x.parquet")
    with pytest.raises(LoadFileError, match=r"x\.parquet: not a readable Parquet file"):
        read_batches(FS, path, "PARQUET", CsvOptions())


def test_truncated_parquet_is_a_file_error(tmp_path: Path) -> None:
    pq.write_table(pa.table({"n": list(range(1000))}), tmp_path / "t.parquet")
    data = (tmp_path / "t.parquet").read_bytes()
    path = write(tmp_path, data[:100] + data[-60:], "t.parquet")
    with pytest.raises(LoadFileError, match=r"t\.parquet"):
        list(read_batches(FS, path, "PARQUET", CsvOptions()).batches())


def test_batches_are_read_once(tmp_path: Path) -> None:
    reader = read_batches(FS, write(tmp_path, "a\n1\n"), "CSV", CsvOptions())
    list(reader.batches())
    with pytest.raises(RuntimeError):
        list(reader.batches())


def test_byte_order_mark_is_not_part_of_the_first_name(tmp_path: Path) -> None:
    names, parts = read_csv(write(tmp_path, b"\xef\xbb\xbfid,v\n1,2\n"))
    assert names == ["id", "v"]
    assert rows(parts) == [{"id": "1", "v": "2"}]


def test_stopping_early_ends_the_reading_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read, "CSV_BLOCK_BYTES", 64)
    path = write(tmp_path, "n\n" + "".join(f"{i}\n" for i in range(2000)))
    before = {thread.name for thread in threading.enumerate()}
    parts = read_batches(FS, path, "CSV", CsvOptions()).batches()
    next(parts)
    parts.close()  # type: ignore[attr-defined]
    assert {thread.name for thread in threading.enumerate()} == before
