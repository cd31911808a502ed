"""A worker's metrics (streams/metrics.py): each outcome lands in its own series, every series the dashboard
charts exists at zero from the start, and labels come from enums only."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry

from streams.metrics import WorkerMetrics

pytestmark = pytest.mark.unit


def value(registry: CollectorRegistry, name: str, **labels: str) -> float | None:
    return registry.get_sample_value(name, labels)


def test_attempts_are_counted_by_status_and_finality() -> None:
    metrics = WorkerMetrics()
    metrics.attempt_settled(ok=True, final=True)
    metrics.attempt_settled(ok=False, final=False)
    metrics.attempt_settled(ok=False, final=False)
    metrics.attempt_settled(ok=False, final=True)
    registry = metrics.registry
    assert value(registry, "svc_delivery_attempts_total", status="SUCCESS", final="true") == 1
    assert value(registry, "svc_delivery_attempts_total", status="FAILED", final="false") == 2
    assert value(registry, "svc_delivery_attempts_total", status="FAILED", final="true") == 1
    assert value(registry, "svc_delivery_attempts_total", status="SUCCESS", final="false") == 0


def test_runs_and_jobs_are_counted_by_final_status_and_exist_at_zero() -> None:
    metrics = WorkerMetrics()
    registry = metrics.registry
    assert value(registry, "svc_scheduled_runs_total", status="FAILED") == 0
    assert value(registry, "svc_query_jobs_total", kind="LOAD", state="TIMED_OUT") == 0
    assert value(registry, "svc_query_jobs_total", kind="QUERY", state="RUNNING") is None  # not final
    metrics.run_ended("SUCCEEDED")
    metrics.job_ended("QUERY", "CANCELLED")
    assert value(registry, "svc_scheduled_runs_total", status="SUCCEEDED") == 1
    assert value(registry, "svc_query_jobs_total", kind="QUERY", state="CANCELLED") == 1


def test_two_workers_metrics_do_not_share_a_registry() -> None:
    first, second = WorkerMetrics(), WorkerMetrics()
    first.queue_lag.observe(0.2)
    assert value(first.registry, "svc_delivery_queue_lag_seconds_count") == 1
    assert value(second.registry, "svc_delivery_queue_lag_seconds_count") == 0
