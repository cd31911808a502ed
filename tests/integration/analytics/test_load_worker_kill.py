"""A worker killed in the middle of a bulk load: the table shows all of the load or none of it, and a new
worker finishes the job. Kept apart from test_loads.py, whose tests share one stack: this test kills its
worker, so it has a stack of its own."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from schemas.settings import Settings
from sinks.iceberg import catalog as iceberg
from tests.fixtures.stack import Ingress
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker
from tests.integration.analytics.test_loads import HEADER, PART, count, csv_rows, finished, load, upload

pytestmark = [pytest.mark.integration, pytest.mark.served]  # parts go to signed links over HTTP


def test_a_worker_killed_mid_load_leaves_no_partial_rows(
    tables_world: Tables, ingress: Ingress, worker: Worker, kafka_settings: Settings, tmp_path: Path
) -> None:
    table_id = tables_world.create()
    uri = upload(tables_world, "big.csv", (HEADER + csv_rows(1, 400_000)).encode(), part_bytes=8 * PART)
    job_id = load(tables_world, table_id, {"sourceUris": [uri]})["jobId"]
    deadline = time.monotonic() + 60
    while tables_world.analytics("job-status", table_id, {"jobId": job_id}).json()["state"] != "RUNNING":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    worker.kill()
    handle = iceberg.load_table(ingress.app.state.catalog, tables_world.company_id, table_id)
    head = handle.current_snapshot()
    rows = (
        0
        if head is None or head.summary is None
        else int(head.summary.additional_properties["total-records"])
    )
    assert rows in (0, 400_000)  # all or nothing, whenever the worker died
    replacement = Worker(kafka_settings, tmp_path / "replacement.log")
    replacement.start()
    try:
        status = finished(tables_world, table_id, job_id, limit=180)
        assert status["state"] == "SUCCEEDED", status
        assert status["rowsLoaded"] == 400_000
        assert count(tables_world, table_id) == 400_000
    finally:
        replacement.stop()
