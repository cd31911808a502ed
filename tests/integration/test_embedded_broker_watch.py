"""The embedded broker's watch (sinks/embedded_broker/watch.py) against a real embedded broker of its own: it
reads end offsets and memory without creating a topic, names the partition that grew too long in the
generation written to now, and renews once per interval. No clock is asserted on."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from schemas.settings import Settings
from schemas.topics import TABLE_APPENDS, WEBHOOK_DELIVERIES, WEBHOOK_RESULTS, generation_topic
from sinks.embedded_broker import process as broker
from sinks.embedded_broker.generations import GenerationNotice, Generations
from sinks.embedded_broker.watch import BrokerWatch
from sinks.kafka_admin import ensure_topics
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
        "embedded_broker_renew_records": 50,
        "embedded_broker_renew_mib": 0,
        "embedded_broker_renew_min_seconds": 600,
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


def watch_of(
    settings: Settings, process: subprocess.Popen[bytes], tmp_path: Path, renew: list[str] | None = None
) -> BrokerWatch:
    notice = GenerationNotice(tmp_path / "generations")
    asked = renew if renew is not None else []
    return BrokerWatch(settings, lambda: process, notice, lambda: asked.append("renew"))


def test_a_partition_the_workers_read_past_the_limit_is_named(
    tansu: tuple[subprocess.Popen[bytes], str], tmp_path: Path
) -> None:
    process, bootstrap = tansu
    settings = settings_for(tmp_path, bootstrap)
    asyncio.run(ensure_topics(settings))
    watch = watch_of(settings, process, tmp_path)
    assert watch.check() is None
    # The result topic only outside consumers read: its length is not a reason.
    asyncio.run(produce(bootstrap, settings.topic(WEBHOOK_RESULTS), 60, 0))
    asyncio.run(produce(bootstrap, settings.topic(TABLE_APPENDS), 49, 1))
    assert watch.check() is None
    asyncio.run(produce(bootstrap, settings.topic(WEBHOOK_DELIVERIES), 50, 3))
    assert watch.check() == f"partition 3 of {settings.topic(WEBHOOK_DELIVERIES)} holds 50 records"


def test_the_generation_written_to_now_is_the_one_measured(
    tansu: tuple[subprocess.Popen[bytes], str], tmp_path: Path
) -> None:
    process, bootstrap = tansu
    settings = settings_for(tmp_path, bootstrap)
    asyncio.run(ensure_topics(settings))
    asyncio.run(ensure_topics(settings, generation=1))
    asyncio.run(produce(bootstrap, settings.topic(WEBHOOK_DELIVERIES), 50, 3))
    watch = watch_of(settings, process, tmp_path)
    assert watch.check() is not None
    watch.notice.set(Generations(produce=1, read_from=1, read_to=1))
    assert watch.check() is None  # generation 0 is being drained: its length is no reason any more
    asyncio.run(produce(bootstrap, generation_topic(settings.topic(TABLE_APPENDS), 1), 50, 0))
    assert watch.check() == f"partition 0 of {settings.topic(TABLE_APPENDS)}.g1 holds 50 records"


def test_asking_creates_no_topic(tansu: tuple[subprocess.Popen[bytes], str], tmp_path: Path) -> None:
    """A fresh broker makes a topic a client asks about, with its own partition count: the watch must not
    ask before svc up has created them."""
    process, bootstrap = tansu
    settings = settings_for(tmp_path, bootstrap)
    watch = watch_of(settings, process, tmp_path)
    assert watch.check() is None
    assert not {
        name for name in asyncio.run(topic_names(bootstrap)) if name.startswith(settings.topic_prefix)
    }


def test_memory_past_the_limit_is_a_reason(
    tansu: tuple[subprocess.Popen[bytes], str], tmp_path: Path
) -> None:
    process, bootstrap = tansu
    settings = settings_for(tmp_path, bootstrap, embedded_broker_renew_mib=1)
    watch = watch_of(settings, process, tmp_path)
    reason = watch.check()
    assert reason is not None and reason.startswith("the broker holds ") and reason.endswith(" MiB")


def test_one_renewal_per_interval(tansu: tuple[subprocess.Popen[bytes], str], tmp_path: Path) -> None:
    process, bootstrap = tansu
    settings = settings_for(tmp_path, bootstrap, embedded_broker_renew_mib=1)
    asked: list[str] = []
    watch = watch_of(settings, process, tmp_path, asked)
    watch.start()
    try:
        deadline = time.monotonic() + GUARD_SECONDS
        while not asked:
            assert time.monotonic() < deadline, "the watch never renewed"
            time.sleep(0.02)
        # Ten checks more at least: each finds the limit passed, none may renew within the interval.
        checks_later = time.monotonic() + 10 * settings.embedded_broker_check_seconds + 0.2
        while time.monotonic() < checks_later:
            assert not watch.renew_when_due()
            time.sleep(0.02)
    finally:
        watch.stop()
    assert asked == ["renew"]
    assert watch.check() is None  # the limit is passed still: only the interval holds it back


def test_an_unreachable_broker_decides_nothing(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, f"127.0.0.1:{broker.free_port()}", embedded_broker_renew_mib=1)
    gone = subprocess.Popen(["true"])
    gone.wait()
    assert watch_of(settings, gone, tmp_path).check() is None
