"""The Faust app factory: one app per worker process, agents registered by area."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import faust
from faust.transport.drivers import aiokafka as faust_aiokafka

from schemas.settings import Settings
from schemas.topics import ANALYTICS_JOBS
from streams.fetch_wait import FetchWait, adapt

Area = Callable[[faust.App, Settings], None]
# Faust's own method, kept before svc/patches.py replaces it with worker_consumer_with_fetch_wait.
_create_worker_consumer = faust_aiokafka.AIOKafkaConsumerThread._create_worker_consumer


def worker_consumer_with_fetch_wait(self: Any, transport: Any) -> Any:
    """Faust's worker consumer with the adaptive fetch wait of our settings instead of its fixed 1.5 s
    (``streams/fetch_wait.py``); installed by svc/patches.py when a worker starts."""
    consumer = _create_worker_consumer(self, transport)
    wait = getattr(self.app, "svc_fetch_wait", None)
    if wait is not None:
        adapt(consumer, wait)
    return consumer


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
    app.svc_fetch_wait = FetchWait(  # type: ignore[attr-defined]
        idle_ms=settings.kafka_fetch_max_wait_ms,
        busy_ms=min(settings.kafka_fetch_busy_wait_ms, settings.kafka_fetch_max_wait_ms),
        busy_seconds=settings.kafka_fetch_busy_seconds,
        loaded_ms=min(settings.kafka_fetch_loaded_wait_ms, settings.kafka_fetch_max_wait_ms),
        quiet_ms=max(settings.kafka_fetch_quiet_wait_ms, settings.kafka_fetch_max_wait_ms),
        quiet_after_seconds=settings.kafka_fetch_quiet_after_seconds,
        interactive=frozenset({settings.topic(ANALYTICS_JOBS)}),
    )
    for register in areas:
        register(app, settings)
    return app


def raw_topic(app: faust.App, settings: Settings, name: str) -> faust.TopicT:
    """A topic of envelopes: raw bytes on the wire, parsed by the agent into ``Envelope``."""
    return app.topic(
        settings.topic(name),
        partitions=settings.partitions(name),
        key_type=bytes,
        value_type=bytes,
        value_serializer="raw",
        key_serializer="raw",
    )
