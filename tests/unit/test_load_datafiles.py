# mypy: disable-error-code="import-untyped"
"""The system columns a load's rows get before they are written as data files."""

import pyarrow as pa
import pytest

from sinks.loads.datafiles import with_system_columns

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
