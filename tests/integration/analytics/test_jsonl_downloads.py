"""JSON Lines downloads of a query result: one object per row, the same objects /job-results answers, masked
columns as the link's user may see them when it is followed, streamed in bounded pieces."""

from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path
from typing import Any

import httpx
import pytest

from schemas.settings import Settings
from tests.fixtures import module_stack
from tests.fixtures.stack import make_settings
from tests.fixtures.tables import ORDER_ROWS, Tables
from tests.fixtures.worker import Worker

pytestmark = [pytest.mark.integration, pytest.mark.served]  # downloads stream over real HTTP

ORDERS_SQL = "SELECT order_id, region, amount, placed_at, tags, email FROM orders ORDER BY order_id"
WIDE = {
    "sqlName": "wide",
    "name": "Wide",
    "columns": [{"name": "k", "type": "LONG"}, {"name": "x", "type": "DOUBLE"}],
}
SIDE = 400
# 30,000 rows of doubles that do not compress and a 128-character text each: several stored row groups,
# about 6 MB of JSON Lines (wide rows: the test's own measuring of memory slows every Python object down).
CROSS = (
    "SELECT a.k * 1000 + b.k AS id, a.x * b.x AS p1, a.x / (b.x + 1) AS p2, sqrt(a.x + b.x) AS p3, "
    "lpad(CAST(a.x * b.x AS VARCHAR), 128, '-') AS pad "
    "FROM wide a CROSS JOIN wide b LIMIT 30000"
)


# The module's one stack (tests/fixtures/module_stack.py); each test has its own companies and table.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(stack_dir / "data", kafka_bootstrap=kafka_bootstrap)


@pytest.fixture
def orders(tables_world: Tables, worker: Worker) -> str:
    table_id = tables_world.create()
    answer = tables_world.analytics("append-rows", table_id, {"rows": ORDER_ROWS})
    assert answer.status_code == 200, answer.text
    tables_world.wait_rows(table_id, len(ORDER_ROWS))
    return table_id


def run(world: Tables, table_id: str, sql: str, key: str | None = None, **extra: Any) -> str:
    answer = world.analytics("query", table_id, {"sql": sql, "waitMs": 20_000, **extra}, key)
    assert answer.status_code == 200, answer.text
    assert answer.json()["state"] == "SUCCEEDED", answer.json()
    return str(answer.json()["jobId"])


def link(world: Tables, table_id: str, job_id: str, key: str | None = None, **extra: Any) -> str:
    answer = world.analytics("job-download-url", table_id, {"jobId": job_id, "format": "JSONL", **extra}, key)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["url"])


def lines(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    assert response.text.endswith("\n")
    return [json.loads(line) for line in response.text.splitlines()]


def test_a_jsonl_download_holds_the_result_rows(tables_world: Tables, orders: str) -> None:
    job_id = run(tables_world, orders, ORDERS_SQL)
    downloaded = tables_world.client.get(link(tables_world, orders, job_id))
    assert downloaded.headers["content-type"] == "application/x-ndjson"
    assert downloaded.headers["content-disposition"] == f'attachment; filename="{job_id}.jsonl"'
    rows = lines(downloaded)
    page = tables_world.analytics("job-results", orders, {"jobId": job_id}).json()
    assert rows == page["rows"]
    assert [list(row) for row in rows] == [["order_id", "region", "amount", "placed_at", "tags", "email"]] * 4
    assert rows[0]["amount"] == "12.50" and rows[0]["placed_at"] == "2026-11-01T10:00:00.000000Z"
    assert [r["email"] for r in rows] == ["••••••••", None, "••••••••", "••••••••"]
    assert "••••••••" in downloaded.content.decode("utf-8")  # UTF-8 as it is, not \\u escapes

    revealed = lines(tables_world.client.get(link(tables_world, orders, job_id, reveal=True)))
    assert [r["email"] for r in revealed] == ["a@x.io", None, "b@y.io", "c@z.io"]


def test_an_empty_result_is_an_empty_file(tables_world: Tables, orders: str) -> None:
    job_id = run(tables_world, orders, "SELECT order_id FROM orders WHERE order_id < 0")
    downloaded = tables_world.client.get(link(tables_world, orders, job_id))
    assert downloaded.status_code == 200 and downloaded.content == b""


def test_a_member_sees_masked_columns_as_their_grant_says(tables_world: Tables, orders: str) -> None:
    """A member may read the table but not reveal: asking to reveal still downloads the mask, and a link
    stops serving rows once the member's grant no longer covers the job."""
    grant = {"tableId": orders, "userId": tables_world.member_id, "level": "READ"}
    assert tables_world.admin("grant", grant).status_code == 200
    member = tables_world.member_client
    job_id = run(tables_world, orders, ORDERS_SQL, member)
    url = link(tables_world, orders, job_id, member, reveal=True)
    rows = lines(tables_world.client.get(url))
    assert [r["email"] for r in rows] == ["••••••••", None, "••••••••", "••••••••"]
    assert "a@x.io" not in json.dumps(rows)

    narrowed = {**grant, "rowFilter": "region = 'US'"}
    assert tables_world.admin("grant", narrowed).status_code == 200
    stale = tables_world.client.get(url)
    assert stale.status_code == 403 and stale.json()["errorCode"] == "FORBIDDEN"
    assert "EU" not in stale.text and "APAC" not in stale.text


def test_a_large_jsonl_download_streams(tables_world: Tables, worker: Worker, tmp_path: Path) -> None:
    table_id = tables_world.create(WIDE)
    rng = random.Random(11)  # noqa: S311 - test data, not secrets
    rows = [{"k": k, "x": rng.random()} for k in range(SIDE)]
    assert tables_world.analytics("append-rows", table_id, {"rows": rows}).status_code == 200
    tables_world.wait_rows(table_id, 100)
    job_id = run(tables_world, table_id, CROSS)
    url = link(tables_world, table_id, job_id)

    target = tmp_path / "result.jsonl"
    pieces = 0
    tracemalloc.start()
    try:
        with httpx.stream("GET", url, timeout=120) as response, target.open("wb") as out:
            assert response.status_code == 200
            assert response.headers.get("transfer-encoding") == "chunked"
            assert "content-length" not in response.headers
            for piece in response.iter_raw():
                pieces += 1
                out.write(piece)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = target.stat().st_size
    print(f"JSONL download: {size} bytes in {pieces} pieces, peak Python memory {peak} bytes")
    assert pieces > 4 and size > 4 * 1024 * 1024
    # This process also runs the ingress: what it held at once is a part of the whole body (one read batch
    # of rows as Python objects; a body built whole would hold all of it, and more).
    assert peak < size / 3, (peak, size)
    with target.open() as downloaded:
        ids = [json.loads(line)["id"] for line in downloaded]
    assert len(ids) == 30_000 and len(set(ids)) == 30_000
