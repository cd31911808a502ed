"""Query jobs at their limits: the run-time limit, the concurrent-query quota, the daily load quota, and a
job delivered many times at once (a worker that dies while a job runs: test_query_worker_death.py)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from schemas.base import iso_utc
from schemas.records import AnalyticsJobRef
from schemas.settings import Settings
from sinks.db.models import Job
from sinks.kafka import Publisher
from tests.fixtures import module_stack
from tests.fixtures.stack import make_settings
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker

# The whole module is served: one test uploads files to signed links over HTTP, and its tests share a stack.
pytestmark = [pytest.mark.integration, pytest.mark.served]

ROWS = [{"order_id": i, "region": "EU"} for i in range(1, 5)]
SLOW = "SELECT count(*) AS n FROM " + ", ".join(f"orders o{i}" for i in range(20))  # noqa: S608


# The quotas are each company's own, so tests with their own companies can share them.
LIMITS: dict[str, object] = {"query_timeout_seconds": 3, "query_max_concurrent": 1, "load_daily_bytes": 4000}


# The module's one stack (tests/fixtures/module_stack.py); each test has its own companies and table.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(stack_dir / "data", kafka_bootstrap=kafka_bootstrap, **LIMITS)


def wait_state(world: Tables, table_id: str, job_id: str, states: set[str], limit: float = 60) -> dict:  # type: ignore[type-arg]
    deadline = time.monotonic() + limit
    while True:
        status = world.analytics("job-status", table_id, {"jobId": job_id}).json()
        if status["state"] in states:
            return status  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, status
        time.sleep(0.1)


def test_a_query_past_its_time_limit_times_out_and_the_quota_holds(
    tables_world: Tables, worker: Worker
) -> None:
    table_id = tables_world.create()
    tables_world.analytics("append-rows", table_id, {"rows": ROWS})
    tables_world.wait_rows(table_id, len(ROWS))
    job_id = tables_world.analytics("query", table_id, {"sql": SLOW}).json()["jobId"]
    second = tables_world.analytics("query", table_id, {"sql": "SELECT 1 AS one FROM orders"})
    assert second.status_code == 429 and second.json()["errorCode"] == "QUOTA"
    assert int(second.headers["Retry-After"]) >= 1
    status = wait_state(tables_world, table_id, job_id, {"TIMED_OUT", "SUCCEEDED", "FAILED"})
    assert status["state"] == "TIMED_OUT"
    assert status["error"]["errorCode"] == "TIMEOUT"
    assert 3000 <= status["elapsedMs"] < 30_000
    after = tables_world.analytics(
        "query", table_id, {"sql": "SELECT 1 AS one FROM orders", "waitMs": 20_000}
    )
    assert after.status_code == 200 and after.json()["state"] == "SUCCEEDED"


def test_data_loaded_per_day_is_limited(tables_world: Tables, worker: Worker) -> None:
    from tests.integration.analytics.test_loads import HEADER, csv_rows, finished, upload

    table_id = tables_world.create()
    small = upload(tables_world, "small.csv", (HEADER + csv_rows(1, 20)).encode())
    first = tables_world.analytics("load-from-s3", table_id, {"sourceUris": [small]})
    assert first.status_code == 200, first.text
    assert finished(tables_world, table_id, first.json()["jobId"])["state"] == "SUCCEEDED"
    big = upload(tables_world, "big.csv", (HEADER + csv_rows(100, 100)).encode())
    refused = tables_world.analytics("load-from-s3", table_id, {"sourceUris": [big]})
    assert refused.status_code == 429 and refused.json()["errorCode"] == "QUOTA"
    assert 1 <= int(refused.headers["Retry-After"]) <= 86_400  # until the next UTC day
    listed = tables_world.analytics("jobs", table_id, {"kind": "LOAD"}).json()["jobs"]
    assert len(listed) == 1


async def _deliver_again(settings: Settings, job_id: str, times: int) -> None:
    publisher = Publisher(settings)
    await publisher.start()
    try:
        for _ in range(times):
            await publisher.publish_record(AnalyticsJobRef(job_id=job_id), key=job_id)
    finally:
        await publisher.stop()


def test_a_job_delivered_many_times_at_once_runs_once(
    tables_world: Tables, worker: Worker, kafka_settings: Settings
) -> None:
    """Each delivery starts the query while its claim commits; only the one whose claim succeeds finishes."""
    table_id = tables_world.create()
    tables_world.analytics("append-rows", table_id, {"rows": ROWS})
    tables_world.wait_rows(table_id, len(ROWS))
    sql = "SELECT count(*) AS n FROM orders"
    job_id = tables_world.analytics("query", table_id, {"sql": sql}).json()["jobId"]
    asyncio.run(_deliver_again(kafka_settings, job_id, 3))
    status = wait_state(tables_world, table_id, job_id, {"SUCCEEDED", "FAILED"})
    assert status["state"] == "SUCCEEDED" and status["resultRowCount"] == 1
    page = tables_world.analytics("job-results", table_id, {"jobId": job_id}).json()
    assert page["rows"] == [{"n": len(ROWS)}]
    asyncio.run(_deliver_again(kafka_settings, job_id, 1))  # after it ended: nothing happens
    time.sleep(1.0)
    with tables_world.db.sessions() as session:
        job = session.get(Job, job_id)
        assert job is not None and job.attempt == 1 and job.state == "SUCCEEDED"
        assert iso_utc(job.finished_at) == status["finishedAt"]
