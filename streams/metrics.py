"""A worker's Prometheus metrics, on a listener of its own (`SVC_METRICS_HOST`:`SVC_WORKER_METRICS_PORT`,
sinks/metrics_listener.py, the ingress's kind): delivery attempts by outcome, handler latency, queue lag,
scheduled runs and query jobs by final status (docs/operations.md#metrics).

Labels are the few values of an enum, never an id, and every child is made here once: prometheus_client's
``labels()`` takes a lock and builds a key on each call, which the delivery path should not pay."""

from __future__ import annotations

import asyncio
from typing import Any

import mode
from prometheus_client import CollectorRegistry, Counter, Histogram

from schemas.jobs import JobKind, JobState
from schemas.scheduled.events import RunStatus
from sinks.metrics_listener import MetricsListener

# A handler call is bounded by its webhook's timeoutSeconds (at most 900 s).
_HANDLER_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900)
# Queue lag is milliseconds when the workers keep up and minutes after an outage or a broker restart.
_LAG_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600)
# What a run a worker acted on ends with (SKIPPED: an svcdb action whose table is gone, told to skip).
_ENDED_RUNS = (RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.SKIPPED)


class WorkerMetrics:
    """One worker process's metrics in one registry, shared by its areas."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        attempts = Counter(
            "svc_delivery_attempts",
            "Webhook delivery attempts by outcome; final=true when no retry follows",
            ["status", "final"],
            registry=self.registry,
        )
        self._attempts = {
            (ok, final): attempts.labels("SUCCESS" if ok else "FAILED", "true" if final else "false")
            for ok in (True, False)
            for final in (True, False)
        }
        self.handler_seconds = Histogram(
            "svc_delivery_handler_seconds",
            "Duration of a delivery attempt's handler call",
            registry=self.registry,
            buckets=_HANDLER_BUCKETS,
        )
        self.queue_lag = Histogram(
            "svc_delivery_queue_lag_seconds",
            "From a delivery's acceptance to its first attempt's handler call",
            registry=self.registry,
            buckets=_LAG_BUCKETS,
        )
        runs = Counter(
            "svc_scheduled_runs", "Scheduled-event runs by final status", ["status"], registry=self.registry
        )
        self._runs = {status.value: runs.labels(status.value) for status in _ENDED_RUNS}
        self._runs_counter = runs
        jobs = Counter(
            "svc_query_jobs",
            "Query and load jobs the workers ran, by kind and final state",
            ["kind", "state"],
            registry=self.registry,
        )
        self._jobs = {
            (kind.value, state.value): jobs.labels(kind.value, state.value)
            for kind in (JobKind.QUERY, JobKind.LOAD)
            for state in JobState
            if state.final
        }
        self._jobs_counter = jobs

    def attempt_settled(self, ok: bool, final: bool) -> None:
        """An attempt's outcome recorded; ``final``: no attempt follows it."""
        self._attempts[ok, final].inc()

    def run_ended(self, status: str) -> None:
        child = self._runs.get(status)
        (child if child is not None else self._runs_counter.labels(status)).inc()

    def job_ended(self, kind: str, state: str) -> None:
        child = self._jobs.get((kind, state))
        (child if child is not None else self._jobs_counter.labels(kind, state)).inc()


class MetricsService(mode.Service):
    """The worker's listener, started and stopped with its Faust app; port 0 serves nothing."""

    def __init__(self, metrics: WorkerMetrics, host: str, port: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.listener = MetricsListener(metrics.registry, host, port)

    async def on_start(self) -> None:
        self.listener.start()

    async def on_stop(self) -> None:
        # The server's shutdown waits for its loop's next poll (up to half a second): off the event loop.
        await asyncio.to_thread(self.listener.stop)
