"""The SQL front's JSON codec and sandbox tasks: every input and output survives JSON unchanged, and the
tasks answer exactly what the front answers in process (refusals as data)."""

from __future__ import annotations

import importlib
import json
import sys
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest

from core.sql import remote
from core.sql.front import (
    CompiledQuery,
    MaskedOutput,
    QueryColumn,
    QueryTable,
    SqlError,
    compile_query,
    parse_query,
    partition_predicates,
)
from ingress.analytics import sql_analysis
from ingress.errors import ApiError
from schemas.column_types import parse_column_type
from schemas.settings import Settings
from sinks.scripting.tasks import TASKS
from sinks.scripting.workers import SandboxBusy, TaskBudget, TaskBudgetExceeded, TaskFailed
from tests.tpch import data as tpch
from tests.tpch.oracle import QUERY_NUMBERS, trino_sql

pytestmark = pytest.mark.unit


def _through_json(value: Any) -> Any:
    return json.loads(json.dumps(value, allow_nan=False))


ORDERS = QueryTable(
    "orders",
    tuple(
        QueryColumn(n, parse_column_type(t), m)
        for n, t, m in [
            ("order_id", "LONG", False),
            ("region", "STRING", False),
            ("amount", "DECIMAL(10,2)", False),
            ("placed_at", "TIMESTAMPTZ", False),
            ("placed_local", "TIMESTAMP", False),
            ("placed_on", "DATE", False),
            ("email", "STRING", True),
            ("tags", "STRING_LIST", False),
            ("payload", "JSON", False),
            ("ratio", "DOUBLE", False),
            ("paid", "BOOLEAN", False),
        ]
    ),
    ("placed_at", "region"),
)
TABLES = {"orders": ORDERS}


def test_a_table_shape_round_trips() -> None:
    assert remote.decode_table(_through_json(remote.encode_table(ORDERS))) == ORDERS


def test_a_compiled_query_round_trips() -> None:
    compiled = CompiledQuery(
        sql='SELECT "o"."email" AS "email" FROM "orders#svc" AS "o"',
        views={"orders": "orders#svc"},
        output_names=("email", "n"),
        masked_outputs=(MaskedOutput("orders", "email"), None),
        tables=("orders",),
        json_outputs=(False, True),
    )
    assert remote.decode_compiled(_through_json(remote.encode_compiled(compiled))) == compiled


VALUES: list[object] = [
    0,
    -17,
    2**80,
    True,
    False,
    1.5,
    0.1,
    -2.5e-300,
    float("inf"),
    Decimal("10.50"),
    Decimal("-0.001"),
    "EU",
    "",
    'it\'s "quoted" \u00e9',
    date(2024, 1, 5),
    datetime(2024, 1, 5, 10, 0, tzinfo=UTC),
    datetime(2024, 1, 5, 10, 0, 0, 123456, tzinfo=timezone(timedelta(hours=-5))),
    datetime(2024, 1, 5, 10, 0, 0, 999999),  # noqa: DTZ001 - a TIMESTAMP column's value is naive
    [1, 2, 3],
    ["a", Decimal("1.2"), date(2024, 2, 29)],
    [],
]


@pytest.mark.parametrize("value", VALUES, ids=[repr(v) for v in VALUES])
def test_a_predicate_value_round_trips_with_its_type(value: object) -> None:
    back = remote.decode_value(_through_json(remote.encode_value(value)))
    assert back == value
    assert type(back) is type(value)
    if isinstance(value, datetime):
        assert isinstance(back, datetime) and back.tzinfo == value.tzinfo
    if isinstance(value, list):
        assert isinstance(back, list)
        assert [type(v) for v in back] == [type(v) for v in value]


def test_unknown_value_types_are_refused_both_ways() -> None:
    with pytest.raises(TypeError):
        remote.encode_value(object())
    with pytest.raises(ValueError, match="unknown"):
        remote.decode_value({"pickle": "x"})


def test_predicates_round_trip() -> None:
    predicates = {
        "orders": [
            [("placed_at", ">=", datetime(2024, 1, 1, tzinfo=UTC)), ("region", "in", ["EU", "US"])],
            [],
        ],
        "customers": [[("amount", "<", Decimal("9.99")), ("placed_on", "=", date(2024, 1, 2))]],
    }
    assert remote.decode_predicates(_through_json(remote.encode_predicates(predicates))) == predicates


def test_an_error_round_trips() -> None:
    for error in (SqlError("PARSE_ERROR", "bad", "fix it"), SqlError("UNKNOWN_TABLE", "no table")):
        back = remote.decode_error(_through_json(remote.encode_error(error)))
        assert back is not None
        assert (back.code, back.message, back.hint) == (error.code, error.message, error.hint)
    assert remote.decode_error({"tables": []}) is None


QUERIES = [
    "SELECT region, sum(amount) AS total FROM orders WHERE placed_at >= TIMESTAMP '2024-01-01 00:00:00 UTC' "
    "AND region IN ('EU', 'US') AND amount > 10.50 GROUP BY region",
    "SELECT o.region, count(o.email) AS n FROM orders o WHERE o.placed_on BETWEEN DATE '2024-01-01' "
    "AND DATE '2024-01-31' AND o.ratio < 1e3 AND o.paid = true GROUP BY o.region",
    "SELECT payload, placed_local FROM orders WHERE placed_local > TIMESTAMP '2024-01-05 10:00:00.123456'",
    "WITH recent AS (SELECT * FROM orders WHERE order_id > -5) SELECT email FROM recent",
    "SELECT * FROM orders",
]


def _in_process(sql: str, tables: dict[str, QueryTable]) -> dict[str, Any]:
    parsed = parse_query(sql)
    return {
        "compiled": compile_query(parsed, tables),
        "predicates": partition_predicates(parsed, tables),
    }


def _task(sql: str, tables: dict[str, QueryTable]) -> dict[str, Any]:
    payload = _through_json({"sql": sql, "tables": [remote.encode_table(t) for t in tables.values()]})
    result = _through_json(remote.compile_task(payload))
    assert "error" not in result, result
    return {
        "compiled": remote.decode_compiled(result["compiled"]),
        "predicates": remote.decode_predicates(result["predicates"]),
    }


@pytest.mark.parametrize("sql", QUERIES)
def test_the_tasks_answer_what_the_front_answers(sql: str) -> None:
    names = _through_json(remote.parse_task({"sql": sql}))
    assert tuple(names["tables"]) == parse_query(sql).table_names
    assert _task(sql, TABLES) == _in_process(sql, TABLES)


def _tpch_tables() -> dict[str, QueryTable]:
    return {
        name: QueryTable(name, tuple(QueryColumn(c, parse_column_type(k)) for c, k in tpch._COLUMNS[name]))
        for name in tpch.TABLE_NAMES
    }


@pytest.mark.parametrize("number", QUERY_NUMBERS)
def test_tpch_queries_compile_the_same_through_the_tasks(number: int) -> None:
    tables = _tpch_tables()
    sql = trino_sql(number)
    used = {name: tables[name] for name in parse_query(sql).table_names}
    assert _task(sql, used) == _in_process(sql, used)


@pytest.mark.parametrize(
    ("task", "payload", "code"),
    [
        (remote.parse_task, {"sql": "SELEC 1"}, "PARSE_ERROR"),
        (remote.parse_task, {"sql": "DROP TABLE orders"}, "FORBIDDEN_CONSTRUCT"),
        (remote.parse_task, {"sql": "SELECT " + "(" * 30 + "1" + ")" * 30}, "PARSE_ERROR"),
        (remote.compile_task, {"sql": "SELECT * FROM customers", "tables": []}, "UNKNOWN_TABLE"),
        (
            remote.compile_task,
            {"sql": "SELECT nope FROM orders", "tables": [remote.encode_table(ORDERS)]},
            "UNKNOWN_COLUMN",
        ),
    ],
)
def test_refusals_are_answered_as_data(task: Any, payload: dict[str, Any], code: str) -> None:
    result = _through_json(task(payload))
    error = remote.decode_error(result)
    assert error is not None and error.code == code and error.message


def test_recursion_exhausted_in_a_task_is_a_parse_error_answered_as_data() -> None:
    sql = "SELECT " + "abs(" * 20 + "order_id" + ")" * 20 + " AS x FROM orders"
    payload = {"sql": sql, "tables": [remote.encode_table(ORDERS)]}
    previous = sys.getrecursionlimit()
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1  # type: ignore[assignment]
    sys.setrecursionlimit(depth + 100)
    try:
        result = remote.compile_task(payload)
    finally:
        sys.setrecursionlimit(previous)
    error = remote.decode_error(result)
    assert error is not None and error.code == "PARSE_ERROR" and "nested too deeply" in error.message


# --- the ingress side: where the analysis runs, its caches, and how the pool's answers map ---------------


class _Pool:
    """Runs the registered task in this process, as a worker would, and counts the calls; or raises."""

    def __init__(self, failure: Exception | None = None) -> None:
        self.calls: list[str] = []
        self.failure = failure

    def run_task(self, kind: str, payload: Any, *, tenant: str | None, budget: TaskBudget) -> Any:
        self.calls.append(kind)
        if self.failure is not None:
            raise self.failure
        module, _, function = TASKS[kind].partition(":")
        return _through_json(getattr(importlib.import_module(module), function)(_through_json(payload)))


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch) -> _Pool:
    own = _Pool()
    monkeypatch.setattr(sql_analysis, "default_pool", lambda: own)
    sql_analysis.clear_caches()
    return own


SANDBOX = sql_analysis.SqlAnalysis(in_sandbox=True, cpu_ms=700)
SHAPES = (("orders", ORDERS),)


def test_a_cache_hit_does_not_go_to_the_pool(pool: _Pool) -> None:
    sql = QUERIES[0]
    assert sql_analysis.table_names(sql, "acme", SANDBOX) == ("orders",)
    assert sql_analysis.table_names(sql, "other", SANDBOX) == ("orders",)
    first = sql_analysis.compiled(sql, SHAPES, "acme", SANDBOX)
    assert sql_analysis.compiled(sql, SHAPES, "acme", SANDBOX) == first
    assert pool.calls == ["sql_parse", "sql_compile"]
    assert first == tuple(_in_process(sql, TABLES).values())


def test_refusals_are_not_cached_and_raise_the_front_error(pool: _Pool) -> None:
    for _ in range(2):
        with pytest.raises(SqlError) as info:
            sql_analysis.table_names("SELEC 1", "acme", SANDBOX)
        assert info.value.code == "PARSE_ERROR"
    assert pool.calls == ["sql_parse", "sql_parse"]


def test_an_oversized_text_never_goes_to_the_pool(pool: _Pool) -> None:
    with pytest.raises(SqlError, match="larger than 100 KB"):
        sql_analysis.table_names("SELECT 1 -- " + "x" * 200_000, "acme", SANDBOX)
    assert pool.calls == []


def test_in_process_analysis_does_not_use_the_pool(pool: _Pool) -> None:
    here = sql_analysis.SqlAnalysis(in_sandbox=False)
    assert sql_analysis.table_names(QUERIES[0], "acme", here) == ("orders",)
    compiled, _ = sql_analysis.compiled(QUERIES[0], SHAPES, "acme", here)
    assert compiled.tables == ("orders",)
    assert pool.calls == []


@pytest.mark.parametrize(
    ("failure", "status", "code", "retry_after"),
    [
        (SandboxBusy("busy", retry_after=3), 429, "QUOTA", "3"),
        (TaskFailed("the sandbox worker stopped"), 503, None, "1"),
    ],
)
def test_pool_failures_answer_429_or_503_with_retry_after(
    monkeypatch: pytest.MonkeyPatch, failure: Exception, status: int, code: str | None, retry_after: str
) -> None:
    monkeypatch.setattr(sql_analysis, "default_pool", lambda: _Pool(failure))
    sql_analysis.clear_caches()
    with pytest.raises(ApiError) as info:
        sql_analysis.table_names("SELECT 1", "acme", SANDBOX)
    assert info.value.status == status
    assert info.value.headers["Retry-After"] == retry_after
    assert (info.value.body or {}).get("errorCode") == code


def test_over_the_cpu_budget_is_a_parse_error_naming_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sql_analysis, "default_pool", lambda: _Pool(TaskBudgetExceeded("over")))
    sql_analysis.clear_caches()
    with pytest.raises(SqlError) as info:
        sql_analysis.compiled("SELECT 1", (), "acme", SANDBOX)
    assert info.value.code == "PARSE_ERROR"
    assert info.value.message == "The query is too complex to analyse within 700 ms"
    assert info.value.hint


def test_the_budget_comes_from_the_settings() -> None:
    settings = Settings(sql_analysis_cpu_ms=1500, sql_analysis_in_sandbox=False)
    analysis = sql_analysis.SqlAnalysis.of(settings)
    assert (analysis.in_sandbox, analysis.cpu_ms) == (False, 1500)
    assert analysis.budget.cpu_ms == 1500 and analysis.budget.wall_ms > 1500
    assert sql_analysis.SqlAnalysis.of(Settings()).in_sandbox
