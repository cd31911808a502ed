import asyncio
import time

import faust
import pytest
from aiokafka.admin import AIOKafkaAdminClient

from schemas.envelopes import Envelope
from schemas.records import DeliveryTask, decode_from_topic
from schemas.settings import Settings
from schemas.topics import ALL_TOPICS, WEBHOOK_DELIVERIES
from sinks.kafka import Publisher
from sinks.kafka_admin import broker_reachable, ensure_topics
from streams.app import create_app, raw_topic
from tests.fixtures.broker import reading

pytestmark = pytest.mark.integration


async def test_topics_are_created_once_with_the_configured_partitions(kafka_settings: Settings) -> None:
    created = await ensure_topics(kafka_settings)
    assert sorted(created) == sorted(kafka_settings.topic(name) for name in ALL_TOPICS)
    assert await ensure_topics(kafka_settings) == []
    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_settings.kafka_bootstrap)
    await admin.start()
    try:
        described = await admin.describe_topics([kafka_settings.topic(name) for name in ALL_TOPICS])
    finally:
        await admin.close()
    partitions = {topic["topic"]: len(topic["partitions"]) for topic in described}
    assert kafka_settings.delivery_topic_partitions != kafka_settings.topic_partitions
    assert partitions == {
        kafka_settings.topic(name): (
            kafka_settings.delivery_topic_partitions
            if name == WEBHOOK_DELIVERIES
            else kafka_settings.topic_partitions
        )
        for name in ALL_TOPICS
    }


async def test_publish_is_acknowledged_and_consumable(kafka_settings: Settings) -> None:
    await ensure_topics(kafka_settings)
    publisher = Publisher(kafka_settings)
    await publisher.start()
    try:
        sent = DeliveryTask(entry_id="e", execution_id="x", webhook_id="w", company_id="c", attempt_number=1)
        await publisher.publish_record(sent, key="company-1")
    finally:
        await publisher.stop()
    topic, group = kafka_settings.topic(WEBHOOK_DELIVERIES), f"{kafka_settings.worker_id}-probe"
    async with reading(kafka_settings, topic, group) as consumer:
        record = await asyncio.wait_for(consumer.getone(), timeout=20)
    assert record.key == b"company-1"
    assert decode_from_topic(WEBHOOK_DELIVERIES, record.value) == sent


async def test_unreachable_broker_is_reported() -> None:
    assert not await broker_reachable("127.0.0.1:1", timeout_seconds=0.5)


async def test_faust_app_factory_runs_an_agent(kafka_settings: Settings) -> None:
    await ensure_topics(kafka_settings, ["plumbing"])
    received: list[Envelope] = []

    def area(app: faust.App, settings: Settings) -> None:
        @app.agent(raw_topic(app, settings, "plumbing"))
        async def collect(stream: faust.StreamT[bytes]) -> None:
            async for value in stream:
                received.append(Envelope.from_bytes(value))

    app = create_app(kafka_settings, areas=[area])
    assert app.conf.broker_session_timeout == 10
    assert app.conf.consumer_auto_offset_reset == "earliest"
    publisher = Publisher(kafka_settings)
    await publisher.start()
    sent = [Envelope(type="test.n", payload={"n": n}) for n in range(5)]
    for envelope in sent:
        topic = kafka_settings.topic("plumbing")
        await publisher.send(topic, envelope.to_bytes(), key=str(envelope.payload["n"]), limit_seconds=10)
    await app.start()
    try:
        deadline = time.monotonic() + 45
        while len(received) < len(sent) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
    finally:
        await app.stop()
        await publisher.stop()
    assert sorted(e.payload["n"] for e in received) == [0, 1, 2, 3, 4]
