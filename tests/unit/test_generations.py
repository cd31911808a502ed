"""The embedded broker's signal as ``svc up`` writes it and producers and workers read it
(sinks/embedded_broker/generations.py), and a publisher that follows it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from aiokafka import TopicPartition

from schemas.deliveries import DeliveryTask
from schemas.settings import Settings
from schemas.topics import generation_topic
from sinks.embedded_broker.consumer_topics import retarget, topic_names
from sinks.embedded_broker.generations import GenerationNotice, Generations, GenerationSignal
from sinks.embedded_broker.rotation import committed_past, retired_topics
from sinks.exceptions import BrokerAway
from sinks.kafka import Publisher

pytestmark = pytest.mark.unit


def test_the_reader_sees_each_change_the_notice_writes(tmp_path: Path) -> None:
    notice = GenerationNotice(tmp_path / "generations")
    reader = GenerationSignal.open(notice.path)
    try:
        assert reader.current() == Generations() and not reader.away()
        notice.set(Generations(produce=4, read_from=3, read_to=4))
        assert reader.current() == Generations(produce=4, read_from=3, read_to=4)
        assert list(reader.current().read) == [3, 4]
        notice.set_away(True)
        assert reader.away() and reader.current().produce == 4
        notice.set_away(False)
        assert not reader.away()
    finally:
        reader.close()
        notice.close()


def test_a_replace_changes_nothing_when_the_signal_moved(tmp_path: Path) -> None:
    notice = GenerationNotice(tmp_path / "generations")
    renewing = Generations(produce=1, read_from=0, read_to=1)
    assert notice.replace(Generations(), renewing)
    assert not notice.replace(Generations(), Generations(produce=9, read_from=9, read_to=9))
    assert notice.current == renewing
    notice.close()


def test_a_notice_starts_at_the_first_generation_whatever_a_previous_run_left(tmp_path: Path) -> None:
    path = tmp_path / "generations"
    path.write_bytes(Generations(produce=7, read_from=7, read_to=7, away=True).pack())
    notice = GenerationNotice(path)
    try:
        assert GenerationSignal.open(path).current() == Generations()
    finally:
        notice.close()


@pytest.mark.parametrize("content", [None, b"", b"\x01"])
def test_no_file_or_a_short_one_is_the_first_generation_present(
    tmp_path: Path, content: bytes | None
) -> None:
    path = tmp_path / "generations"
    if content is not None:
        path.write_bytes(content)
    for signal in (GenerationSignal.open(path), GenerationSignal.open(None)):
        assert signal.current() == Generations() and not signal.away()


def test_generation_zero_keeps_the_plain_names() -> None:
    assert generation_topic("svc.webhook.deliveries", 0) == "svc.webhook.deliveries"
    assert generation_topic("svc.webhook.deliveries", 12) == "svc.webhook.deliveries.g12"


def test_a_publisher_does_not_try_while_the_broker_is_away(tmp_path: Path) -> None:
    notice = GenerationNotice(tmp_path / "generations")
    notice.set_away(True)
    # Never started and pointed at a closed port: only the signal can answer at once.
    publisher = Publisher(Settings(kafka_bootstrap="127.0.0.1:9"), signal=GenerationSignal.open(notice.path))
    task = DeliveryTask(entry_id="e", execution_id="x", webhook_id="w", company_id="c", attempt_number=1)
    with pytest.raises(BrokerAway):
        asyncio.run(publisher.publish_record(task))
    notice.close()


def test_a_publisher_writes_to_the_generation_the_signal_names(tmp_path: Path) -> None:
    notice = GenerationNotice(tmp_path / "generations")
    settings = Settings(kafka_bootstrap="127.0.0.1:9", embedded_broker_signal_file=notice.path)
    publisher = Publisher(settings)
    assert publisher.topic_now("webhook.deliveries") == "svc.webhook.deliveries"
    notice.set(Generations(produce=1, read_from=0, read_to=1))
    assert publisher.topic_now("webhook.deliveries") == "svc.webhook.deliveries.g1"
    assert publisher.topic_now("schedule.ticks") == "svc.schedule.ticks.g1"
    notice.close()


class Channel:
    def __init__(self, *topics: str) -> None:
        self.topics = list(topics)


def test_the_workers_channels_follow_the_generations_read(tmp_path: Path) -> None:
    notice = GenerationNotice(tmp_path / "generations")
    settings = Settings(embedded_broker_signal_file=notice.path)
    signal = GenerationSignal.open(notice.path)
    deliveries = Channel(*topic_names(settings, "webhook.deliveries", signal))
    handler_topic = Channel("orders")  # a topic users name: not svc's to move
    assert deliveries.topics == ["svc.webhook.deliveries"]
    assert retarget([deliveries, handler_topic], settings, range(0, 2))
    assert deliveries.topics == ["svc.webhook.deliveries", "svc.webhook.deliveries.g1"]
    assert not retarget([deliveries, handler_topic], settings, range(0, 2))  # nothing changed
    assert retarget([deliveries], settings, range(1, 2))
    assert deliveries.topics == ["svc.webhook.deliveries.g1"] and handler_topic.topics == ["orders"]
    notice.close()


def test_a_renewal_retires_older_generations_and_keeps_the_outside_topics_one_longer() -> None:
    settings = Settings()
    existing = [
        "svc.webhook.deliveries",
        "svc.webhook.deliveries.g1",
        "svc.webhook.deliveries.g2",
        "svc.webhook.results",
        "svc.webhook.results.g1",
        "svc.webhook.results.g2",
        "svc.scheduled.dead-letter.g1",
        "orders",  # a topic users name
        "orders.g1",
    ]
    assert retired_topics(settings, existing, 2) == [
        "svc.webhook.deliveries",
        "svc.webhook.deliveries.g1",
        "svc.webhook.results",
    ]


def test_the_old_generation_is_drained_once_every_marker_is_committed_past() -> None:
    markers = {TopicPartition("t", 0): 10, TopicPartition("t", 1): 0}
    assert committed_past({TopicPartition("t", 0): 11, TopicPartition("t", 1): 1}, markers)
    assert not committed_past({TopicPartition("t", 0): 10, TopicPartition("t", 1): 1}, markers)
    assert not committed_past({TopicPartition("t", 0): 11}, markers)  # nothing committed there yet
