"""The one Kafka producer per process (topic creation and the reachability probe: sinks/kafka_admin.py).

The producer is the one place that knows about the embedded broker's renewal: it reads the topic generation
to write to (and whether the broker is away) from ``sinks/embedded_broker/generations.py`` at each send, so
its callers read the same for the embedded broker and Apache Kafka."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import ClassVar

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError, UnknownError, UnknownTopicOrPartitionError
from aiokafka.structs import RecordMetadata

from schemas.records import Record, encode
from schemas.settings import Settings
from schemas.topics import ALL_TOPICS, generation_topic
from sinks.embedded_broker.client import PACED_TOPICS, BatchPacer, StickyPartitioner
from sinks.embedded_broker.generations import GenerationSignal
from sinks.embedded_broker.profile import tuning_of
from sinks.exceptions import BrokerAway, BrokerUnavailable

log = logging.getLogger(__name__)
# A broker started again after a crash listens some milliseconds before its topics exist, and answers a
# produce meanwhile with one of these, which aiokafka does not retry. Nothing was appended, so the send is
# tried again, this long apart, for at most half a second (creating the topics takes less than 50 ms) and
# within its time limit; an error that lasts longer is the broker's answer.
_NOT_YET_ERRORS = (UnknownError, UnknownTopicOrPartitionError)
_NOT_YET_RETRY_SECONDS = 0.02
_NOT_YET_TRIES = 25


class Publisher:
    """Produces with ``acks=all`` and reports a failed produce as :class:`BrokerUnavailable`.

    One per process: the areas of a worker share :meth:`shared`, which starts the producer for its first user
    and stops it after its last. An svc record goes to its topic in the generation the embedded broker's
    signal names (``sinks/embedded_broker/generations.py``; always generation 0 on Apache Kafka); while the
    broker is away (restarting after a crash) a send raises :class:`BrokerAway` untried.
    """

    _shared: ClassVar[dict[tuple[str, str], Publisher]] = {}

    def __init__(
        self, settings: Settings, *, timeout_seconds: float = 10.0, signal: GenerationSignal | None = None
    ) -> None:
        if not settings.kafka_bootstrap:
            raise ValueError("the broker address must be resolved before producing")
        self._settings = settings
        self._timeout = timeout_seconds
        self.signal = signal or GenerationSignal.open(settings.embedded_broker_signal_file)
        self._producer: AIOKafkaProducer | None = None
        self._pacers = {name: BatchPacer(tuning_of(settings).batch_pace_ms / 1000) for name in PACED_TOPICS}
        # Every topic this producer sent to: its metadata refreshes name them, so a renewal's retired
        # generation is dropped from the list (the embedded broker creates a topic a metadata request names).
        self._topics: set[str] = set()
        self._generation = 0
        self._users = 0
        self._lock = asyncio.Lock()

    @classmethod
    def shared(cls, settings: Settings) -> Publisher:
        key = (settings.kafka_bootstrap or "", settings.topic_prefix)
        if key not in cls._shared:
            cls._shared[key] = cls(settings)
        return cls._shared[key]

    @property
    def paced_topics(self) -> dict[str, float]:
        """The topics (unprefixed names) whose sends are paced, with their pace in seconds."""
        return {name: pacer.pace_seconds for name, pacer in self._pacers.items()}

    async def start(self) -> None:
        async with self._lock:
            self._users += 1
            if self._producer is not None:
                return
            # Created here, not in __init__: aiokafka binds to the running event loop.
            producer = AIOKafkaProducer(
                bootstrap_servers=self._settings.kafka_bootstrap,
                client_id=f"{self._settings.worker_id}-producer",
                acks="all",
                enable_idempotence=self._settings.kafka_idempotence,
                # No linger: a lone record (a query job a caller waits on) leaves at once; under load records
                # still share batches, since they gather while the previous request is in flight.
                linger_ms=0,
                partitioner=StickyPartitioner(),
                request_timeout_ms=int(self._timeout * 1000),
            )
            await producer.start()
            self._producer = producer

    async def stop(self) -> None:
        async with self._lock:
            self._users = max(0, self._users - 1)
            if self._users == 0 and self._producer is not None:
                await self._producer.stop()
                self._producer = None

    def topic_now(self, name: str) -> str:
        """The full name of the svc topic ``name`` (unprefixed) that a send goes to now."""
        generations = self.signal.current()
        if generations.away:
            raise BrokerAway("the embedded broker is being started again")
        if generations.produce != self._generation:
            self._forget_retired(self._generation)
            self._generation = generations.produce
        return generation_topic(self._settings.topic(name), generations.produce)

    def _forget_retired(self, generation: int) -> None:
        retired = {generation_topic(self._settings.topic(name), generation) for name in ALL_TOPICS}
        self._topics -= retired
        if self._producer is not None:
            self._producer.client.set_topics(sorted(self._topics))

    async def publish_record(
        self, record: Record, *, key: str | None = None, headers: Sequence[tuple[str, bytes]] | None = None
    ) -> None:
        """Produce a record to the svc topic that carries its type (schemas/records.py) and wait for the
        broker's acknowledgement. Records without a key share a partition with the records sent at the same
        moment (:class:`StickyPartitioner`)."""
        if record.TOPIC is None:
            raise ValueError(f"{record.TYPE} records have no svc topic")
        pacer = self._pacers.get(record.TOPIC)
        if pacer is not None:
            await pacer.wait_turn()
        # Chosen after the pace's wait: a send never waits out a renewal's switch holding the old generation.
        topic = self.topic_now(record.TOPIC)
        await self._send(topic, encode(record), key=key, limit_seconds=self._timeout, headers=headers)

    async def send(
        self,
        topic: str,
        value: bytes,
        *,
        key: str | None,
        limit_seconds: float,
        headers: Sequence[tuple[str, bytes]] | None = None,
    ) -> RecordMetadata:
        """Produce raw bytes to a topic named in full (a handler's ``kafka://`` topic, say)."""
        if self.signal.away():
            raise BrokerAway("the embedded broker is being started again")
        return await self._send(topic, value, key=key, limit_seconds=limit_seconds, headers=headers)

    async def _send(
        self,
        topic: str,
        value: bytes,
        *,
        key: str | None,
        limit_seconds: float,
        headers: Sequence[tuple[str, bytes]] | None,
    ) -> RecordMetadata:
        if self._producer is None:
            raise BrokerUnavailable("the producer is not started")
        self._topics.add(topic)
        try:
            return await asyncio.wait_for(self._send_until_known(topic, value, key, headers), limit_seconds)
        except (KafkaError, TimeoutError) as exc:
            raise BrokerUnavailable(
                f"the message queue did not acknowledge the record: {type(exc).__name__}"
            ) from exc

    async def _send_until_known(
        self, topic: str, value: bytes, key: str | None, headers: Sequence[tuple[str, bytes]] | None
    ) -> RecordMetadata:
        """One send, tried again while the broker does not know the topic yet (``_NOT_YET_ERRORS``); the
        caller's time limit bounds the whole."""
        tries = 0
        while True:
            producer = self._producer
            if producer is None:
                raise BrokerUnavailable("the producer is stopped")
            try:
                metadata: RecordMetadata = await producer.send_and_wait(
                    topic,
                    value,
                    key=key.encode() if key else None,
                    headers=list(headers) if headers else None,
                )
                return metadata
            except _NOT_YET_ERRORS as exc:
                tries += 1
                if tries >= _NOT_YET_TRIES:
                    raise
                log.info(
                    "topic not known to the broker yet; sending again", extra={"error": type(exc).__name__}
                )
                await asyncio.sleep(_NOT_YET_RETRY_SECONDS)
