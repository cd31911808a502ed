"""TPC-H data from DuckDB's tpch extension as Arrow tables, the tables' definitions for the table-admin
API, and the loader that appends the data into the service's own Iceberg tables.

The loader goes through the service's exactly-once writer (``sinks.iceberg.writer.append``), which adds
the system columns (``_load_id``, ``_record_id``) and records the load id in the snapshot summary, so the
tables hold exactly what a load through the pipeline would leave there. Only the pipeline's bookkeeping
in the metadata DB (the table's ``lastLoadAt``) is skipped: pushing millions of rows through
/append-rows would take longer than the queries being measured.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.catalog.sql import SqlCatalog

from sinks.duckdb_engine import connect, extension_path
from sinks.iceberg import catalog as iceberg
from sinks.iceberg import writer

# DuckDB's dbgen types: identifiers are BIGINT (LONG) except the small nation/region keys and sizes.
_COLUMNS: dict[str, list[tuple[str, str]]] = {
    "region": [("r_regionkey", "INT"), ("r_name", "STRING"), ("r_comment", "STRING")],
    "nation": [
        ("n_nationkey", "INT"),
        ("n_name", "STRING"),
        ("n_regionkey", "INT"),
        ("n_comment", "STRING"),
    ],
    "supplier": [
        ("s_suppkey", "LONG"),
        ("s_name", "STRING"),
        ("s_address", "STRING"),
        ("s_nationkey", "INT"),
        ("s_phone", "STRING"),
        ("s_acctbal", "DECIMAL(15,2)"),
        ("s_comment", "STRING"),
    ],
    "customer": [
        ("c_custkey", "LONG"),
        ("c_name", "STRING"),
        ("c_address", "STRING"),
        ("c_nationkey", "INT"),
        ("c_phone", "STRING"),
        ("c_acctbal", "DECIMAL(15,2)"),
        ("c_mktsegment", "STRING"),
        ("c_comment", "STRING"),
    ],
    "part": [
        ("p_partkey", "LONG"),
        ("p_name", "STRING"),
        ("p_mfgr", "STRING"),
        ("p_brand", "STRING"),
        ("p_type", "STRING"),
        ("p_size", "INT"),
        ("p_container", "STRING"),
        ("p_retailprice", "DECIMAL(15,2)"),
        ("p_comment", "STRING"),
    ],
    "partsupp": [
        ("ps_partkey", "LONG"),
        ("ps_suppkey", "LONG"),
        ("ps_availqty", "LONG"),
        ("ps_supplycost", "DECIMAL(15,2)"),
        ("ps_comment", "STRING"),
    ],
    "orders": [
        ("o_orderkey", "LONG"),
        ("o_custkey", "LONG"),
        ("o_orderstatus", "STRING"),
        ("o_totalprice", "DECIMAL(15,2)"),
        ("o_orderdate", "DATE"),
        ("o_orderpriority", "STRING"),
        ("o_clerk", "STRING"),
        ("o_shippriority", "INT"),
        ("o_comment", "STRING"),
    ],
    "lineitem": [
        ("l_orderkey", "LONG"),
        ("l_partkey", "LONG"),
        ("l_suppkey", "LONG"),
        ("l_linenumber", "LONG"),
        ("l_quantity", "DECIMAL(15,2)"),
        ("l_extendedprice", "DECIMAL(15,2)"),
        ("l_discount", "DECIMAL(15,2)"),
        ("l_tax", "DECIMAL(15,2)"),
        ("l_returnflag", "STRING"),
        ("l_linestatus", "STRING"),
        ("l_shipdate", "DATE"),
        ("l_commitdate", "DATE"),
        ("l_receiptdate", "DATE"),
        ("l_shipinstruct", "STRING"),
        ("l_shipmode", "STRING"),
        ("l_comment", "STRING"),
    ],
}
# Monthly partitions on the big tables' dates, so date filters skip files.
_PARTITIONS: dict[str, list[tuple[str, str]]] = {
    "lineitem": [("l_shipdate", "MONTH")],
    "orders": [("o_orderdate", "MONTH")],
}
_ARROW_TYPES: dict[str, pa.DataType] = {
    "INT": pa.int32(),
    "LONG": pa.int64(),
    "DECIMAL(15,2)": pa.decimal128(15, 2),
    "DATE": pa.date32(),
    "STRING": pa.string(),
}
TABLE_NAMES: tuple[str, ...] = tuple(_COLUMNS)


@dataclass(frozen=True)
class LoadedTable:
    name: str
    rows: int
    data_files: int


def create_request(name: str) -> dict[str, Any]:
    """The body of ``POST /svc_poweruser/analytics/tables/create`` for one TPC-H table."""
    return {
        "sqlName": name,
        "name": f"TPC-H {name}",
        "description": f"The TPC-H {name} table",
        "columns": [{"name": column, "type": kind, "nullable": False} for column, kind in _COLUMNS[name]],
        "partitionSpec": [
            {"column": column, "transform": transform} for column, transform in _PARTITIONS.get(name, [])
        ],
    }


def tpch_connection(*, threads: int = 2) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection like the service's, with the tpch extension loaded from its wheel."""
    connection = connect(threads=threads)
    connection.execute(f"LOAD '{extension_path('tpch')}'")
    return connection


def generate(scale_factor: float, *, threads: int = 2) -> dict[str, pa.Table]:
    """Every TPC-H table at ``scale_factor`` as an Arrow table with the columns of ``create_request``."""
    with tpch_connection(threads=threads) as connection:
        connection.execute("CALL dbgen(sf = ?)", [scale_factor])
        tables: dict[str, pa.Table] = {}
        for name in TABLE_NAMES:
            names = ", ".join(column for column, _ in _COLUMNS[name])
            table = connection.execute(f"SELECT {names} FROM {name}").to_arrow_table()  # noqa: S608
            expected = [_ARROW_TYPES[kind] for _, kind in _COLUMNS[name]]
            if table.schema.types != expected:
                raise RuntimeError(f"dbgen's {name} has types {table.schema.types}, expected {expected}")
            tables[name] = table
    return tables


def load(
    catalog: SqlCatalog, company_id: str, table_ids: Mapping[str, str], data: Mapping[str, pa.Table]
) -> list[LoadedTable]:
    """Append each table's rows, as one load, into the Iceberg table the service created for it."""
    loaded: list[LoadedTable] = []
    for name, table_id in table_ids.items():
        table = iceberg.load_table(catalog, company_id, table_id)
        outcome = writer.append(table, [(uuid.uuid4().hex, data[name])])
        if outcome.rows != data[name].num_rows:
            raise RuntimeError(f"{name}: {outcome.rows} of {data[name].num_rows} rows were appended")
        files = len(table.inspect.files())
        loaded.append(LoadedTable(name, outcome.rows, files))
    return loaded


def write_parquet(data: Mapping[str, pa.Table], folder: Path) -> dict[str, Path]:
    """One Parquet file per table (the baseline DuckDB reads with ``read_parquet``)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for name, table in data.items():
        path = folder / f"{name}.parquet"
        pq.write_table(table, path, compression="zstd")
        paths[name] = path
    return paths
