"""One renewal of the embedded broker (sinks/embedded_broker/rotation.py) under a real ``svc worker``: the
worker reads the old generation to its end and moves to the new one without restarting, and the old
generation's topics are deleted. The broker is the suite's; only this test's prefixed topics are touched."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from schemas.records import generation_marker
from schemas.settings import Settings
from schemas.topics import SCHEDULE_TICKS, WEBHOOK_DELIVERIES, WEBHOOK_RESULTS, generation_topic
from sinks.embedded_broker.generations import GenerationNotice, Generations
from sinks.embedded_broker.rotation import RenewalTimes, renew, wait_committed_past
from sinks.kafka_admin import ensure_topics
from tests.fixtures.stack import Db, migrated
from tests.fixtures.worker import Worker

pytestmark = pytest.mark.integration
GUARD_SECONDS = 60.0  # a liveness guard only
TIMES = RenewalTimes(settle_seconds=0.5, drain_seconds=GUARD_SECONDS, release_seconds=3.0)


@pytest.fixture
def renewing(kafka_settings: Settings, tmp_path: Path) -> Iterator[tuple[Settings, GenerationNotice, Db]]:
    notice = GenerationNotice(tmp_path / "generations")
    settings = kafka_settings.model_copy(update={"embedded_broker_signal_file": notice.path})
    asyncio.run(ensure_topics(settings))
    with migrated(settings) as db:
        yield settings, notice, db
    notice.close()


async def produce(settings: Settings, topic: str, count: int) -> dict[TopicPartition, int]:
    """``count`` markers on partition 0 of ``topic`` (the agents skip them); the last one's offset."""
    producer = AIOKafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
    await producer.start()
    try:
        sent = None
        for _ in range(count):
            sent = await producer.send_and_wait(topic, generation_marker(0), partition=0)
        assert sent is not None
        return {TopicPartition(topic, 0): int(sent.offset)}
    finally:
        await producer.stop()


async def svc_topics(settings: Settings) -> set[str]:
    admin = AIOKafkaAdminClient(bootstrap_servers=settings.kafka_bootstrap)
    await admin.start()
    try:
        return {name for name in await admin.list_topics() if name.startswith(settings.topic_prefix)}
    finally:
        await admin.close()


def test_a_renewal_moves_a_running_worker_to_the_new_generation(
    renewing: tuple[Settings, GenerationNotice, Db], tmp_path: Path
) -> None:
    settings, notice, _db = renewing
    worker = Worker(settings, tmp_path / "worker.log")
    worker.start()
    try:
        ticks = settings.topic(SCHEDULE_TICKS)
        # The worker reads generation 0: what it holds is committed past before the renewal starts.
        assert asyncio.run(
            wait_committed_past(settings, asyncio.run(produce(settings, ticks, 20)), GUARD_SECONDS)
        )
        pid = worker.process.pid if worker.process is not None else None

        outcome = asyncio.run(renew(settings, notice, TIMES))

        assert outcome.generation == 1 and outcome.drained
        assert notice.current == Generations(produce=1, read_from=1, read_to=1)
        left = asyncio.run(svc_topics(settings))
        assert ticks not in left and settings.topic(WEBHOOK_DELIVERIES) not in left
        assert generation_topic(ticks, 1) in left
        assert settings.topic(WEBHOOK_RESULTS) in left  # outside consumers keep it one renewal longer
        assert {ticks, settings.topic(WEBHOOK_DELIVERIES)} <= set(outcome.deleted)
        assert settings.topic(WEBHOOK_RESULTS) not in outcome.deleted
        # The same worker process reads the new generation.
        assert worker.process is not None and worker.process.poll() is None and worker.process.pid == pid
        fresh = asyncio.run(produce(settings, generation_topic(ticks, 1), 5))
        assert asyncio.run(wait_committed_past(settings, fresh, GUARD_SECONDS))
    finally:
        worker.stop()
