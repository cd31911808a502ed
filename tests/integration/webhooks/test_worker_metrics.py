"""A real worker's Prometheus listener (SVC_WORKER_METRICS_PORT), scraped over HTTP: one delivery succeeds,
one fails with no retry left, and the counts, the handler latency and a queue-lag observation show it."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.settings import Settings
from sinks.embedded_broker import process as broker
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.metrics import Samples, sample, scraped_when
from tests.fixtures.stack import Ingress, make_settings
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import TRIGGER, register_handler, tool_webhook, wait_for

pytestmark = pytest.mark.integration


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(
        tmp_path / "data", kafka_bootstrap=kafka_bootstrap, worker_metrics_port=broker.free_port()
    )


def attempts(samples: Samples, status: str, final: str) -> float:
    return sample(samples, "svc_delivery_attempts_total", status=status, final=final)


def trigger(ingress: Ingress, webhook_id: str, key: str) -> None:
    answer = ingress.client.post(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers={"Authorization": key},
        json={"order": {"id": "M1"}},
    )
    assert answer.status_code == 202, answer.text


def test_the_worker_counts_attempts_by_outcome_and_observes_handler_latency_and_queue_lag(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler, kafka_settings: Settings
) -> None:
    port = kafka_settings.worker_metrics_port
    tool_id = register_handler(world, handler)
    failing, bad_key = tool_webhook(world, tool_id)
    succeeding, good_key = tool_webhook(world, tool_id)
    # A 422 is permanent: one attempt, final, whatever maxRetries says.
    handler.fail_first["*"] = 99
    handler.status_on_failure = 422
    trigger(ingress, failing, bad_key)
    wait_for(world, failing, lambda es: es and es[0]["status"] == "FAILED")
    handler.fail_first.clear()
    trigger(ingress, succeeding, good_key)
    wait_for(world, succeeding, lambda es: es and es[0]["status"] == "SUCCESS")

    samples = scraped_when(
        port, lambda s: attempts(s, "SUCCESS", "true") >= 1 and attempts(s, "FAILED", "true") >= 1
    )
    assert attempts(samples, "SUCCESS", "true") == 1
    assert attempts(samples, "FAILED", "true") == 1
    assert attempts(samples, "FAILED", "false") == 0
    assert sample(samples, "svc_delivery_handler_seconds_count") == 2
    assert sample(samples, "svc_delivery_queue_lag_seconds_count") == 2
    lag = sample(samples, "svc_delivery_queue_lag_seconds_sum")
    assert 0 < lag < 60
    # Every bucket at or above the slowest lag holds both observations.
    assert sample(samples, "svc_delivery_queue_lag_seconds_bucket", le="60.0") == 2
    # The other areas' series exist from the start, at zero until something ends.
    assert sample(samples, "svc_scheduled_runs_total", status="SUCCEEDED") == 0
    assert sample(samples, "svc_query_jobs_total", kind="QUERY", state="SUCCEEDED") == 0
