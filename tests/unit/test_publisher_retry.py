"""A send that reaches a broker restarted after a crash before its topics exist is tried again, briefly."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiokafka.errors import KafkaConnectionError, UnknownError, UnknownTopicOrPartitionError

from schemas.settings import Settings
from sinks import kafka
from sinks.exceptions import BrokerUnavailable
from sinks.kafka import Publisher


class _Producer:
    def __init__(self, failures: list[Exception]) -> None:
        self.failures = failures
        self.sends = 0

    async def send_and_wait(self, topic: str, value: bytes, **_: Any) -> str:
        self.sends += 1
        if self.failures:
            raise self.failures.pop(0)
        return f"{topic}:{value.decode()}"


def _publisher(producer: _Producer) -> Publisher:
    publisher = Publisher(Settings(kafka_bootstrap="127.0.0.1:9"))
    publisher._pacers = {}  # every send at once: the retries are what is counted
    publisher._producer = producer
    return publisher


@pytest.fixture(autouse=True)
def _no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kafka, "_NOT_YET_RETRY_SECONDS", 0.0)


def test_a_topic_the_broker_does_not_know_yet_is_sent_again() -> None:
    producer = _Producer([UnknownError(), UnknownTopicOrPartitionError()])
    sent = asyncio.run(_publisher(producer).send("t", b"v", key=None, limit_seconds=5))
    assert sent == "t:v"
    assert producer.sends == 3


def test_an_error_that_lasts_is_the_broker_s_answer() -> None:
    producer = _Producer([UnknownError() for _ in range(100)])
    with pytest.raises(BrokerUnavailable, match="UnknownError"):
        asyncio.run(_publisher(producer).send("t", b"v", key=None, limit_seconds=5))
    assert producer.sends == kafka._NOT_YET_TRIES


def test_other_errors_are_not_sent_again_here() -> None:
    """aiokafka retries what it knows to be retriable itself; the rest is reported at once."""
    producer = _Producer([KafkaConnectionError()])
    with pytest.raises(BrokerUnavailable, match="KafkaConnectionError"):
        asyncio.run(_publisher(producer).send("t", b"v", key=None, limit_seconds=5))
    assert producer.sends == 1
