"""Hostile SQL: every statement here must be refused by the SQL front with the given code."""

import pytest

from core.sql.front import MAX_SQL_BYTES, QueryColumn, QueryTable, SqlError, compile_query, parse_query
from schemas.column_types import parse_column_type

pytestmark = pytest.mark.unit

ORDERS = QueryTable(
    "orders",
    tuple(
        QueryColumn(n, parse_column_type(t), m)
        for n, t, m in [
            ("order_id", "LONG", False),
            ("region", "STRING", False),
            ("amount", "DECIMAL(10,2)", False),
            ("placed_at", "TIMESTAMPTZ", False),
            ("email", "STRING", True),
        ]
    ),
    ("placed_at",),
)  # the hidden column `cost DOUBLE` is not listed
CUSTOMERS = QueryTable(
    "customers",
    tuple(QueryColumn(n, parse_column_type(t)) for n, t in [("customer_id", "LONG"), ("region", "STRING")]),
)
TABLES = {"orders": ORDERS, "customers": CUSTOMERS}

P, F, T, C = "PARSE_ERROR", "FORBIDDEN_CONSTRUCT", "UNKNOWN_TABLE", "UNKNOWN_COLUMN"

HOSTILE: list[tuple[str, str]] = [
    # file and URL readers
    ("SELECT * FROM read_csv('/etc/passwd')", F),
    ("SELECT * FROM read_csv_auto('/etc/passwd')", F),
    ("SELECT * FROM read_parquet('s3://bucket/data.parquet')", F),
    ("SELECT * FROM read_parquet(['/a.parquet', '/b.parquet'])", F),
    ("SELECT * FROM read_json_auto('https://example.com/x.json')", F),
    ("SELECT * FROM read_json('/etc/hosts')", F),
    ("SELECT * FROM read_text('/etc/passwd')", F),
    ("SELECT * FROM read_blob('/etc/passwd')", F),
    ("SELECT * FROM glob('/*')", P),
    ("SELECT glob('/*')", P),
    ("SELECT * FROM iceberg_scan('/warehouse/c_1/t_2')", F),
    ("SELECT * FROM parquet_scan('/warehouse/x.parquet')", F),
    ("SELECT * FROM delta_scan('/warehouse/x')", F),
    ("SELECT * FROM sniff_csv('/etc/passwd')", F),
    ("SELECT * FROM query('SELECT * FROM secret_other_tenant')", F),
    ("SELECT * FROM query_table('secret_other_tenant')", F),
    ("SELECT * FROM '/etc/passwd'", F),
    ("SELECT * FROM 'https://example.com/data.csv'", F),
    ("SELECT * FROM 's3://bucket/key.parquet'", F),
    ('SELECT * FROM "/etc/passwd"', F),
    ("SELECT * FROM 'data.csv'", F),
    ("SELECT * FROM '~/x.parquet'", F),
    ("SELECT * FROM orders JOIN read_csv('/etc/passwd') ON true", F),
    ("SELECT (SELECT count(*) FROM read_csv('/etc/passwd'))", F),
    ("SELECT * FROM orders WHERE region IN (SELECT * FROM read_text('/etc/passwd'))", F),
    ("WITH x AS (SELECT * FROM read_csv('/etc/passwd')) SELECT * FROM x", F),
    ("SELECT read_csv('/etc/passwd')", F),
    ("SELECT * FROM TABLE(read_csv('/etc/passwd'))", F),
    ("SELECT * FROM read_csv('/etc/' || 'passwd')", F),
    ("SELECT * FROM read_csv(concat('/etc/', 'passwd'))", F),
    ("SELECT * FROM \"read_csv\"('/etc/passwd')", F),
    ("SELECT * FROM ReAd_CsV('/etc/passwd')", F),
    ("SELECT * FROM READ_PARQUET('/x')", F),
    ("SELECT * FROM \uff52ead_csv('/etc/passwd')", F),
    ("SELECT * FROM read_csv\u200b('/etc/passwd')", F),
    ("SELECT * FROM `read_csv`('/etc/passwd')", P),
    ("SELECT * FROM `orders`", P),
    ("SELECT E'\\x2fetc\\x2fpasswd'", P),
    ("SELECT * FROM read_csv($$/etc/passwd$$)", F),
    ("SELECT $$/etc/passwd$$", F),
    # settings and system state
    ("SET enable_external_access = true", F),
    ("SET lock_configuration = false", F),
    ("RESET enable_external_access", F),
    ("PRAGMA table_info('orders')", F),
    ("PRAGMA enable_profiling", F),
    ("SELECT current_setting('enable_external_access')", F),
    ("SELECT set_config('x', 'y', false)", F),
    ("SELECT * FROM duckdb_settings()", F),
    ("SELECT * FROM duckdb_tables()", F),
    ("SELECT * FROM duckdb_extensions()", F),
    ("SELECT * FROM duckdb_views()", F),
    ("SELECT * FROM duckdb_secrets()", F),
    ("SELECT * FROM pragma_table_info('orders')", F),
    ("SELECT * FROM information_schema.tables", T),
    ("SELECT * FROM information_schema.columns WHERE table_name = 'orders'", T),
    ("SELECT * FROM pg_catalog.pg_tables", T),
    ("SELECT * FROM sqlite_master", T),
    ("SELECT * FROM duckdb_columns", T),
    ("SELECT getenv('HOME')", F),
    ("SELECT version()", F),
    ("SELECT current_database()", F),
    ("SELECT current_schema()", F),
    ("SELECT current_user", F),
    ("SELECT typeof(region) FROM orders", F),
    ("SELECT random()", F),
    ("SELECT nextval('s')", F),
    ("SELECT * FROM range(10)", F),
    ("SELECT * FROM generate_series(1, 10)", F),
    # several statements
    ("SELECT 1; DROP TABLE orders", F),
    ("SELECT 1; SELECT 2", F),
    ("SELECT 1;; SELECT 2", F),
    ("SELECT * FROM orders; COPY orders TO '/tmp/x.csv'", F),
    ("SELECT 1; ATTACH '/tmp/x.db' AS x", P),
    # DML and DDL
    ("INSERT INTO orders VALUES (1)", F),
    ("INSERT INTO orders SELECT * FROM orders", F),
    ("UPDATE orders SET region = 'x'", F),
    ("DELETE FROM orders", F),
    ("CREATE TABLE x AS SELECT * FROM orders", F),
    ("CREATE VIEW v AS SELECT * FROM orders", F),
    ('CREATE TEMP VIEW "orders#svc" AS SELECT 1', F),
    ("CREATE MACRO m(x) AS x", F),
    ("DROP TABLE orders", F),
    ('DROP VIEW "orders#svc"', F),
    ("ALTER TABLE orders ADD COLUMN x INT", F),
    ("TRUNCATE TABLE orders", F),
    ("MERGE INTO orders USING customers ON true WHEN MATCHED THEN DELETE", F),
    ("COPY orders TO '/tmp/out.csv'", F),
    ("COPY (SELECT * FROM orders) TO '/tmp/out.parquet' (FORMAT parquet)", F),
    ("ATTACH '/tmp/x.db' AS x", P),
    ("DETACH x", F),
    ("INSTALL httpfs", F),
    ("LOAD httpfs", F),
    ("CALL dbgen(sf = 1)", F),
    ("EXPORT DATABASE '/tmp/x'", P),
    ("IMPORT DATABASE '/tmp/x'", P),
    ("USE memory", F),
    ("CHECKPOINT", F),
    ("VACUUM", F),
    ("SELECT * INTO stolen FROM orders", F),
    ("SHOW TABLES", F),
    ("DESCRIBE orders", F),
    ("EXPLAIN SELECT * FROM orders", F),
    ("EXPLAIN ANALYZE SELECT 1", F),
    ("GRANT SELECT ON orders TO public", F),
    ("SELECT * FROM orders FOR UPDATE", F),
    # comment and quoting tricks
    ("SELECT 1 /* ; */ ; DROP TABLE orders", F),
    ("SELECT 1 -- harmless\n; DROP TABLE orders", F),
    ("/* SELECT */ DROP TABLE orders", F),
    ("SELECT 1 /* nested /* comment */ ; DROP TABLE orders */", P),
    ("SELECT region FROM orders -- \n WHERE email = 'x'", F),
    ("SELECT * FROM orders /* */ JOIN read_csv('/etc/passwd') ON true", F),
    # other tenants and the view names
    ("SELECT * FROM secret_other_tenant", T),
    ("SELECT * FROM orders JOIN secret_other_tenant ON true", T),
    ("WITH x AS (SELECT * FROM secret_other_tenant) SELECT * FROM x", T),
    ("SELECT * FROM orders WHERE order_id IN (SELECT order_id FROM secret_other_tenant)", T),
    ("SELECT * FROM other.orders", T),
    ("SELECT * FROM memory.main.orders", T),
    ("SELECT * FROM main.orders", T),
    ('SELECT * FROM "orders#svc"', T),
    ('SELECT * FROM "customers#svc"', T),
    ('SELECT * FROM "ORDERS#SVC"', T),
    # hidden and unknown columns
    ("SELECT cost FROM orders", C),
    ("SELECT orders.cost FROM orders", C),
    ("SELECT o.cost FROM orders o", C),
    ("SELECT region FROM orders WHERE cost > 1", C),
    ("SELECT region FROM orders ORDER BY cost", C),
    ("SELECT sum(cost) FROM orders", C),
    ("SELECT region FROM orders GROUP BY region HAVING max(cost) > 1", C),
    ("WITH x AS (SELECT cost FROM orders) SELECT 1 FROM x", C),
    ("SELECT o.cost FROM orders o JOIN customers c ON true", C),
    ("SELECT orders FROM orders", C),
    ("SELECT t FROM (SELECT email FROM orders) t", C),
    ("SELECT region FROM orders JOIN customers ON true", C),
    ("SELECT main.orders.region FROM orders", C),
    # masked column misuse
    ("SELECT region FROM orders WHERE email = 'a@b.c'", F),
    ("SELECT region FROM orders WHERE email LIKE '%@b.c'", F),
    ("SELECT region FROM orders WHERE email IN ('a', 'b')", F),
    ("SELECT region FROM orders WHERE email > 'm'", F),
    ("SELECT email FROM orders GROUP BY email", F),
    ("SELECT email, count(*) FROM orders GROUP BY 1", F),
    ("SELECT email FROM orders ORDER BY email", F),
    ("SELECT email FROM orders ORDER BY 1", F),
    ("SELECT email AS e FROM orders ORDER BY e", F),
    ("SELECT lower(email) FROM orders", F),
    ("SELECT length(email) FROM orders", F),
    ("SELECT substr(email, 1, 3) FROM orders", F),
    ("SELECT CAST(email AS VARCHAR) FROM orders", F),
    ("SELECT count(DISTINCT email) FROM orders", F),
    ("SELECT approx_distinct(email) FROM orders", F),
    ("SELECT min(email), max(email) FROM orders", F),
    ("SELECT email || 'x' FROM orders", F),
    ("SELECT concat(email, '') FROM orders", F),
    ("SELECT * FROM orders o JOIN customers c ON o.email = c.region", F),
    ("SELECT * FROM orders a JOIN orders b USING (email)", F),
    ("SELECT DISTINCT email FROM orders", F),
    ("SELECT DISTINCT * FROM orders", F),
    ("SELECT row_number() OVER (PARTITION BY email) FROM orders", F),
    ("SELECT lag(email) OVER (ORDER BY order_id) FROM orders", F),
    ("SELECT CASE WHEN email = 'x' THEN 1 END FROM orders", F),
    ("SELECT coalesce(email, 'none') FROM orders", F),
    ("SELECT email FROM orders UNION ALL SELECT region FROM customers", F),
    ("SELECT region FROM customers WHERE region IN (SELECT email FROM orders)", F),
    ("SELECT (SELECT email FROM orders LIMIT 1)", F),
    ("WITH x AS (SELECT email AS e FROM orders) SELECT e FROM x WHERE e = 'a'", F),
    ("WITH x AS (SELECT email AS e FROM orders) SELECT count(DISTINCT e) FROM x", F),
    ("SELECT e FROM (SELECT email AS e FROM orders) GROUP BY e", F),
    ("SELECT email IS NOT DISTINCT FROM 'x' FROM orders", F),
    ("SELECT region FROM orders WHERE NOT (email <> 'x')", F),
    # parameters, recursion, parse errors, size
    ("SELECT * FROM orders WHERE order_id = ?", F),
    ("SELECT * FROM orders WHERE order_id = $1", F),
    ("SELECT * FROM orders WHERE order_id = :id", F),
    ("WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r) SELECT * FROM r", F),
    ("SELEC 1", P),
    ("SELECT (1", P),
    ("SELECT * FROM orders WHERE (region = 'EU'", P),
    ("SELECT 'unterminated", P),
    ("SELECT 1 FROM", P),
    ("", P),
    ("   \n  ", P),
    (";", P),
    ("SELECT 1" + " " * MAX_SQL_BYTES, P),
    ("SELECT * FROM orders GROUP BY ALL", F),
    ("SELECT * FROM orders NATURAL JOIN customers", F),
    ("SELECT * FROM orders, LATERAL (SELECT 1)", F),
    ("SELECT transform(ARRAY[1], x -> x + 1)", F),
    ("SELECT * FROM orders TABLESAMPLE BERNOULLI (10)", F),
]


def _refuse(sql: str) -> SqlError:
    with pytest.raises(SqlError) as info:
        compile_query(parse_query(sql), TABLES)
    return info.value


@pytest.mark.parametrize(("sql", "code"), HOSTILE)
def test_hostile_sql_is_refused(sql: str, code: str) -> None:
    error = _refuse(sql)
    assert error.code == code, error
    assert error.message
    if code == F:
        assert error.hint


def test_corpus_is_large_enough() -> None:
    assert len(HOSTILE) >= 120


@pytest.mark.parametrize(
    "sql",
    ["SELEC 1", "SELECT (1", "SELECT 1 FROM orders WHERE\n  (", "SELECT 'unterminated"],
)
def test_parse_errors_name_a_position(sql: str) -> None:
    message = _refuse(sql).message
    assert "line " in message and "column " in message


def test_exactly_100_kb_parses_and_one_more_byte_does_not() -> None:
    sql = "SELECT 1"
    parse_query(sql + " " * (MAX_SQL_BYTES - len(sql)))
    assert _refuse(sql + " " * (MAX_SQL_BYTES - len(sql) + 1)).message == "SQL is larger than 100 KB"


def test_multibyte_characters_count_as_bytes() -> None:
    sql = "SELECT '" + "é" * (MAX_SQL_BYTES // 2) + "'"
    assert _refuse(sql).code == P
