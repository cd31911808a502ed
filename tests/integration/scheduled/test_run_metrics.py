"""A real worker's metrics listener counts a scheduled event's run once it ends, by its final status."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.settings import Settings
from sinks.embedded_broker import process as broker
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.metrics import sample, scraped_when
from tests.fixtures.stack import make_settings
from tests.fixtures.two_workers import wait_until
from tests.fixtures.worker import Worker
from tests.integration.scheduled.conftest import Scene, tool_event
from tests.integration.scheduled.test_firing import handler_tool, once_in, runs

pytestmark = pytest.mark.integration


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(
        tmp_path / "data", kafka_bootstrap=kafka_bootstrap, worker_metrics_port=broker.free_port()
    )


def test_an_ended_run_is_counted_by_its_final_status(
    scene: Scene, worker: Worker, handler: RecordingHandler, kafka_settings: Settings
) -> None:
    tool_id = handler_tool(scene, handler)
    event_id = scene.ok("create", tool_event(tool_id, scheduleSpec=once_in(3)))["eventId"]
    wait_until(lambda: [r for r in runs(scene, event_id) if r["status"] == "SUCCEEDED"])
    samples = scraped_when(
        kafka_settings.worker_metrics_port,
        lambda s: sample(s, "svc_scheduled_runs_total", status="SUCCEEDED") >= 1,
    )
    assert sample(samples, "svc_scheduled_runs_total", status="SUCCEEDED") == 1
    assert sample(samples, "svc_scheduled_runs_total", status="FAILED") == 0
    assert sample(samples, "svc_delivery_attempts_total", status="SUCCESS", final="true") == 0
