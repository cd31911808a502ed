"""A worker that dies while a query job runs: the job is handed to another worker and still ends in a final
state. Kept apart from test_query_limits.py, whose tests share one stack: this test kills its worker, so it
has a stack of its own (with the same limits)."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.settings import Settings
from sinks.db.models import Job
from tests.fixtures.stack import make_settings
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker
from tests.integration.analytics.test_query_limits import LIMITS, ROWS, SLOW, wait_state

pytestmark = pytest.mark.integration


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(tmp_path / "data", kafka_bootstrap=kafka_bootstrap, **LIMITS)


def test_a_job_whose_worker_dies_is_run_again_elsewhere(
    tables_world: Tables, worker: Worker, kafka_settings: Settings, tmp_path: Path
) -> None:
    table_id = tables_world.create()
    tables_world.analytics("append-rows", table_id, {"rows": ROWS})
    tables_world.wait_rows(table_id, len(ROWS))
    job_id = tables_world.analytics("query", table_id, {"sql": SLOW}).json()["jobId"]
    wait_state(tables_world, table_id, job_id, {"RUNNING"})
    worker.kill()
    assert tables_world.analytics("job-status", table_id, {"jobId": job_id}).json()["state"] == "RUNNING"
    replacement = Worker(kafka_settings, tmp_path / "replacement.log")
    replacement.start()
    try:
        status = wait_state(tables_world, table_id, job_id, {"TIMED_OUT", "FAILED", "SUCCEEDED"}, limit=120)
    finally:
        replacement.stop()
    assert status["state"] == "TIMED_OUT"
    with tables_world.db.sessions() as session:
        job = session.get(Job, job_id)
        assert job is not None and job.attempt == 2
