# mypy: disable-error-code="import-untyped"
"""The system columns a load's rows get before they are written as data files, and the files' encodings."""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.partitioning import UNPARTITIONED_PARTITION_SPEC
from pyiceberg.schema import Schema
from pyiceberg.table.metadata import new_table_metadata
from pyiceberg.table.sorting import UNSORTED_SORT_ORDER
from pyiceberg.types import LongType, NestedField, StringType

from sinks.loads.datafiles import FileTarget, SystemColumns, dictionary_columns, with_system_columns

pytestmark = pytest.mark.unit

SCHEMA = pa.schema(
    [
        pa.field("n", pa.int64(), nullable=False, metadata={"PARQUET:field_id": "1"}),
        pa.field("name", pa.large_string(), metadata={"PARQUET:field_id": "2"}),
        pa.field("added", pa.float64(), metadata={"PARQUET:field_id": "3"}),
        pa.field("_load_id", pa.large_string(), nullable=False, metadata={"PARQUET:field_id": "4"}),
        pa.field("_record_id", pa.int64(), nullable=False, metadata={"PARQUET:field_id": "5"}),
    ]
)


def test_rows_take_the_table_order_types_load_id_and_record_ids() -> None:
    rows = pa.table({"name": pa.array(["a", "b", None]), "n": pa.array([7, 8, 9])})
    out = with_system_columns(rows, SCHEMA, "load-1", 41)
    assert out.schema == SCHEMA  # the field ids come with it
    assert out.to_pylist() == [
        {"n": 7, "name": "a", "added": None, "_load_id": "load-1", "_record_id": 41},
        {"n": 8, "name": "b", "added": None, "_load_id": "load-1", "_record_id": 42},
        {"n": 9, "name": None, "added": None, "_load_id": "load-1", "_record_id": 43},
    ]


def test_chunked_rows_and_no_rows() -> None:
    rows = pa.concat_tables([pa.table({"n": [1, 2]}), pa.table({"n": [3]})])
    assert with_system_columns(rows, SCHEMA, "x", 1).column("_record_id").to_pylist() == [1, 2, 3]
    empty = with_system_columns(pa.table({"n": pa.array([], pa.int64())}), SCHEMA, "x", 1)
    assert empty.num_rows == 0 and empty.schema == SCHEMA


def test_shared_system_columns_fit_chunks_of_any_length_in_turn() -> None:
    system = SystemColumns("load-2", SCHEMA)
    for first, count in [(10, 3), (13, 5), (18, 2), (20, 0), (20, 4)]:
        rows = pa.table({"n": pa.array(range(count), pa.int64())})
        out = with_system_columns(rows, SCHEMA, "load-2", first, system)
        assert out.schema == SCHEMA
        assert out.column("_record_id").to_pylist() == list(range(first, first + count))
        assert out.column("_load_id").to_pylist() == ["load-2"] * count


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (pa.table({"name": ["a"]}), "lack the required column 'n'"),
        (pa.table({"n": [1], "other": [1]}), r"columns the table does not have: \['other'\]"),
    ],
)
def test_rows_that_do_not_fit_the_table_are_refused(rows: pa.Table, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        with_system_columns(rows, SCHEMA, "x", 1)


def test_only_columns_of_few_distinct_values_get_a_dictionary() -> None:
    count = 100_000
    rows = pa.table(
        {
            "id": pa.array(range(count), pa.int64()),
            "status": pa.array([("new", "paid", "sent")[i % 3] for i in range(count)]),
            "paid": pa.array([i % 2 == 0 for i in range(count)]),
            "tags": pa.array([["a"]] * count),
            "mostly_null": pa.nulls(count, pa.float64()),
        }
    )
    assert dictionary_columns(rows) == ["status", "mostly_null"]
    assert dictionary_columns(rows.slice(0, 0)) == ["id", "status", "mostly_null"]


def test_a_load_file_has_dictionaries_only_where_they_were_chosen(tmp_path: Path) -> None:
    schema = Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "region", StringType(), required=False),
    )
    metadata = new_table_metadata(
        schema, UNPARTITIONED_PARTITION_SPEC, UNSORTED_SORT_ORDER, str(tmp_path), {}
    )
    target = FileTarget(PyArrowFileIO(), metadata)
    rows = pa.table({"id": range(50_000), "region": ["EU", "US"] * 25_000}, schema=target.arrow_schema)
    writer = target.parquet_writer(str(tmp_path / "f.parquet"))
    writer.write(rows)
    writer.close()
    columns = pq.ParquetFile(tmp_path / "f.parquet").metadata.row_group(0)
    assert not columns.column(0).has_dictionary_page
    assert columns.column(1).has_dictionary_page
    assert pq.read_table(tmp_path / "f.parquet").column("region").to_pylist()[:3] == ["EU", "US", "EU"]
