"""A real worker's metrics listener counts the query jobs it runs to their end, by kind and final state."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.settings import Settings
from sinks.embedded_broker import process as broker
from tests.fixtures.metrics import sample, scraped_when
from tests.fixtures.stack import make_settings
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker

pytestmark = pytest.mark.integration

NOTES = {"sqlName": "notes", "name": "Notes", "columns": [{"name": "k", "type": "LONG"}]}


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str) -> Settings:
    # Every query through a worker, none answered in the ingress.
    return make_settings(
        tmp_path / "data",
        kafka_bootstrap=kafka_bootstrap,
        worker_metrics_port=broker.free_port(),
        query_inline_concurrency=0,
    )


def test_a_query_job_the_worker_ran_is_counted_by_its_final_state(
    tables_world: Tables, worker: Worker, kafka_settings: Settings
) -> None:
    table_id = tables_world.create(NOTES)
    answer = tables_world.analytics("append-rows", table_id, {"rows": [{"k": 1}, {"k": 2}]})
    assert answer.status_code == 200, answer.text
    tables_world.wait_rows(table_id, 2)
    answer = tables_world.analytics(
        "query", table_id, {"sql": "SELECT sum(k) AS s FROM notes", "waitMs": 20_000}
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["state"] == "SUCCEEDED", answer.text

    def counted(state: str) -> float:
        return sample(samples, "svc_query_jobs_total", kind="QUERY", state=state)

    samples = scraped_when(
        kafka_settings.worker_metrics_port,
        lambda s: sample(s, "svc_query_jobs_total", kind="QUERY", state="SUCCEEDED") >= 1,
    )
    assert counted("SUCCEEDED") == 1
    assert counted("FAILED") == 0 and counted("TIMED_OUT") == 0
