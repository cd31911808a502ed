"""A worker's consumer stops at once while its adaptive fetch wait holds a fetch
(sinks/embedded_broker/fetch_wait.py), on a real broker: aiokafka's ``Fetcher.close`` cancels the held fetch
and awaits it, and a cancellation escaping it would abort the stop (the worker then hung until it was
killed)."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.consumer.fetcher import Fetcher

from schemas.settings import Settings
from sinks.embedded_broker import fetch_wait
from sinks.embedded_broker.fetch_wait import LOADED_BYTES, FetchWait, adapt

pytestmark = pytest.mark.integration


async def test_a_consumer_stops_while_a_fetch_is_held_for_spacing(
    kafka_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Fetcher, "_proc_fetch_request", fetch_wait.proc_fetch_request_noting_records)
    monkeypatch.setattr(Fetcher, "_get_actions_per_node", fetch_wait.get_actions_with_current_wait)
    topic = kafka_settings.topic("fetch-hold")
    producer = AIOKafkaProducer(bootstrap_servers=kafka_settings.kafka_bootstrap)
    await producer.start()
    try:
        for _ in range(3):
            await producer.send_and_wait(topic, b"x" * 2 * LOADED_BYTES)
    finally:
        await producer.stop()
    # Every fetch that brings records holds the next one for 60 s: the stop below comes during a hold.
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=60.0, loaded_ms=60_000)
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=kafka_settings.kafka_bootstrap,
        group_id=f"{kafka_settings.worker_id}-hold",
        auto_offset_reset="earliest",
    )
    adapt(consumer, wait)
    await consumer.start()
    try:
        await asyncio.wait_for(consumer.getone(), timeout=20)
        assert wait.current_ms() == 60_000  # loaded: the fetch task now sleeps out its spacing
    finally:
        await asyncio.wait_for(consumer.stop(), timeout=10)  # raised CancelledError before the fix
