"""Short queries whose caller waits are answered by the ingress alone (ingress/analytics/inline_queries.py,
turned on here: SVC_QUERY_INLINE_CONCURRENCY is 0 by default): with no worker running, such a query still ends
SUCCEEDED, under the caller's own grant, and its job reads as any job (status, pages, listing). A query that
does not wait, or runs past the ingress's budget, is handed to a worker as before: it stays QUEUED until a
worker runs, which then ends it once."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.settings import Settings
from sinks.embedded_broker import process as broker
from tests.fixtures import module_stack
from tests.fixtures.metrics import scrape
from tests.fixtures.stack import make_settings
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker
from tests.integration.analytics.test_job_policy import BOB_ONLY, grant, sales
from tests.integration.analytics.test_query_limits import wait_state

pytestmark = pytest.mark.integration

ALL = "SELECT sale_id, customer, note FROM sales ORDER BY sale_id"
# 4**20 rows to count: runs until it is stopped.
SLOW = "SELECT count(*) AS n FROM " + ", ".join(f"sales s{i}" for i in range(20))  # noqa: S608

stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES
__all__ = ["sales"]  # the table fixture, shared with test_job_policy


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(
        stack_dir / "data",
        kafka_bootstrap=kafka_bootstrap,
        # A worker's first query after its start opens the table's database beside a running SLOW: seconds on
        # a loaded machine. The slow query's own end waits this long.
        query_timeout_seconds=10,
        query_inline_concurrency=2,
        query_inline_budget_ms=2_000,  # the first run opens the company database (~250 ms, more under load)
        metrics_port=broker.free_port(),
    )


def handed_off(settings: Settings) -> float:
    """The queries this stack's ingress ran and handed to a worker (none yet: no sample)."""
    samples = scrape(settings.metrics_port)
    return samples.get(("svc_inline_queries_total", (("outcome", "handed_off"),)), 0.0)


def test_a_waiting_query_is_answered_without_a_worker(
    tables_world: Tables, sales: str, worker: Worker, kafka_settings: Settings
) -> None:
    world = tables_world
    grant(world, sales, world.member_id, **BOB_ONLY)
    worker.stop()
    try:
        answer = world.analytics("query", sales, {"sql": ALL, "waitMs": 20_000})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert (body["state"], body["cacheHit"], body["error"]) == ("SUCCEEDED", False, None), body
        assert [row["sale_id"] for row in body["preview"]["rows"]] == [1, 2, 3, 4]
        assert body["preview"]["rows"][0]["note"] != "vip"  # masked, as a worker's result is
        job_id = body["jobId"]
        status = world.analytics("job-status", sales, {"jobId": job_id}).json()
        assert (status["state"], status["resultRowCount"]) == ("SUCCEEDED", 4), status
        assert status["createdAt"] <= status["finishedAt"] and status["elapsedMs"] >= 0
        page = world.analytics("job-results", sales, {"jobId": job_id, "pageSize": 2}).json()
        assert [row["sale_id"] for row in page["rows"]] == [1, 2] and page["hasMore"] is True
        listed = world.analytics("jobs", sales, {"kind": "QUERY"}).json()["jobs"]
        assert [(j["jobId"], j["state"]) for j in listed] == [(job_id, "SUCCEEDED")]

        # A member's query runs under the member's own grant here too.
        mine = world.analytics(
            "query",
            sales,
            {"sql": "SELECT * FROM sales ORDER BY sale_id", "waitMs": 20_000},
            world.member_client,
        ).json()
        assert mine["state"] == "SUCCEEDED", mine
        rows = mine["preview"]["rows"]
        assert [r["customer"] for r in rows] == ["bob", "bob"] and all("amount" not in r for r in rows)

        # Its result answers the same query from the cache, as a worker's does.
        again = world.analytics("query", sales, {"sql": ALL}).json()
        assert (again["state"], again["cacheHit"]) == ("SUCCEEDED", True), again
        # Not waiting: a worker's job, QUEUED until one runs.
        queued = world.analytics("query", sales, {"sql": ALL, "useQueryCache": False}).json()
        assert queued["state"] == "QUEUED", queued
        # Past the budget (the call's waitMs here, under 2 s), stopped and handed to a worker,
        # the stop repeated until DuckDB takes it (one that comes between statements is dropped).
        before = handed_off(kafka_settings)
        slow = world.analytics("query", sales, {"sql": SLOW, "waitMs": 1_000}).json()
        assert slow["state"] == "QUEUED", slow
        assert handed_off(kafka_settings) == before + 1
        # The same plan again goes straight to a worker: it is not run here again to its budget.
        shorts = [world.analytics("query", sales, {"sql": SLOW, "waitMs": 100}).json() for _ in range(4)]
        assert [short["state"] for short in shorts] == ["QUEUED"] * 4, shorts
        assert handed_off(kafka_settings) == before + 1
        for short in shorts:  # real jobs: cancelled while queued, they never run (and load no worker)
            cancelled = world.analytics("cancel", sales, {"jobId": short["jobId"]}).json()
            assert cancelled["state"] == "CANCELLED", cancelled
    finally:
        worker.start()
    done = wait_state(world, sales, queued["jobId"], {"SUCCEEDED", "FAILED"})
    assert (done["state"], done["resultRowCount"]) == ("SUCCEEDED", 4), done
    timed_out = wait_state(world, sales, slow["jobId"], {"SUCCEEDED", "FAILED", "TIMED_OUT"})
    assert timed_out["state"] == "TIMED_OUT", timed_out


# One value of each kind a query can make, and a null, in rows enough to pass the preview's 200.
TYPED = (
    "SELECT s.sale_id, s.customer, s.note, i::TINYINT AS tiny, i::BIGINT * 1000000000000 AS big, "
    "(i / 3)::DECIMAL(18, 3) AS dec, i / 7 AS dbl, i % 2 = 0 AS even, DATE '2026-01-31' + i::INT AS day, "
    "TIMESTAMP '2026-03-01 10:00:00.123456' + INTERVAL (i) MINUTE AS ts, "
    "TIMESTAMPTZ '2026-03-01 10:00:00+02' AS tstz, TIME '12:34:56' AS t, [i, i + 1] AS ints, "
    "CASE WHEN i % 5 = 0 THEN NULL ELSE i END AS sparse "
    "FROM sales s, (SELECT (a.sale_id - 1) * 16 + (b.sale_id - 1) * 4 + c.sale_id - 1 AS i "
    "FROM sales a, sales b, sales c) AS r ORDER BY i, s.sale_id"
)


def test_a_preview_given_in_the_call_reads_as_the_stored_result(
    tables_world: Tables, sales: str, worker: Worker
) -> None:
    """The preview of an answer given in the call is rendered from the rows its run kept, not read back
    from the result file: it must read exactly as the file's first page does, for every kind of value."""
    world = tables_world
    worker.stop()
    try:
        answer = world.analytics("query", sales, {"sql": TYPED, "waitMs": 20_000}).json()
        assert answer.get("state") == "SUCCEEDED", answer
        preview = answer["preview"]
        assert preview["totalRows"] == 256 and len(preview["rows"]) == 200, preview["totalRows"]
        page = world.analytics("job-results", sales, {"jobId": answer["jobId"], "pageSize": 200}).json()
        assert page["columns"] == preview["columns"]
        assert page["rows"] == preview["rows"]
        few = world.analytics("query", sales, {"sql": ALL, "waitMs": 20_000}).json()
        again = world.analytics("job-results", sales, {"jobId": few["jobId"]}).json()
        assert few["preview"]["rows"] == again["rows"] and len(again["rows"]) == 4
    finally:
        worker.start()
