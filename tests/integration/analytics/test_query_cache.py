"""The query result cache (useQueryCache): a repeated query on unchanged data is answered at once from the
earlier job's stored result (a new job of the caller, cacheHit true, nothing scanned, no query slot); a
commit, another policy or other limits never meet that result; useQueryCache false always runs; and a job
whose worker read other snapshots than its plan named keeps no key. One query slot per company here."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from schemas.jobs import JobKind, JobState
from schemas.settings import Settings
from sinks.db.analytics import jobs
from sinks.db.models import Job
from tests.fixtures import module_stack
from tests.fixtures.stack import make_settings
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker
from tests.integration.analytics.test_job_policy import BOB_ONLY, ROWS, SALES, grant, second_member
from tests.integration.analytics.test_query_limits import wait_state

pytestmark = pytest.mark.integration

WAIT = 20_000
ALL = "SELECT sale_id, customer, note FROM sales ORDER BY sale_id"
# 4**20 rows to count: runs until its time limit (10 s here: a short query on a loaded machine, its company
# database opened cold, must stay well inside it).
SLOW = "SELECT count(*) AS n FROM " + ", ".join(f"sales s{i}" for i in range(20))  # noqa: S608


# The module's one stack (tests/fixtures/module_stack.py); each test has its own companies and table.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(
        stack_dir / "data", kafka_bootstrap=kafka_bootstrap, query_timeout_seconds=10, query_max_concurrent=1
    )


@pytest.fixture
def sales(tables_world: Tables, worker: Worker) -> str:
    table_id = tables_world.create(SALES)
    answer = tables_world.analytics("append-rows", table_id, {"rows": ROWS})
    assert answer.status_code == 200, answer.text
    tables_world.wait_rows(table_id, len(ROWS))
    return table_id


def query(world: Tables, table_id: str, sql: str, key: str | None = None, **extra: Any) -> dict[str, Any]:
    answer = world.analytics("query", table_id, {"sql": sql, "waitMs": WAIT, **extra}, key)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    assert body["state"] == "SUCCEEDED", body
    return body


def stored(world: Tables, job_id: str) -> Job:
    with world.db.sessions() as session:
        job = session.get(Job, job_id)
        assert job is not None
        session.expunge(job)
        return job


def append(world: Tables, table_id: str, rows: list[dict[str, Any]], total: int) -> None:
    answer = world.analytics("append-rows", table_id, {"rows": rows})
    assert answer.status_code == 200, answer.text
    world.wait_rows(table_id, total)


def test_a_repeated_query_is_answered_from_the_first_ones_result(tables_world: Tables, sales: str) -> None:
    first = query(tables_world, sales, ALL)
    assert first["cacheHit"] is False and first["bytesScanned"] > 0
    again = query(tables_world, sales, ALL)
    assert again["cacheHit"] is True and again["jobId"] != first["jobId"]
    assert again["bytesScanned"] == 0 and again["elapsedMs"] == 0
    assert again["preview"] == first["preview"]
    status = tables_world.analytics("job-status", sales, {"jobId": again["jobId"]}).json()
    assert status["cacheHit"] is True and status["state"] == "SUCCEEDED" and status["bytesScanned"] == 0
    assert status["resultRowCount"] == len(ROWS)
    first_status = tables_world.analytics("job-status", sales, {"jobId": first["jobId"]}).json()
    assert first_status["cacheHit"] is False
    # The cached job shares the first one's stored file and its expiry (the sweep removes the file when
    # both expire), and was never run.
    source, hit = stored(tables_world, first["jobId"]), stored(tables_world, again["jobId"])
    assert hit.result_key == source.result_key and hit.expires_at == source.expires_at
    assert hit.cached_from == source.id and hit.cache_key == source.cache_key and hit.attempt == 0
    pages = tables_world.analytics("job-results", sales, {"jobId": again["jobId"]}).json()
    assert [r["sale_id"] for r in pages["rows"]] == [1, 2, 3, 4]
    # A hit of a hit still names the job that computed the result.
    third = query(tables_world, sales, ALL)
    assert third["cacheHit"] is True and stored(tables_world, third["jobId"]).cached_from == source.id
    # useQueryCache false always runs.
    fresh = query(tables_world, sales, ALL, useQueryCache=False)
    assert fresh["cacheHit"] is False and fresh["bytesScanned"] > 0
    assert stored(tables_world, fresh["jobId"]).attempt == 1


def test_a_commit_to_the_table_is_a_new_key(tables_world: Tables, sales: str) -> None:
    count = "SELECT count(*) AS n FROM sales"
    first = query(tables_world, sales, count)
    append(tables_world, sales, [{"sale_id": 5, "customer": "dave", "amount": "1.00"}], len(ROWS) + 1)
    after = query(tables_world, sales, count)
    assert after["cacheHit"] is False and after["preview"]["rows"] == [{"n": len(ROWS) + 1}]
    assert stored(tables_world, after["jobId"]).cache_key != stored(tables_world, first["jobId"]).cache_key


def test_another_policy_never_meets_the_result_and_the_same_policy_does(
    tables_world: Tables, sales: str
) -> None:
    sql = "SELECT * FROM sales ORDER BY sale_id"
    admins = query(tables_world, sales, sql)
    assert {r["customer"] for r in admins["preview"]["rows"]} == {"alice", "bob", "carol"}
    grant(tables_world, sales, tables_world.member_id, **BOB_ONLY)
    member = tables_world.member_client
    mine = query(tables_world, sales, sql, member)
    assert mine["cacheHit"] is False
    rows = mine["preview"]["rows"]
    assert {r["customer"] for r in rows} == {"bob"} and all("amount" not in r for r in rows)
    # A second member with the same grant (spelled differently) meets the first member's result.
    twin_id, twin_key = second_member(tables_world)
    grant(tables_world, sales, twin_id, rowFilter="customer='bob'", hiddenColumns=["amount"])
    twins = query(tables_world, sales, sql, twin_key)
    assert twins["cacheHit"] is True and twins["preview"]["rows"] == rows
    assert stored(tables_world, twins["jobId"]).cached_from == mine["jobId"]
    assert (
        tables_world.analytics("job-results", sales, {"jobId": twins["jobId"]}, twin_key).status_code == 200
    )
    # Only the row filter differs: no hit.
    grant(tables_world, sales, twin_id, rowFilter="customer = 'carol'", hiddenColumns=["amount"])
    carols = query(tables_world, sales, sql, twin_key)
    assert carols["cacheHit"] is False and {r["customer"] for r in carols["preview"]["rows"]} == {"carol"}
    # Only the hidden columns differ (none hidden): no hit either.
    grant(tables_world, sales, twin_id, rowFilter="customer = 'bob'")
    unhidden = query(tables_world, sales, sql, twin_key)
    assert unhidden["cacheHit"] is False and all("amount" in r for r in unhidden["preview"]["rows"])
    # The admin meets the admin's own result, never a member's.
    again = query(tables_world, sales, sql)
    assert again["cacheHit"] is True and stored(tables_world, again["jobId"]).cached_from == admins["jobId"]
    assert again["preview"]["rows"] == admins["preview"]["rows"]


def test_a_truncated_result_answers_only_the_same_max_rows(tables_world: Tables, sales: str) -> None:
    cut = query(tables_world, sales, ALL, maxRows=2)
    assert cut["preview"]["truncated"] is True and cut["preview"]["totalRows"] == 2
    more = query(tables_world, sales, ALL, maxRows=3)
    assert more["cacheHit"] is False and more["preview"]["totalRows"] == 3
    same = query(tables_world, sales, ALL, maxRows=2)
    assert same["cacheHit"] is True and same["preview"]["truncated"] is True
    assert stored(tables_world, same["jobId"]).cached_from == cut["jobId"]


def test_a_query_of_the_moment_is_never_cached(tables_world: Tables, sales: str) -> None:
    sql = "SELECT count(*) AS n, current_date AS today FROM sales"
    query(tables_world, sales, sql)
    again = query(tables_world, sales, sql)
    assert again["cacheHit"] is False and stored(tables_world, again["jobId"]).cache_key is None


def test_time_travel_is_cached_on_its_snapshot(tables_world: Tables, sales: str) -> None:
    listed = tables_world.admin("snapshots", {"tableId": sales}).json()["snapshots"]
    snapshot_id = listed[0]["snapshotId"]
    sql = f"SELECT count(*) AS n FROM sales FOR VERSION AS OF {snapshot_id}"  # noqa: S608
    first = query(tables_world, sales, sql)
    append(tables_world, sales, [{"sale_id": 5, "customer": "dave", "amount": "1.00"}], len(ROWS) + 1)
    # The snapshot it names is unchanged by the commit, so the result still answers it.
    again = query(tables_world, sales, sql)
    assert again["cacheHit"] is True and again["preview"]["rows"] == [{"n": len(ROWS)}]
    assert stored(tables_world, again["jobId"]).cached_from == first["jobId"]


def test_a_hit_takes_no_slot_and_no_scan_allowance(tables_world: Tables, sales: str) -> None:
    count = "SELECT count(*) AS n FROM sales"
    query(tables_world, sales, count)
    # Over maxBytesScanned: refused when it would run, answered from the cache (it scans nothing).
    refused = tables_world.analytics("query", sales, {"sql": ALL, "maxBytesScanned": 1})
    assert refused.status_code == 413 and refused.json()["errorCode"] == "SCAN_LIMIT"
    cached = query(tables_world, sales, count, maxBytesScanned=1)
    assert cached["cacheHit"] is True
    # The company's one slot is taken: a new query is refused, the cached one answers.
    slow = tables_world.analytics("query", sales, {"sql": SLOW}).json()["jobId"]
    busy = tables_world.analytics("query", sales, {"sql": ALL})
    assert busy.status_code == 429 and busy.json()["errorCode"] == "QUOTA"
    during = query(tables_world, sales, count)
    assert during["cacheHit"] is True
    wait_state(tables_world, sales, slow, {"TIMED_OUT", "FAILED", "SUCCEEDED", "CANCELLED"})


def test_a_request_id_names_its_cached_job(tables_world: Tables, sales: str) -> None:
    query(tables_world, sales, ALL)
    body = {"requestId": "dash:1"}
    hit = query(tables_world, sales, ALL, **body)
    assert hit["cacheHit"] is True
    again = query(tables_world, sales, ALL, **body)
    assert again["jobId"] == hit["jobId"] and again["cacheHit"] is True


def test_a_job_that_read_a_later_snapshot_than_planned_keeps_no_key(tables_world: Tables, sales: str) -> None:
    """A job planned before a commit and run after it read other data than its key names: the worker
    clears its key, so its result never answers the cache."""
    planned = stored(tables_world, query(tables_world, sales, ALL)["jobId"])
    append(tables_world, sales, [{"sale_id": 5, "customer": "dave", "amount": "1.00"}], len(ROWS) + 1)
    with tables_world.db.sessions.begin() as session:
        # QUEUED past the grace period as if its record had been lost: the reconciler sends it.
        jobs.create(
            session,
            job_id="lateplan",
            company_id=planned.company_id,
            table_id=sales,
            table_ids=[sales],
            kind=JobKind.QUERY,
            created_by=planned.created_by,
            sql=ALL,
            plan=planned.plan_json,
            bytes_scanned=0,
            now=datetime.now(UTC) - timedelta(seconds=30),
            policy=planned.policy_json,
            cache_key="planned-before-the-commit",
        )
    deadline = time.monotonic() + 60
    while (late := stored(tables_world, "lateplan")).state != JobState.SUCCEEDED.value:
        assert time.monotonic() < deadline and late.state in ("QUEUED", "RUNNING"), late.state
        time.sleep(0.2)
    assert late.result_row_count == len(ROWS) + 1 and late.cache_key is None
    assert stored(tables_world, planned.id).cache_key is not None


def test_a_result_near_its_expiry_answers_no_more(tables_world: Tables, sales: str) -> None:
    """A cached job shares its source's expiry, so a result with under a day left is run again instead."""
    first = query(tables_world, sales, ALL)
    with tables_world.db.sessions.begin() as session:
        source = session.get(Job, first["jobId"])
        assert source is not None
        source.expires_at = datetime.now(UTC) + timedelta(hours=23)
    again = query(tables_world, sales, ALL)
    assert again["cacheHit"] is False and again["bytesScanned"] > 0
    assert query(tables_world, sales, ALL)["cacheHit"] is True


def answered_twice(world: Tables, table_id: str, sql: str, key: str | None = None) -> dict[str, Any]:
    """Run ``sql``, then have its result answer it twice: the second answer comes from what the ingress
    remembered of the first (the job that answers the key, the rendered preview)."""
    first = query(world, table_id, sql, key)
    assert first["cacheHit"] is False
    for _ in range(2):
        hit = query(world, table_id, sql, key)
        assert hit["cacheHit"] is True and hit["preview"] == first["preview"]
        assert stored(world, hit["jobId"]).cached_from == first["jobId"]
    return first


def test_a_remembered_answer_is_not_reused_once_the_callers_grant_changes(
    tables_world: Tables, sales: str
) -> None:
    sql = "SELECT * FROM sales ORDER BY sale_id"
    member, member_id = tables_world.member_client, tables_world.member_id
    grant(tables_world, sales, member_id, **BOB_ONLY)
    first = answered_twice(tables_world, sales, sql, member)
    assert [r["sale_id"] for r in first["preview"]["rows"]] == [2, 4]
    # Another row filter, the same hidden columns: run again, under the new filter.
    grant(tables_world, sales, member_id, rowFilter="customer = 'carol'", hiddenColumns=["amount"])
    carols = query(tables_world, sales, sql, member)
    assert carols["cacheHit"] is False and [r["sale_id"] for r in carols["preview"]["rows"]] == [3]
    # One hidden column more: run again, without it.
    grant(tables_world, sales, member_id, rowFilter="customer = 'bob'", hiddenColumns=["amount", "note"])
    hidden = query(tables_world, sales, sql, member)
    assert hidden["cacheHit"] is False
    shown = {c["name"] for c in hidden["preview"]["columns"]}
    assert "customer" in shown and not shown & {"amount", "note"}
    # The first grant again: the first result answers again, exactly as it did.
    grant(tables_world, sales, member_id, **BOB_ONLY)
    back = query(tables_world, sales, sql, member)
    assert back["cacheHit"] is True and back["preview"] == first["preview"]
    assert stored(tables_world, back["jobId"]).cached_from == first["jobId"]


def test_a_remembered_answer_is_not_reused_after_a_commit_or_a_schema_change(
    tables_world: Tables, sales: str
) -> None:
    sql = "SELECT * FROM sales ORDER BY sale_id"
    answered_twice(tables_world, sales, sql)
    append(tables_world, sales, [{"sale_id": 5, "customer": "dave", "amount": "1.00"}], len(ROWS) + 1)
    committed = answered_twice(tables_world, sales, sql)
    assert [r["sale_id"] for r in committed["preview"]["rows"]] == [1, 2, 3, 4, 5]
    # A new column is a new key (no new snapshot: only the table's schema changed).
    added = tables_world.admin(
        "add-column", {"tableId": sales, "column": {"name": "region", "type": "STRING"}}
    )
    assert added.status_code == 200, added.text
    with_region = answered_twice(tables_world, sales, sql)
    assert "region" in [c["name"] for c in with_region["preview"]["columns"]]
    # So is a widened column: the answer names the column's new type.
    amounts = "SELECT sale_id, amount FROM sales ORDER BY sale_id"
    before = answered_twice(tables_world, sales, amounts)
    assert before["preview"]["columns"][1]["type"] == "DECIMAL(10,2)"
    wider = {"name": "amount", "type": "DECIMAL(12,2)"}
    assert tables_world.admin("add-column", {"tableId": sales, "column": wider}).status_code == 200
    widened = query(tables_world, sales, amounts)
    assert widened["cacheHit"] is False and widened["preview"]["columns"][1]["type"] == "DECIMAL(12,2)"
    assert widened["preview"]["rows"] == before["preview"]["rows"]
