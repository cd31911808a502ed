from collections.abc import Iterator
from datetime import UTC, date, datetime
from decimal import Decimal

import duckdb
import pytest

from core.sql.front import (
    MAX_SQL_BYTES,
    CompiledQuery,
    MaskedOutput,
    QueryColumn,
    QueryTable,
    SqlError,
    compile_query,
    parse_query,
    partition_predicates,
    view_name,
)
from schemas.column_types import parse_column_type

pytestmark = pytest.mark.unit


def _table(name: str, columns: list[tuple[str, str, bool]], partitions: tuple[str, ...] = ()) -> QueryTable:
    system = [("_load_id", "STRING", False), ("_record_id", "LONG", False)]
    return QueryTable(
        name,
        tuple(QueryColumn(n, parse_column_type(t), m) for n, t, m in columns + system),
        partitions,
    )


ORDERS = _table(
    "orders",
    [
        ("order_id", "LONG", False),
        ("region", "STRING", False),
        ("amount", "DECIMAL(10,2)", False),
        ("placed_at", "TIMESTAMPTZ", False),
        ("email", "STRING", True),
        ("tags", "STRING_LIST", False),
        ("placed_on", "DATE", False),
    ],
    ("placed_at",),
)
CUSTOMERS = _table(
    "customers", [("customer_id", "LONG", False), ("region", "STRING", False), ("name", "STRING", False)]
)
TABLES = {"orders": ORDERS, "customers": CUSTOMERS}


@pytest.fixture(scope="module")
def db() -> Iterator[duckdb.DuckDBPyConnection]:
    connection = duckdb.connect()
    connection.execute("SET TimeZone = 'UTC'")
    connection.execute(
        """CREATE TABLE "orders#svc" AS SELECT * FROM (VALUES
        (1, 'EU', 10.50::DECIMAL(10,2), TIMESTAMPTZ '2024-01-05 10:00:00+00', 'enc:a', ['x', 'y'],
         DATE '2024-01-05', 'l1', 1),
        (2, 'EU', 20.00::DECIMAL(10,2), TIMESTAMPTZ '2024-02-05 10:00:00+00', NULL, ['y'], DATE '2024-02-05',
         'l1', 2),
        (3, 'US', 5.25::DECIMAL(10,2), TIMESTAMPTZ '2024-03-05 10:00:00+00', 'enc:c', [], DATE '2024-03-05',
         'l2', 3)
        ) AS t(order_id, region, amount, placed_at, email, tags, placed_on, _load_id, _record_id)"""
    )
    connection.execute(
        """CREATE TABLE "customers#svc" AS SELECT * FROM (VALUES
        (10, 'EU', 'Ann', 'l9', 1), (11, 'US', 'Bob', 'l9', 2)
        ) AS t(customer_id, region, name, _load_id, _record_id)"""
    )
    yield connection
    connection.close()


def compile_sql(sql: str) -> CompiledQuery:
    return compile_query(parse_query(sql), TABLES)


def run(db: duckdb.DuckDBPyConnection, compiled: CompiledQuery) -> list[tuple[object, ...]]:
    cursor = db.execute(compiled.sql)
    assert tuple(d[0] for d in cursor.description) == compiled.output_names
    assert len(compiled.masked_outputs) == len(compiled.output_names)
    return cursor.fetchall()


E = MaskedOutput("orders", "email")

ACCEPTED: list[tuple[str, tuple[MaskedOutput | None, ...] | None, int | None]] = [
    ("SELECT * FROM orders", (None, None, None, None, E, None, None, None, None), 3),
    (
        "SELECT o.* FROM orders o WHERE o.region = 'EU'",
        (None, None, None, None, E, None, None, None, None),
        2,
    ),
    ("SELECT email AS contact, region FROM orders", (E, None), 3),
    ("WITH c AS (SELECT email AS e, region FROM orders) SELECT e, region FROM c", (E, None), 3),
    ("WITH c AS (SELECT * FROM orders) SELECT x.email FROM (SELECT email FROM c) x", (E,), 3),
    ("SELECT count(email), count(*) FROM orders", (None, None), 1),
    ("SELECT region FROM orders WHERE email IS NULL", (None,), 1),
    ("SELECT region, email IS NOT NULL AS has_email FROM orders", (None, None), 3),
    (
        "SELECT region, count(email) FILTER (WHERE amount > 6) AS n FROM orders GROUP BY region",
        (None, None),
        2,
    ),
    ("WITH orders AS (SELECT 1 AS x) SELECT x FROM orders", (None,), 1),
    ("WITH big AS (SELECT * FROM orders WHERE amount > 6) SELECT count(*) FROM big", (None,), 1),
    ("SELECT region, sum(amount) AS total FROM orders GROUP BY region ORDER BY total DESC", (None, None), 2),
    ("SELECT order_id, row_number() OVER (PARTITION BY region ORDER BY amount) AS rn FROM orders", None, 3),
    ("SELECT o.order_id, c.name FROM orders o JOIN customers c ON o.region = c.region", None, 3),
    ("SELECT o.order_id, c.name FROM orders o LEFT JOIN customers c USING (region)", None, 3),
    ("SELECT region FROM orders UNION SELECT region FROM customers", None, 2),
    ("SELECT region FROM orders UNION ALL SELECT name FROM customers", None, 5),
    ("SELECT order_id, tag FROM orders CROSS JOIN UNNEST(tags) AS t(tag)", None, 3),
    ("SELECT x FROM UNNEST(ARRAY[1, 2, 3]) AS t(x) WHERE x > 1", None, 2),
    ("SELECT region FROM orders WHERE order_id IN (SELECT order_id FROM orders WHERE amount > 6)", None, 2),
    (
        "SELECT region FROM orders o WHERE EXISTS (SELECT 1 FROM customers c WHERE c.region = o.region)",
        None,
        3,
    ),
    ("SELECT (SELECT max(amount) FROM orders) AS top", None, 1),
    ("SELECT DISTINCT region FROM orders ORDER BY 1 LIMIT 1 OFFSET 1", None, 1),
    ("SELECT region, count(*) FROM orders GROUP BY ROLLUP (region)", None, 3),
    ("SELECT date_trunc('month', placed_at) AS m, count(*) FROM orders GROUP BY 1", None, 3),
    ("VALUES (1, 'a'), (2, 'b')", None, 2),
    ("(SELECT 1 AS a);", None, 1),
    ('SELECT "REGION" FROM "Orders" AS "O"', None, 3),
    ("SELECT _load_id, _record_id FROM orders", None, 3),
    ("SELECT 1 /* ; DROP TABLE orders */ AS one -- trailing comment", None, 1),
]


@pytest.mark.parametrize(("sql", "masked", "rows"), ACCEPTED)
def test_accepted_queries_run(
    db: duckdb.DuckDBPyConnection, sql: str, masked: tuple[MaskedOutput | None, ...] | None, rows: int | None
) -> None:
    compiled = compile_sql(sql)
    result = run(db, compiled)
    if rows is not None:
        assert len(result) == rows
    if masked is not None:
        assert compiled.masked_outputs == masked
    else:
        assert all(m is None for m in compiled.masked_outputs)


def test_output_names_keep_user_names(db: duckdb.DuckDBPyConnection) -> None:
    compiled = compile_sql("SELECT region, amount AS total, count(*) OVER () FROM orders")
    assert compiled.output_names[:2] == ("region", "total")
    run(db, compiled)


def test_views_and_tables() -> None:
    compiled = compile_sql(
        "SELECT c.name FROM customers c JOIN orders USING (region) JOIN customers d ON true"
    )
    assert compiled.tables == ("customers", "orders")
    assert compiled.views == {"customers": "customers#svc", "orders": "orders#svc"}
    assert '"customers#svc" AS "c"' in compiled.sql
    assert '"orders#svc" AS "orders"' in compiled.sql


def test_table_names_skip_ctes_in_scope() -> None:
    parsed = parse_query(
        "WITH a AS (SELECT * FROM orders), b AS (SELECT * FROM a) SELECT * FROM b JOIN customers ON true"
    )
    assert parsed.table_names == ("orders", "customers")
    # A CTE is not visible inside itself or earlier CTEs: there the name is a table.
    parsed = parse_query("WITH a AS (SELECT * FROM b), b AS (SELECT 1 AS x) SELECT * FROM a")
    assert parsed.table_names == ("b",)
    assert parse_query('SELECT * FROM "ORDERS"').table_names == ("orders",)


def test_view_name_is_not_a_plain_identifier() -> None:
    assert view_name("orders") == "orders#svc"
    with pytest.raises(SqlError) as info:
        compile_sql('SELECT * FROM "orders#svc"')
    assert info.value.code == "UNKNOWN_TABLE"


def test_unknown_table_message_hides_the_reason() -> None:
    with pytest.raises(SqlError) as info:
        compile_sql("SELECT * FROM secret_other_tenant")
    assert (info.value.code, info.value.message, info.value.hint) == (
        "UNKNOWN_TABLE",
        'Table "secret_other_tenant" does not exist or you cannot read it',
        None,
    )


def test_unknown_column_hint_lists_visible_columns() -> None:
    with pytest.raises(SqlError) as info:
        compile_sql("SELECT cost FROM orders")
    assert info.value.code == "UNKNOWN_COLUMN"
    assert info.value.message == 'Column "cost" does not exist in table "orders"'
    assert info.value.hint is not None and info.value.hint.startswith("Available columns in orders: order_id")
    assert "cost" not in info.value.hint


def test_ambiguous_column_asks_to_qualify() -> None:
    with pytest.raises(SqlError) as info:
        compile_sql("SELECT region FROM orders JOIN customers ON true")
    assert info.value.code == "UNKNOWN_COLUMN"
    assert info.value.hint == "Qualify it with its table: orders.region, customers.region"


def test_masked_misuse_hint() -> None:
    with pytest.raises(SqlError) as info:
        compile_sql("SELECT region FROM orders WHERE email = 'a'")
    assert info.value.code == "FORBIDDEN_CONSTRUCT"
    assert (
        info.value.hint == 'Column "email" is masked: it can only be selected, counted or tested with IS NULL'
    )


def test_parse_error_names_the_position() -> None:
    with pytest.raises(SqlError) as info:
        parse_query("SELECT region\nFROM orders WHERE (")
    assert info.value.code == "PARSE_ERROR"
    assert "line 2, column" in info.value.message


def test_size_limit() -> None:
    padding = " " * (MAX_SQL_BYTES - len("SELECT 1"))
    assert parse_query("SELECT 1" + padding).table_names == ()
    with pytest.raises(SqlError) as info:
        parse_query("SELECT 1" + padding + " ")
    assert info.value.code == "PARSE_ERROR"


def _predicates(sql: str) -> dict[str, list[list[tuple[str, str, object]]]]:
    return partition_predicates(parse_query(sql), TABLES)


def test_predicates_from_where() -> None:
    found = _predicates(
        "SELECT * FROM orders WHERE placed_at >= TIMESTAMP '2024-01-01 00:00:00' AND region IN ('EU', 'US') "
        "AND amount BETWEEN 1 AND 2.5 AND 10 > order_id AND placed_on = DATE '2024-01-05' "
        "AND (region = 'x' OR amount > 1) AND lower(region) = 'eu'"
    )
    assert found == {
        "orders": [
            [
                ("placed_at", ">=", datetime(2024, 1, 1, tzinfo=UTC)),
                ("region", "in", ["EU", "US"]),
                ("amount", ">=", 1),
                ("amount", "<=", Decimal("2.5")),
                ("order_id", "<", 10),
                ("placed_on", "=", date(2024, 1, 5)),
            ]
        ]
    }


def test_predicates_per_occurrence_and_joins() -> None:
    found = _predicates(
        "SELECT * FROM orders o LEFT JOIN customers c ON o.region = c.region AND c.customer_id = 1 "
        "AND o.order_id = 5 WHERE o.amount > 1 "
        "UNION ALL SELECT * FROM orders o2 RIGHT JOIN customers c2 ON c2.customer_id = 2 AND o2.order_id = 3"
    )
    assert found["orders"] == [[("amount", ">", 1)], [("order_id", "=", 3)]]
    assert found["customers"] == [[("customer_id", "=", 1)], []]


def test_predicates_ignore_unqualified_columns_with_several_sources() -> None:
    found = _predicates("SELECT * FROM orders, customers WHERE customer_id = 1 AND orders.order_id = 2")
    assert found == {"orders": [[("order_id", "=", 2)]], "customers": [[]]}


def test_predicates_skip_masked_and_ctes() -> None:
    found = _predicates(
        "WITH x AS (SELECT * FROM orders WHERE order_id = 1) "
        "SELECT * FROM x WHERE order_id = 2 AND email = 'a'"
    )
    assert found == {"orders": [[("order_id", "=", 1)]]}


EVENTS = _table("events", [("event_id", "LONG", False), ("payload", "JSON", False)])


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT payload FROM events", (True,)),
        ("SELECT event_id, payload AS body FROM events", (False, True)),
        ("SELECT * FROM events", (False, True, False, False)),
        ("WITH e AS (SELECT payload FROM events) SELECT payload FROM e", (True,)),
        ("SELECT p FROM (SELECT payload AS p FROM events) AS t", (True,)),
        ("SELECT json_extract_scalar(payload, '$.a') AS a FROM events", (False,)),
        ("SELECT CAST(payload AS VARCHAR) AS text FROM events", (False,)),
        ("SELECT payload FROM events UNION ALL SELECT payload FROM events", (False,)),
    ],
)
def test_outputs_that_carry_a_json_column_unchanged(sql: str, expected: tuple[bool, ...]) -> None:
    compiled = compile_query(parse_query(sql), {"events": EVENTS})
    assert compiled.json_outputs == expected
