"""The embedded broker's watch (svc/broker_watch.py) against a real embedded broker of its own: it reads end
offsets and memory without creating a topic, names the partition that grew too long, and asks for one
recycle per interval. No clock is asserted on."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from schemas.settings import Settings
from schemas.topics import TABLE_APPENDS, WEBHOOK_DELIVERIES, WEBHOOK_RESULTS
from sinks.kafka import ensure_topics
from svc import broker
from svc.broker_watch import BrokerWatch
from tests.fixtures.stack import make_settings

pytestmark = pytest.mark.integration
GUARD_SECONDS = 30.0  # a liveness guard only


@pytest.fixture
def tansu(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = broker.free_port()
    process = broker.start_tansu(port, tmp_path / "broker.log")
    bootstrap = f"127.0.0.1:{port}"
    try:
        broker.wait_reachable(bootstrap, 30, process)
        yield process, bootstrap
    finally:
        process.kill()
        process.wait()


def settings_for(tmp_path: Path, bootstrap: str, **overrides: object) -> Settings:
    limits: dict[str, object] = {
        "embedded_broker_recycle_records": 50,
        "embedded_broker_recycle_mib": 0,
        "embedded_broker_recycle_min_seconds": 600,
        "embedded_broker_check_seconds": 0.05,
    }
    return make_settings(tmp_path / "data", kafka_bootstrap=bootstrap, **{**limits, **overrides})


async def produce(bootstrap: str, topic: str, count: int, partition: int) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        for n in range(count):  # one batch each, as a stream of lone deliveries makes them
            await producer.send_and_wait(topic, str(n).encode(), partition=partition)
    finally:
        await producer.stop()


async def topic_names(bootstrap: str) -> set[str]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap)
    await consumer.start()
    try:
        return set(await consumer.topics())
    finally:
        await consumer.stop()


def test_a_partition_the_workers_read_past_the_limit_is_named(
    tansu: tuple[subprocess.Popen[bytes], str], tmp_path: Path
) -> None:
    process, bootstrap = tansu
    settings = settings_for(tmp_path, bootstrap)
    asyncio.run(ensure_topics(settings))
    watch = BrokerWatch(settings, bootstrap, lambda: process)
    assert watch.check() is None
    # The result topic only outside consumers read: its length is not a reason.
    asyncio.run(produce(bootstrap, settings.topic(WEBHOOK_RESULTS), 60, 0))
    asyncio.run(produce(bootstrap, settings.topic(TABLE_APPENDS), 49, 1))
    assert watch.check() is None
    asyncio.run(produce(bootstrap, settings.topic(WEBHOOK_DELIVERIES), 50, 3))
    assert watch.check() == f"partition 3 of {settings.topic(WEBHOOK_DELIVERIES)} holds 50 records"


def test_asking_creates_no_topic(tansu: tuple[subprocess.Popen[bytes], str], tmp_path: Path) -> None:
    """A fresh broker makes a topic a client asks about, with its own partition count: the watch must not
    ask before svc up has created them."""
    process, bootstrap = tansu
    settings = settings_for(tmp_path, bootstrap)
    watch = BrokerWatch(settings, bootstrap, lambda: process)
    assert watch.check() is None
    assert not {
        name for name in asyncio.run(topic_names(bootstrap)) if name.startswith(settings.topic_prefix)
    }


def test_memory_past_the_limit_is_a_reason(
    tansu: tuple[subprocess.Popen[bytes], str], tmp_path: Path
) -> None:
    process, bootstrap = tansu
    settings = settings_for(tmp_path, bootstrap, embedded_broker_recycle_mib=1)
    watch = BrokerWatch(settings, bootstrap, lambda: process)
    reason = watch.check()
    assert reason is not None and reason.startswith("the broker holds ") and reason.endswith(" MiB")


def test_one_recycle_per_interval(tansu: tuple[subprocess.Popen[bytes], str], tmp_path: Path) -> None:
    process, bootstrap = tansu
    settings = settings_for(tmp_path, bootstrap, embedded_broker_recycle_mib=1)
    watch = BrokerWatch(settings, bootstrap, lambda: process)
    asked: list[str] = []
    watch.start()
    try:
        deadline = time.monotonic() + GUARD_SECONDS
        while not asked:
            assert time.monotonic() < deadline, "the watch never asked"
            watch.recycle_when_due(lambda: asked.append("recycle"))
            time.sleep(0.02)
        time.sleep(0.5)  # ten more checks: each finds the limit passed, none may ask within the interval
        for _ in range(10):
            watch.recycle_when_due(lambda: asked.append("recycle"))
    finally:
        watch.stop()
    assert asked == ["recycle"]


def test_an_unreachable_broker_decides_nothing(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, f"127.0.0.1:{broker.free_port()}", embedded_broker_recycle_mib=1)
    gone = subprocess.Popen(["true"])
    gone.wait()
    assert BrokerWatch(settings, settings.kafka_bootstrap or "", lambda: gone).check() is None
