"""Every svcdb operation and condition operator, applied to a real Iceberg table, exactly once per op id."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from core.svcdb import SvcDbError
from schemas.column_types import ColumnDef, parse_column_type
from sinks.duckdb_engine import connect
from sinks.iceberg import catalog as iceberg
from sinks.iceberg import writer
from sinks.iceberg.convert import rows_to_arrow
from sinks.iceberg.masking import Masker
from sinks.svcdb_apply import apply

pytestmark = pytest.mark.integration

COLUMNS = [
    ColumnDef("name", parse_column_type("STRING"), nullable=False),
    ColumnDef("qty", parse_column_type("LONG")),
    ColumnDef("price", parse_column_type("DECIMAL(8,2)")),
    ColumnDef("active", parse_column_type("BOOLEAN")),
    ColumnDef("tags", parse_column_type("STRING_LIST")),
    ColumnDef("secret", parse_column_type("STRING"), masked=True),
]
SEED = [
    {"name": "apple", "qty": 5, "price": "1.20", "active": True, "tags": ["fruit", "red"], "secret": "s1"},
    {"name": "banana", "qty": 12, "price": "0.50", "active": True, "tags": ["fruit"], "secret": "s2"},
    {"name": "carrot", "qty": 0, "price": "0.30", "active": False, "tags": ["veg"], "secret": None},
    {"name": "durian", "qty": None, "price": "9.99", "active": None, "tags": None, "secret": "s4"},
]
MASKER = Masker("x" * 32)


@pytest.fixture(scope="module")
def duck() -> Iterator[duckdb.DuckDBPyConnection]:
    """One DuckDB connection for the module's reads: opening one (its extensions loaded) costs about 0.4 s of
    CPU, more than most of these tests' own work. Each test reads only its own table's current snapshot."""
    with connect() as connection:
        yield connection


@pytest.fixture
def table(tmp_path: Path) -> Any:
    catalog = iceberg.make_catalog(f"sqlite:///{tmp_path / 'catalog.db'}", str(tmp_path / "warehouse"))
    handle = iceberg.create_table(catalog, "c" * 32, "e" * 32, COLUMNS)
    seeded = rows_to_arrow(
        COLUMNS, SEED, load_id="1" * 32, first_record_id=0, encrypt=MASKER.encryptor("c" * 32)
    )
    writer.append(handle, [("1" * 32, seeded.table)])
    return handle


def run(table: Any, op: dict[str, Any], op_id: str = "a" * 32) -> str:
    return apply(table, COLUMNS, op, op_id, MASKER.encryptor("c" * 32))


def names(table: Any, duck: duckdb.DuckDBPyConnection, where: str = "TRUE") -> list[str]:
    table.refresh()
    rows = duck.execute(
        f"SELECT name FROM iceberg_scan(?) WHERE {where} ORDER BY name",  # noqa: S608 - test-written SQL
        [table.metadata_location],
    )
    return [row[0] for row in rows.fetchall()]


def where(column: str, operator: str, value: Any = None) -> dict[str, Any]:
    return {
        "whereGroups": [
            {
                "logicalOperator": "AND",
                "conditions": [{"columnName": column, "operator": operator, "value": value}],
            }
        ]
    }


def test_insert_with_typed_values(table: Any, duck: duckdb.DuckDBPyConnection) -> None:
    values = {
        "name": {"columnType": "SHORT_TEXT", "textValue": "endive"},
        "qty": {"columnType": "NUMBER", "integerValue": "7"},
        "price": {"columnType": "NUMBER", "floatValue": "2.5"},
        "active": {"columnType": "BOOLEAN", "booleanValue": "true"},
        "tags": {"columnType": "MULTI_SELECT", "multiSelectValue": ["veg", "green"]},
        "secret": {"columnType": "SHORT_TEXT", "variableValue": "hidden"},
    }
    assert run(table, {"operation": "INSERT", "values": values}) == "inserted 1 row(s)"
    assert run(table, {"operation": "INSERT", "values": values}) == "inserted 0 row(s)"  # same op id: once
    assert names(table, duck, "qty = 7 AND price = 2.50 AND active AND list_contains(tags, 'green')") == [
        "endive"
    ]


@pytest.mark.parametrize(
    ("condition", "matched"),
    [
        (where("name", "EQUALS", "apple"), ["apple"]),
        (where("name", "NOT_EQUALS", "apple"), ["banana", "carrot", "durian"]),
        (where("qty", "GREATER_THAN", "5"), ["banana"]),
        (where("qty", "GREATER_THAN_OR_EQUAL", 5), ["apple", "banana"]),
        (where("price", "LESS_THAN", "0.50"), ["carrot"]),
        (where("price", "LESS_THAN_OR_EQUAL", "0.50"), ["banana", "carrot"]),
        (where("name", "CONTAINS", "an"), ["banana", "durian"]),
        (where("tags", "CONTAINS", "fruit"), ["apple", "banana"]),
        (where("name", "IN", ["apple", "carrot"]), ["apple", "carrot"]),
        (where("qty", "IS_NULL"), ["durian"]),
        (where("active", "IS_NOT_NULL"), ["apple", "banana", "carrot"]),
        (where("active", "EQUALS", True), ["apple", "banana"]),
        (
            {
                "whereGroups": [
                    {
                        "logicalOperator": "AND",
                        "conditions": [
                            {"columnName": "active", "operator": "EQUALS", "value": True},
                            {"columnName": "qty", "operator": "LESS_THAN", "value": 10},
                        ],
                    },
                    {
                        "logicalOperator": "OR",
                        "conditions": [{"columnName": "name", "operator": "EQUALS", "value": "durian"}],
                    },
                ],
                "groupsLogicalOperator": "OR",
            },
            ["apple", "durian"],
        ),
    ],
)
def test_update_by_each_operator(
    table: Any, duck: duckdb.DuckDBPyConnection, condition: dict[str, Any], matched: list[str]
) -> None:
    op = {"operation": "UPDATE", "values": {"qty": {"columnType": "NUMBER", "integerValue": 99}}, **condition}
    run(table, op)
    assert names(table, duck, "qty = 99") == matched
    assert len(names(table, duck)) == 4


def test_update_by_record_id_keeps_the_record(table: Any, duck: duckdb.DuckDBPyConnection) -> None:
    record = duck.execute(
        "SELECT _record_id FROM iceberg_scan(?) WHERE name = 'carrot'", [table.metadata_location]
    ).fetchone()
    assert record is not None
    op = {
        "operation": "UPDATE",
        "recordId": str(record[0]),
        "values": {"name": {"columnType": "SHORT_TEXT", "textValue": "CARROT"}},
    }
    assert run(table, op) == "updated 1 row(s)"
    assert run(table, op) == "updated 0 row(s)"  # redelivered: applied once
    table.refresh()
    same = duck.execute(
        "SELECT name, qty FROM iceberg_scan(?) WHERE _record_id = ?", [table.metadata_location, record[0]]
    ).fetchall()
    assert same == [("CARROT", 0)]


def test_delete_and_upsert(table: Any, duck: duckdb.DuckDBPyConnection) -> None:
    assert run(table, {"operation": "DELETE", **where("active", "EQUALS", "false")}) == "deleted 1 row(s)"
    assert names(table, duck) == ["apple", "banana", "durian"]
    upsert = {
        "operation": "UPSERT",
        "values": {
            "name": {"columnType": "SHORT_TEXT", "textValue": "fig"},
            "qty": {"columnType": "NUMBER", "integerValue": 1},
        },
        **where("name", "EQUALS", "fig"),
    }
    assert run(table, upsert, "b" * 32) == "inserted 1 row(s)"
    upsert["values"]["qty"] = {"columnType": "NUMBER", "integerValue": 2}
    assert run(table, upsert, "c" * 32) == "updated 1 row(s)"
    assert names(table, duck, "qty = 2") == ["fig"]


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (
            {"operation": "INSERT", "values": {"nope": {"columnType": "SHORT_TEXT", "textValue": "x"}}},
            "unknown columns",
        ),
        (
            {"operation": "INSERT", "values": {"qty": {"columnType": "NUMBER", "integerValue": "many"}}},
            "not an integer",
        ),
        (
            {"operation": "INSERT", "values": {"qty": {"columnType": "NUMBER", "integerValue": 1}}},
            'column "name"',
        ),
        ({"operation": "DELETE", **where("secret", "EQUALS", "s1")}, "masked column"),
        ({"operation": "DELETE", **where("ghost", "EQUALS", "s1")}, "unknown column"),
        ({"operation": "UPDATE", "recordId": "abc", "values": {}}, "not a record id"),
    ],
)
def test_bad_operations_change_nothing(
    table: Any, duck: duckdb.DuckDBPyConnection, op: dict[str, Any], message: str
) -> None:
    with pytest.raises(SvcDbError, match=message):
        run(table, op)
    assert names(table, duck) == ["apple", "banana", "carrot", "durian"]
