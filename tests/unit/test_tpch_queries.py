"""The TPC-H material itself: the Trino queries give DuckDB's own TPC-H answers once translated, the data
loads into Iceberg tables that read back the same, and the comparison helper catches what it should."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
import sqlglot
from sqlglot import expressions as exp

from schemas.column_types import ColumnDef, parse_column_type
from schemas.tables import CreateTableRequest
from sinks.duckdb_engine import connect
from sinks.iceberg import catalog as iceberg
from tests.tpch import data
from tests.tpch.oracle import (
    QUERY_NUMBERS,
    Result,
    differences,
    duckdb_on,
    duckdb_sql,
    expected_result,
    order_positions,
    result_of_arrow,
    trino_sql,
)

pytestmark = pytest.mark.unit

SCALE_FACTOR = 0.01


@pytest.fixture(scope="module")
def generated() -> dict[str, pa.Table]:
    return data.generate(SCALE_FACTOR)


@pytest.fixture(scope="module")
def native() -> Iterator[duckdb.DuckDBPyConnection]:
    """DuckDB's own TPC-H database, where ``PRAGMA tpch(n)`` runs the reference queries."""
    with data.tpch_connection() as connection:
        connection.execute("CALL dbgen(sf = ?)", [SCALE_FACTOR])
        yield connection


@pytest.mark.parametrize("number", QUERY_NUMBERS)
def test_each_query_is_one_select_over_the_tpch_tables_by_bare_name(number: int) -> None:
    statements = sqlglot.parse(trino_sql(number), read="trino")
    assert len(statements) == 1
    statement = statements[0]
    assert isinstance(statement, exp.Select)
    ctes = {cte.alias for cte in statement.find_all(exp.CTE)}
    for table in statement.find_all(exp.Table):
        assert not table.args.get("db") and not table.args.get("catalog"), table.sql()
        assert table.name in data.TABLE_NAMES or table.name in ctes, table.sql()
    # Trino's date arithmetic, not DuckDB's casts of text.
    assert "CAST(" not in trino_sql(number).upper()


@pytest.mark.parametrize("number", QUERY_NUMBERS)
def test_the_translated_query_gives_duckdbs_own_tpch_answer(
    native: duckdb.DuckDBPyConnection, number: int
) -> None:
    reference = result_of_arrow(native.execute(f"PRAGMA tpch({number})").to_arrow_table())
    translated = result_of_arrow(native.execute(duckdb_sql(number)).to_arrow_table())
    assert reference.rows, "the reference answer is empty: the comparison would prove nothing"
    # Names may differ where the spec leaves a column unnamed (q18's sum(l_quantity)).
    assert differences(reference, translated, order_positions(number), compare_names=False) == []


def test_generated_tables_match_their_definitions(generated: dict[str, pa.Table]) -> None:
    assert set(generated) == set(data.TABLE_NAMES)
    assert generated["lineitem"].num_rows == 60_175
    for name, table in generated.items():
        request = CreateTableRequest.model_validate(data.create_request(name))
        assert [c.name for c in request.columns] == table.column_names
        for column in request.columns:
            parse_column_type(column.type)
    assert [p["column"] for p in data.create_request("lineitem")["partitionSpec"]] == ["l_shipdate"]
    assert [p["column"] for p in data.create_request("orders")["partitionSpec"]] == ["o_orderdate"]


def test_loaded_iceberg_tables_answer_like_the_arrow_tables(
    generated: dict[str, pa.Table], tmp_path: Path
) -> None:
    catalog = iceberg.make_catalog(f"sqlite:///{tmp_path / 'catalog.db'}", str(tmp_path / "warehouse"))
    company_id = uuid.uuid4().hex
    table_ids = {name: uuid.uuid4().hex for name in data.TABLE_NAMES}
    for name, table_id in table_ids.items():
        request = data.create_request(name)
        columns = [
            ColumnDef(c["name"], parse_column_type(c["type"]), c["nullable"]) for c in request["columns"]
        ]
        spec = [(p["column"], p["transform"]) for p in request["partitionSpec"]]
        iceberg.create_table(catalog, company_id, table_id, columns, spec)
    loaded = data.load(catalog, company_id, table_ids, generated)
    assert {t.name: t.rows for t in loaded} == {name: t.num_rows for name, t in generated.items()}
    # One file per month the rows cover: the partition spec took effect.
    assert {t.name: t.data_files for t in loaded}["lineitem"] > 60

    oracle = duckdb_on(generated)
    with connect() as duck:
        for name, table_id in table_ids.items():
            location = iceberg.load_table(catalog, company_id, table_id).metadata_location
            names = ", ".join(generated[name].column_names)
            duck.execute(f"CREATE VIEW {name} AS SELECT {names} FROM iceberg_scan('{location}')")  # noqa: S608
        orders = iceberg.load_table(catalog, company_id, table_ids["orders"]).metadata_location
        system = duck.execute(
            "SELECT min(_record_id), max(_record_id), count(DISTINCT _load_id) FROM iceberg_scan(?)", [orders]
        ).fetchone()
        assert system == (1, generated["orders"].num_rows, 1)
        for number in QUERY_NUMBERS:
            got = result_of_arrow(duck.execute(duckdb_sql(number)).to_arrow_table())
            assert differences(expected_result(oracle, number), got, order_positions(number)) == [], number
    catalog.engine.dispose()


def test_differences_respect_order_ties_and_tolerance() -> None:
    expected = Result(["k", "v", "x"], [[1, "a", 1.0], [2, "b", 2.0], [2, "c", 3.0]])
    tied = Result(["k", "v", "x"], [[1, "a", 1.0 + 1e-12], [2, "c", 3.0], [2, "b", 2.0]])
    assert differences(expected, tied, (0,)) == []
    swapped = Result(["k", "v", "x"], [[2, "b", 2.0], [2, "c", 3.0], [1, "a", 1.0]])
    assert differences(expected, swapped, (0,)) != []
    assert differences(expected, swapped) == []
    off = Result(["k", "v", "x"], [[1, "a", 1.001], [2, "b", 2.0], [2, "c", 3.0]])
    assert differences(expected, off, (0,)) != []
    short = Result(["k", "v", "x"], expected.rows[:2])
    assert differences(expected, short, (0,)) != []
    renamed = Result(["k", "v", "y"], expected.rows)
    assert differences(expected, renamed) != [] and differences(expected, renamed, compare_names=False) == []


def test_decimals_and_dates_compare_as_the_interface_renders_them() -> None:
    table = duckdb.sql("SELECT 12.50::DECIMAL(15,2) AS d, DATE '1998-09-02' AS day, 7::BIGINT AS n")
    rendered = result_of_arrow(table.to_arrow_table())
    assert rendered.rows == [["12.50", "1998-09-02", 7]]
    assert differences(rendered, Result(rendered.columns, [["12.5", "1998-09-02", 7]])) != []
    assert differences(rendered, Result(rendered.columns, [["12.50", "1998-09-02", "7"]])) != []
