"""requestId on /query: a retried submission answers the first one's job and never runs twice, also when
the duplicates arrive at once; the id is the user's own, a reused id with other SQL is refused, and past
24 hours the id starts a new job. One query slot per company here, so a duplicate that took a slot of its
own would be refused with QUOTA.

The module's tests share one stack (ingress, worker); each has companies and a table of its own."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from core.request_ids import request_digest
from schemas.jobs import JobKind, JobState
from schemas.settings import Settings
from sinks.db.analytics import jobs
from sinks.db.models import Job, User
from tests.fixtures import module_stack
from tests.fixtures.stack import make_settings
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker
from tests.integration.analytics.test_query_limits import SLOW, wait_state

pytestmark = pytest.mark.integration

# The module's one stack (tests/fixtures/module_stack.py); kafka_settings below is this module's own.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES

ROWS = [{"order_id": i, "region": "EU"} for i in range(1, 5)]
COUNT = "SELECT count(*) AS n FROM orders"
WAIT = 20_000


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(
        stack_dir / "data",
        kafka_bootstrap=kafka_bootstrap,
        # Long enough for an ordinary query on a loaded machine (3 s timed out a COUNT on PostgreSQL under a
        # full run); the slow query, a 20-way cross join, still runs past it.
        query_timeout_seconds=10,
        query_max_concurrent=1,
    )


def _orders(world: Tables) -> str:
    table_id = world.create()
    world.analytics("append-rows", table_id, {"rows": ROWS})
    world.wait_rows(table_id, len(ROWS))
    return table_id


def _query_jobs(world: Tables, table_id: str) -> list[dict]:  # type: ignore[type-arg]
    listed = world.analytics("jobs", table_id, {"kind": "QUERY"})
    assert listed.status_code == 200, listed.text
    return listed.json()["jobs"]  # type: ignore[no-any-return]


def test_the_same_request_id_twice_answers_one_job(tables_world: Tables, worker: Worker) -> None:
    table_id = _orders(tables_world)
    body = {"sql": COUNT, "requestId": "nightly:2026-02-27"}
    first = tables_world.analytics("query", table_id, body)
    assert first.status_code == 200, first.text
    # The retry honours waitMs and answers the job's state, preview included, as /query does.
    again = tables_world.analytics("query", table_id, {**body, "waitMs": WAIT})
    assert again.status_code == 200, again.text
    answer = again.json()
    assert answer["jobId"] == first.json()["jobId"]
    assert answer["state"] == "SUCCEEDED" and answer["preview"]["rows"] == [{"n": len(ROWS)}]
    assert answer["bytesScanned"] == first.json()["bytesScanned"]
    # Once more after it ended, without waitMs and with a different reveal: still the same, ended job.
    third = tables_world.analytics("query", table_id, {**body, "reveal": True}).json()
    assert third["jobId"] == answer["jobId"] and third["state"] == "SUCCEEDED"
    assert [job["jobId"] for job in _query_jobs(tables_world, table_id)] == [answer["jobId"]]
    with tables_world.db.sessions() as session:
        stored = session.get(Job, answer["jobId"])
        assert stored is not None and stored.attempt == 1


def test_a_duplicate_takes_no_query_slot(tables_world: Tables, worker: Worker) -> None:
    """The company's one slot is held by the job; its retry still answers it, another query is refused."""
    table_id = _orders(tables_world)
    body = {"sql": SLOW, "requestId": "slow-1"}
    job_id = tables_world.analytics("query", table_id, body).json()["jobId"]
    again = tables_world.analytics("query", table_id, body)
    assert again.status_code == 200, again.text
    assert again.json()["jobId"] == job_id and again.json()["state"] in ("QUEUED", "RUNNING")
    other = tables_world.analytics("query", table_id, {"sql": COUNT})
    assert other.status_code == 429 and other.json()["errorCode"] == "QUOTA"
    wait_state(tables_world, table_id, job_id, {"TIMED_OUT", "FAILED", "SUCCEEDED"})
    ended = tables_world.analytics("query", table_id, body).json()
    assert ended["jobId"] == job_id and ended["state"] == "TIMED_OUT"
    assert ended["error"]["errorCode"] == "TIMEOUT"


def test_concurrent_duplicates_make_one_job(tables_world: Tables, worker: Worker) -> None:
    table_id = _orders(tables_world)
    body = {"sql": COUNT, "requestId": "burst-7"}
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda _: tables_world.analytics("query", table_id, body), range(8)))
    # Until the first of them is stored, each duplicate is analysed, and the company's share of the SQL
    # analysis sandbox may refuse some (429 QUOTA, nothing created); none may make a second job.
    refused = [a for a in answers if a.status_code != 200]
    assert all(a.status_code == 429 and a.json()["errorCode"] == "QUOTA" for a in refused), [
        a.text for a in refused
    ]
    accepted = [a for a in answers if a.status_code == 200]
    assert accepted, [a.text for a in answers]
    job_ids = {a.json()["jobId"] for a in accepted}
    assert len(job_ids) == 1
    (job_id,) = job_ids
    assert [job["jobId"] for job in _query_jobs(tables_world, table_id)] == [job_id]
    status = wait_state(tables_world, table_id, job_id, {"SUCCEEDED", "FAILED"})
    assert status["state"] == "SUCCEEDED"
    with tables_world.db.sessions() as session:
        stored = session.get(Job, job_id)
        assert stored is not None and stored.attempt == 1


def test_another_user_with_the_same_request_id_gets_its_own_job(tables_world: Tables, worker: Worker) -> None:
    table_id = _orders(tables_world)
    granted = tables_world.admin(
        "grant", {"tableId": table_id, "userId": tables_world.member_id, "level": "READ"}
    )
    assert granted.status_code == 200, granted.text
    body = {"sql": COUNT, "requestId": "shared-name", "waitMs": WAIT}
    mine = tables_world.analytics("query", table_id, body).json()
    theirs = tables_world.analytics("query", table_id, body, key=tables_world.member_client).json()
    assert mine["state"] == theirs["state"] == "SUCCEEDED"
    assert mine["jobId"] != theirs["jobId"]
    assert len(_query_jobs(tables_world, table_id)) == 2
    again = tables_world.analytics("query", table_id, body, key=tables_world.member_client).json()
    assert again["jobId"] == theirs["jobId"]


def test_a_request_id_reused_for_a_different_query_is_refused(tables_world: Tables, worker: Worker) -> None:
    table_id = _orders(tables_world)
    body = {"sql": COUNT, "requestId": "report-42", "waitMs": WAIT}
    job_id = tables_world.analytics("query", table_id, body).json()["jobId"]
    for changed in (
        {"sql": "SELECT max(order_id) AS m FROM orders"},
        {"maxRows": 5},
        {"maxBytesScanned": 10**9},
    ):
        refused = tables_world.analytics("query", table_id, {**body, **changed})
        assert refused.status_code == 400, refused.text
        error = refused.json()
        assert error["errorCode"] == "INVALID_REQUEST"
        assert "requestId 'report-42'" in error["errors"][0]
        assert "new requestId" in error["hint"]
    assert [job["jobId"] for job in _query_jobs(tables_world, table_id)] == [job_id]


def test_after_24_hours_the_request_id_starts_a_new_job(tables_world: Tables, worker: Worker) -> None:
    table_id = _orders(tables_world)
    long_ago = datetime.now(UTC) - timedelta(hours=24, minutes=1)
    recent = datetime.now(UTC) - timedelta(hours=23, minutes=59)
    with tables_world.db.sessions.begin() as session:
        admin_id = session.scalar(
            select(User.id).where(User.company_id == tables_world.company_id, User.email == "admin@acme.test")
        )
        assert admin_id is not None
        for job_id, request_id, created in (("oldjob", "daily", long_ago), ("newerjob", "hourly", recent)):
            jobs.create(
                session,
                job_id=job_id,
                company_id=tables_world.company_id,
                table_id=table_id,
                table_ids=[table_id],
                kind=JobKind.QUERY,
                created_by=admin_id,
                sql=COUNT,
                plan="{}",
                bytes_scanned=0,
                now=created,
                request_id=request_id,
                request_digest=request_digest(table_id, COUNT, None, None),
            )
        # Ended (cancelled: they have no result to preview), so neither a slot nor the reconciler sees them.
        session.execute(
            update(Job)
            .where(Job.id.in_(("oldjob", "newerjob")))
            .values(state=JobState.CANCELLED.value, finished_at=recent, cancel_requested=True)
        )
    fresh = tables_world.analytics("query", table_id, {"sql": COUNT, "requestId": "daily", "waitMs": WAIT})
    assert fresh.status_code == 200, fresh.text
    assert fresh.json()["jobId"] != "oldjob" and fresh.json()["state"] == "SUCCEEDED"
    assert fresh.json()["preview"]["rows"] == [{"n": len(ROWS)}]
    still = tables_world.analytics("query", table_id, {"sql": COUNT, "requestId": "hourly"}).json()
    assert still["jobId"] == "newerjob" and still["state"] == "CANCELLED"
    again = tables_world.analytics("query", table_id, {"sql": COUNT, "requestId": "daily"}).json()
    assert again["jobId"] == fresh.json()["jobId"]
    with tables_world.db.sessions() as session:
        old = session.get(Job, "oldjob")
        assert old is not None and old.request_id is None and old.state == JobState.CANCELLED.value
        named = session.scalar(
            select(func.count()).select_from(Job).where(Job.request_id == "daily", Job.table_id == table_id)
        )
        assert named == 1
