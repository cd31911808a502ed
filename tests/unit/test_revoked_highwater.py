"""The worker's high watermark of a partition a rebalance has just taken away (svc/patches.py,
``faust-highwater-of-a-revoked-partition``): None instead of aiokafka's assertion, which crashed the fetcher
during a renewal's subscription change."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from faust.transport.drivers.aiokafka import AIOKafkaConsumerThread
from faust.types import TP

from sinks.embedded_broker.consumer_topics import highwater_of_assigned


def _thread(consumer: AIOKafkaConsumer) -> SimpleNamespace:
    return SimpleNamespace(_ensure_consumer=lambda: consumer, consumer=SimpleNamespace(in_transaction=False))


async def test_a_revoked_partition_has_no_high_watermark_where_faust_would_crash() -> None:
    consumer = AIOKafkaConsumer(bootstrap_servers="127.0.0.1:9")  # never started: no broker is asked
    consumer.assign([TopicPartition("svc.webhook.deliveries", 0)])
    thread = _thread(consumer)
    assigned, revoked = TP("svc.webhook.deliveries", 0), TP("svc.webhook.deliveries", 1)
    assert highwater_of_assigned(thread, assigned) is None  # assigned, nothing fetched yet
    assert highwater_of_assigned(thread, revoked) is None
    # The positive control: Faust's own method asserts on the revoked partition.
    with pytest.raises(AssertionError, match="not assigned"):
        AIOKafkaConsumerThread.highwater(thread, revoked)  # type: ignore[arg-type]
    await asyncio.sleep(0)
    await consumer.stop()
