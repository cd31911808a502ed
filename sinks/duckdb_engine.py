"""DuckDB connections that read Iceberg tables, with the extensions loaded from their PyPI wheels (nothing is
downloaded at run time) and the session in UTC so date_trunc on TIMESTAMPTZ is not shifted."""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path

import duckdb


@cache
def extension_path(name: str) -> Path:
    package = importlib.import_module(f"duckdb_extension_{name}")
    folder = Path(next(iter(package.__path__)))
    path = folder / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if not path.exists():
        raise RuntimeError(f"the {name} extension for DuckDB {duckdb.__version__} is not installed at {path}")
    return path


def connect(*, threads: int = 2, memory_limit: str = "2GB") -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect(":memory:", config={"threads": threads, "memory_limit": memory_limit})
    for name in ("avro", "iceberg"):
        connection.execute(f"LOAD '{extension_path(name)}'")
    connection.execute("SET TimeZone = 'UTC'")
    return connection
