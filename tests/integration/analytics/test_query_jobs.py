"""Query jobs end to end: the ingress checks and plans, Kafka carries the job, the worker runs DuckDB over
the Iceberg tables, and the results come back as previews, pages and signed downloads."""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path
from typing import Any

import httpx
import pyarrow.parquet as pq
import pytest

from schemas.settings import Settings
from tests.fixtures import module_stack
from tests.fixtures.stack import Ingress, make_settings
from tests.fixtures.tables import ORDER_ROWS, Tables
from tests.fixtures.worker import Worker

pytestmark = pytest.mark.integration

ROWS = ORDER_ROWS
# Long enough to still be running when it is cancelled: a cross product of 4^20 rows.
SLOW = "SELECT count(*) AS n FROM " + ", ".join(f"orders o{i}" for i in range(20))  # noqa: S608


# The module's one stack (tests/fixtures/module_stack.py); each test has its own companies and table.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(stack_dir / "data", kafka_bootstrap=kafka_bootstrap)


@pytest.fixture
def orders(tables_world: Tables, worker: Worker) -> str:
    table_id = tables_world.create()
    answer = tables_world.analytics("append-rows", table_id, {"rows": ROWS})
    assert answer.status_code == 200, answer.text
    tables_world.wait_rows(table_id, len(ROWS))
    return table_id


def query(world: Tables, table_id: str, sql: str, key: str | None = None, **extra: Any) -> httpx.Response:
    return world.analytics("query", table_id, {"sql": sql, "waitMs": 20_000, **extra}, key)


def test_a_query_answers_with_its_preview(tables_world: Tables, orders: str) -> None:
    answer = query(
        tables_world,
        orders,
        "SELECT region, count(*) AS n, sum(amount) AS total, date_trunc('month', max(placed_at)) AS last "
        "FROM orders GROUP BY region ORDER BY n DESC, region",
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["state"] == "SUCCEEDED", body
    assert body["jobId"] and body["bytesScanned"] > 0 and body["error"] is None
    preview = body["preview"]
    assert [c["name"] for c in preview["columns"]] == ["region", "n", "total", "last"]
    assert preview["rows"][0] == {
        "region": "EU",
        "n": 2,
        "total": "12.60",
        "last": "2026-11-01T00:00:00.000000Z",
    }
    assert preview["totalRows"] == 3 and preview["truncated"] is False
    assert answer.headers["X-Request-Id"] != body["jobId"]


def test_masked_columns_are_masked_unless_revealed(tables_world: Tables, orders: str) -> None:
    sql = "SELECT order_id, email FROM orders ORDER BY order_id"
    masked = query(tables_world, orders, sql).json()["preview"]
    assert [r["email"] for r in masked["rows"]] == ["••••••••", None, "••••••••", "••••••••"]
    email = masked["columns"][1]
    assert email["masked"] is True and email["revealable"] is True and email["revealed"] is False
    revealed = query(tables_world, orders, sql, reveal=True).json()["preview"]
    assert [r["email"] for r in revealed["rows"]] == ["a@x.io", None, "b@y.io", "c@z.io"]
    refused = query(tables_world, orders, "SELECT lower(email) FROM orders")
    assert refused.status_code == 400 and refused.json()["errorCode"] == "FORBIDDEN_CONSTRUCT"


def test_bad_sql_is_refused_by_the_call(tables_world: Tables, orders: str) -> None:
    cases = {
        "SELEC 1": ("PARSE_ERROR", 400),
        "DELETE FROM orders": ("FORBIDDEN_CONSTRUCT", 400),
        "SELECT * FROM read_csv('/etc/passwd')": ("FORBIDDEN_CONSTRUCT", 400),
        "SELECT 1; SELECT 2": ("FORBIDDEN_CONSTRUCT", 400),
        "SELECT * FROM customers": ("UNKNOWN_TABLE", 400),
        "SELECT nope FROM orders": ("UNKNOWN_COLUMN", 400),
    }
    for sql, (code, status) in cases.items():
        answer = query(tables_world, orders, sql)
        assert answer.status_code == status, (sql, answer.text)
        assert answer.json()["errorCode"] == code, sql
    assert "order_id" in query(tables_world, orders, "SELECT nope FROM orders").json()["hint"]
    listed = tables_world.analytics("jobs", orders, {"kind": "QUERY"}).json()["jobs"]
    assert listed == []


def test_grants_shape_what_a_member_queries(tables_world: Tables, orders: str) -> None:
    member = tables_world.member_client
    sql = "SELECT * FROM orders ORDER BY order_id"
    assert query(tables_world, orders, sql, member).json()["errorCode"] == "FORBIDDEN"
    grant = {
        "tableId": orders,
        "userId": tables_world.member_id,
        "level": "READ",
        "rowFilter": "region = 'EU'",
        "hiddenColumns": ["amount"],
    }
    assert tables_world.admin("grant", grant).status_code == 200
    body = query(tables_world, orders, sql, member, reveal=True).json()
    preview = body["preview"]
    names = [c["name"] for c in preview["columns"]]
    assert "amount" not in names and names[:2] == ["order_id", "region"]
    assert [r["order_id"] for r in preview["rows"]] == [1, 3]
    assert {r["email"] for r in preview["rows"]} == {"••••••••"}  # no reveal right in the grant
    hidden = query(tables_world, orders, "SELECT amount FROM orders", member)
    assert hidden.json()["errorCode"] == "UNKNOWN_COLUMN"
    assert "amount" not in hidden.json()["hint"]
    other = query(tables_world, orders, sql, tables_world.outsider_client)
    assert other.json()["errorCode"] == "NOT_FOUND"


def test_queued_then_waited_then_paged(tables_world: Tables, orders: str) -> None:
    started = tables_world.analytics("query", orders, {"sql": "SELECT order_id FROM orders ORDER BY 1"})
    assert started.status_code == 200 and started.json()["state"] == "QUEUED"
    job_id = started.json()["jobId"]
    status = tables_world.analytics("job-status", orders, {"jobId": job_id, "waitMs": 20_000}).json()
    assert status["state"] == "SUCCEEDED" and status["resultRowCount"] == 4
    assert status["resultColumns"] == [{"name": "order_id", "type": "LONG"}]
    pages = [
        tables_world.analytics("job-results", orders, {"jobId": job_id, "page": p, "pageSize": 3}).json()
        for p in (0, 1)
    ]
    assert [r["order_id"] for r in pages[0]["rows"]] == [1, 2, 3] and pages[0]["hasMore"] is True
    assert [r["order_id"] for r in pages[1]["rows"]] == [4] and pages[1]["hasMore"] is False
    assert pages[1]["totalRows"] == 4
    too_big = tables_world.analytics("job-results", orders, {"jobId": job_id, "pageSize": 1001})
    assert too_big.status_code == 413 and too_big.json()["errorCode"] == "ROW_LIMIT"
    cut = query(tables_world, orders, "SELECT order_id FROM orders", maxRows=2).json()
    assert cut["preview"]["truncated"] is True and cut["preview"]["totalRows"] == 2
    assert (
        tables_world.analytics("job-status", orders, {"jobId": "f" * 32}).json()["errorCode"] == "NOT_FOUND"
    )


def test_single_cell_reveal(tables_world: Tables, orders: str) -> None:
    job_id = query(tables_world, orders, "SELECT order_id, email FROM orders ORDER BY 1").json()["jobId"]
    page = tables_world.analytics(
        "job-results", orders, {"jobId": job_id, "revealRow": 2, "revealColumn": "email"}
    ).json()
    assert page["revealedCell"] == {"row": 2, "column": "email", "value": "b@y.io"}
    assert page["rows"][2]["email"] == "••••••••"


def test_cancel_stops_a_running_query(tables_world: Tables, orders: str) -> None:
    job_id = tables_world.analytics("query", orders, {"sql": SLOW}).json()["jobId"]
    deadline = time.monotonic() + 30
    while tables_world.analytics("job-status", orders, {"jobId": job_id}).json()["state"] != "RUNNING":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    member_try = tables_world.analytics("cancel", orders, {"jobId": job_id}, tables_world.member_client)
    assert member_try.status_code == 403
    cancelled = tables_world.analytics("cancel", orders, {"jobId": job_id}).json()
    assert cancelled == {"jobId": job_id, "state": "CANCELLED", "errors": []}
    # The worker is free again: a new query runs to the end.
    after = query(tables_world, orders, "SELECT count(*) AS n FROM orders").json()
    assert after["state"] == "SUCCEEDED" and after["preview"]["rows"] == [{"n": 4}]
    again = tables_world.analytics("cancel", orders, {"jobId": after["jobId"]}).json()
    assert again["state"] == "SUCCEEDED"


def test_download_links(tables_world: Tables, ingress: Ingress, orders: str) -> None:
    job_id = query(tables_world, orders, "SELECT order_id, amount, email FROM orders ORDER BY 1").json()[
        "jobId"
    ]
    link = tables_world.analytics("job-download-url", orders, {"jobId": job_id}).json()
    assert link["expiresAt"] and link["url"].startswith("http")
    downloaded = tables_world.client.get(link["url"])
    assert downloaded.status_code == 200, downloaded.text
    rows = list(csv.reader(io.StringIO(downloaded.text)))
    assert rows[0] == ["order_id", "amount", "email"] and rows[1] == ["1", "12.50", "••••••••"]
    parquet = tables_world.analytics(
        "job-download-url", orders, {"jobId": job_id, "format": "PARQUET", "reveal": True}
    ).json()
    table = pq.read_table(io.BytesIO(tables_world.client.get(parquet["url"]).content))
    assert table.column("email").to_pylist() == ["a@x.io", None, "b@y.io", "c@z.io"]
    forged = tables_world.client.get(link["url"][:-3] + "abc")
    assert forged.status_code == 403
    grant = {"tableId": orders, "userId": tables_world.member_id, "level": "READ"}
    assert tables_world.admin("grant", grant).status_code == 200
    other = tables_world.analytics("job-download-url", orders, {"jobId": job_id}, tables_world.member_client)
    assert other.status_code == 403 and other.json()["errorCode"] == "FORBIDDEN"


def test_estimate_and_scan_limits(tables_world: Tables, orders: str) -> None:
    estimate = tables_world.analytics("estimate", orders, {"sql": "SELECT * FROM orders"}).json()
    assert estimate["referencedTables"] == ["orders"] and estimate["withinLimits"] is True
    whole = estimate["estimatedBytesScanned"]
    pruned = tables_world.analytics(
        "estimate",
        orders,
        {"sql": "SELECT * FROM orders WHERE placed_at >= TIMESTAMP '2026-11-01 00:00:00 UTC'"},
    ).json()["estimatedBytesScanned"]
    assert 0 < pruned < whole
    refused = query(tables_world, orders, "SELECT * FROM orders", maxBytesScanned=1)
    assert refused.status_code == 413 and refused.json()["errorCode"] == "SCAN_LIMIT"
    assert "placed_at" in refused.json()["hint"]


def test_jobs_lists_queries_and_appends_newest_first(tables_world: Tables, orders: str) -> None:
    first = query(tables_world, orders, "SELECT 1 AS one FROM orders LIMIT 1").json()["jobId"]
    second = query(tables_world, orders, "SELECT 2 AS two FROM orders LIMIT 1").json()["jobId"]
    listed = tables_world.analytics("jobs", orders, {}).json()
    kinds = [(j["kind"], j["jobId"]) for j in listed["jobs"]]
    assert kinds[:2] == [("QUERY", second), ("QUERY", first)]
    assert kinds[-1][0] == "APPEND"
    top = listed["jobs"][0]
    assert top["state"] == "SUCCEEDED" and top["sql"].startswith("SELECT 2")
    assert top["createdBy"]["name"] == "admin@acme.test" and top["resultRowCount"] == 1
    page = tables_world.analytics("jobs", orders, {"limit": 1}).json()
    assert [j["jobId"] for j in page["jobs"]] == [second] and page["nextCursor"]
    following = tables_world.analytics("jobs", orders, {"limit": 1, "cursor": page["nextCursor"]}).json()
    assert [j["jobId"] for j in following["jobs"]] == [first]
    appends = tables_world.analytics("jobs", orders, {"kind": "APPEND"}).json()["jobs"]
    assert len(appends) == 1 and appends[0]["resultRowCount"] == len(ROWS)
    member = tables_world.analytics("jobs", orders, {"mine": True}, tables_world.member_client)
    assert member.json()["errorCode"] == "FORBIDDEN"


def test_json_columns_come_back_as_json_values(tables_world: Tables, worker: Worker) -> None:
    spec = {
        "sqlName": "events",
        "name": "Events",
        "columns": [{"name": "event_id", "type": "LONG"}, {"name": "payload", "type": "JSON"}],
    }
    table_id = tables_world.create(spec)
    payloads = [{"a": 1, "tags": ["x"]}, [1, 2], "text", None]
    rows = [{"event_id": i, "payload": p} for i, p in enumerate(payloads)]
    assert tables_world.analytics("append-rows", table_id, {"rows": rows}).status_code == 200
    tables_world.wait_rows(table_id, len(rows))
    answer = query(
        tables_world,
        table_id,
        "WITH e AS (SELECT event_id, payload FROM events) "
        "SELECT event_id, payload, json_extract_scalar(payload, '$.a') AS a FROM e ORDER BY event_id",
    ).json()
    assert answer["state"] == "SUCCEEDED", answer
    assert [c["type"] for c in answer["preview"]["columns"]] == ["LONG", "JSON", "STRING"]
    assert [r["payload"] for r in answer["preview"]["rows"]] == payloads
    assert [r["a"] for r in answer["preview"]["rows"]] == ["1", None, None, None]
    page = tables_world.analytics("job-results", table_id, {"jobId": answer["jobId"]}).json()
    assert [r["payload"] for r in page["rows"]] == payloads
