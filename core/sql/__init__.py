"""The SQL front of analytics queries: parse, allow-list, resolve and translate Trino SQL for DuckDB."""
