"""The Faust app factory: one app per worker process, agents registered by area."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import faust

from schemas.settings import Settings
from schemas.topics import ANALYTICS_JOBS
from sinks.embedded_broker.consumer_topics import follow_generations, signal_of, topic_names
from sinks.embedded_broker.fetch_wait import FetchWait
from sinks.embedded_broker.profile import tuning_of
from streams.metrics import MetricsService, WorkerMetrics

Area = Callable[[faust.App, Settings], None]


def create_app(settings: Settings, *, areas: Sequence[Area] = (), app_id: str | None = None) -> faust.App:
    """Build the app with timeouts that rebalance in about a second (Faust's 60 s defaults stall a join)."""
    if not settings.kafka_bootstrap:
        raise ValueError("the broker address must be resolved before the worker starts")
    # Faust keeps its (unused, memory:// store) table folders under <data dir>/faust, not the working dir;
    # it creates that folder, not its parents.
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    app = faust.App(
        app_id or settings.worker_id,
        broker=[f"kafka://{server}" for server in settings.kafka_bootstrap.split(",")],
        store="memory://",
        datadir=str(settings.data_dir / "faust"),
        autodiscover=False,
        web_enabled=False,
        topic_partitions=settings.topic_partitions,
        topic_replication_factor=settings.topic_replication,
        topic_allow_declare=True,
        broker_session_timeout=settings.kafka_session_timeout_seconds,
        broker_rebalance_timeout=10,
        broker_heartbeat_interval=1,
        broker_max_poll_records=50,
        broker_commit_every=100,
        broker_commit_interval=1.0,
        consumer_auto_offset_reset="earliest",
        producer_acks=-1,
        producer_linger=0.002,
        stream_wait_empty=True,
    )
    tuning = tuning_of(settings)
    app.svc_fetch_wait = FetchWait(  # type: ignore[attr-defined]
        idle_ms=tuning.idle_wait_ms,
        busy_ms=tuning.busy_wait_ms,
        busy_seconds=tuning.busy_seconds,
        loaded_ms=tuning.loaded_wait_ms,
        quiet_ms=tuning.quiet_wait_ms,
        quiet_after_seconds=tuning.quiet_after_seconds,
        after_work_seconds=tuning.busy_after_query_seconds,
        interactive=frozenset({settings.topic(ANALYTICS_JOBS)}),
    )
    signal = signal_of(settings)
    app.svc_generations = signal  # type: ignore[attr-defined]
    metrics = WorkerMetrics()
    app.svc_metrics = metrics  # type: ignore[attr-defined]
    app.service(MetricsService(metrics, settings.metrics_host, settings.worker_metrics_port))  # type: ignore[arg-type]
    for register in areas:
        register(app, settings)
    if settings.embedded_broker_signal_file is not None:
        follow_generations(app, settings, signal)  # the agents follow the embedded broker's renewals
    return app


def raw_topic(app: faust.App, settings: Settings, name: str) -> faust.TopicT:
    """A topic of envelopes: raw bytes on the wire, parsed by the agent into ``Envelope``."""
    signal = getattr(app, "svc_generations", None) or signal_of(settings)
    return app.topic(
        *topic_names(settings, name, signal),
        partitions=settings.partitions(name),
        key_type=bytes,
        value_type=bytes,
        value_serializer="raw",
        key_serializer="raw",
    )


def metrics_of(app: faust.App) -> WorkerMetrics:
    """The process's metrics, which every area counts in (one registry, one listener)."""
    found = getattr(app, "svc_metrics", None)
    return found if isinstance(found, WorkerMetrics) else WorkerMetrics()
