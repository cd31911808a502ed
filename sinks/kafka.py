"""Kafka adapters: the one producer per process, topic creation and a reachability probe."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar

from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError, TopicAlreadyExistsError, UnknownError, UnknownTopicOrPartitionError
from aiokafka.partitioner import DefaultPartitioner
from aiokafka.structs import RecordMetadata

from schemas.records import Record, encode
from schemas.settings import Settings
from schemas.topics import ALL_TOPICS, WEBHOOK_DELIVERIES
from sinks.broker_absence import BrokerAbsence
from sinks.exceptions import BrokerAway, BrokerUnavailable

log = logging.getLogger(__name__)
# How long keyless records keep to one partition. Records sent together (a group commit's deliveries, a
# burst of retries) fall in one slot; successive slots take the partitions in turn.
STICKY_SLOT_NS = 10_000_000
# The stream that runs at thousands of records a second and that the worker reads: its sends are paced
# (BatchPacer). Webhook results are keyed over several partitions, so pacing them saves few batches.
PACED_TOPICS = (WEBHOOK_DELIVERIES,)
# A broker started afresh (the embedded broker's renewal) listens some milliseconds before its topics exist,
# and answers a produce meanwhile with one of these, which aiokafka does not retry. Nothing was appended, so
# the send is tried again, this long apart, for at most half a second (creating the topics takes less than
# 50 ms) and within its time limit; an error that lasts longer is the broker's answer.
_NOT_YET_ERRORS = (UnknownError, UnknownTopicOrPartitionError)
_NOT_YET_RETRY_SECONDS = 0.02
_NOT_YET_TRIES = 25


class StickyPartitioner:
    """Keyed records by the murmur2 hash of their key, as Kafka's default; keyless records to one partition
    per time slot, as Kafka's own producer has done for keyless records since 2.4.

    Records sent together then form one batch: one produce request and one stored batch instead of one per
    partition. That matters most on the embedded broker, whose fetch lists every stored batch of each
    partition it reads new records from (see the README's notes on it), so fewer and fuller batches keep its
    CPU per record down.
    """

    def __init__(
        self, slot_ns: int = STICKY_SLOT_NS, clock_ns: Callable[[], int] = time.monotonic_ns
    ) -> None:
        self._slot_ns = slot_ns
        self._clock_ns = clock_ns
        self._keyed = DefaultPartitioner()

    def __call__(self, key: bytes | None, all_partitions: Sequence[int], available: Sequence[int]) -> int:
        if key is not None:
            return int(self._keyed(key, all_partitions, available))
        pool = sorted(available) if available else list(all_partitions)
        return pool[self._clock_ns() // self._slot_ns % len(pool)]


class BatchPacer:
    """Spaces one topic's sends at least ``pace_seconds`` apart, so a heavy stream leaves in few full batches.

    A send that finds the topic quiet (its last release ``pace_seconds`` ago or more) goes at once: a lone
    record waits for nothing. A send that arrives sooner waits for the topic's next release, with every other
    send that arrives meanwhile; they are all appended to the producer in the same moment, so they form one
    batch (keyless records share the sticky partition). Unlike the producer's ``linger_ms``, which holds every
    batch, only a stream pays, and at most ``pace_seconds``.
    """

    def __init__(self, pace_seconds: float) -> None:
        self.pace_seconds = pace_seconds
        self._released = float("-inf")  # loop time of the last release
        self._gate: asyncio.Future[None] | None = None

    async def wait_turn(self) -> None:
        if self.pace_seconds <= 0:
            return
        loop = asyncio.get_running_loop()
        if self._gate is not None and self._gate.get_loop() is not loop:
            self._gate = None  # left by a loop that stopped before its release (a publisher reused in tests)
        if self._gate is None:
            now = loop.time()
            if now >= self._released + self.pace_seconds:
                self._released = now
                return
            self._gate = loop.create_future()
            loop.call_at(self._released + self.pace_seconds, self._release)
        await asyncio.shield(self._gate)  # one caller cancelled (a timeout) must not cancel the others

    def _release(self) -> None:
        gate, self._gate = self._gate, None
        self._released = asyncio.get_running_loop().time()
        if gate is not None and not gate.done():
            gate.set_result(None)


class Publisher:
    """Produces with ``acks=all`` and reports a failed produce as :class:`BrokerUnavailable`.

    One per process: the areas of a worker share :meth:`shared`, which starts the producer for its first user
    and stops it after its last.
    """

    _shared: ClassVar[dict[tuple[str, str], Publisher]] = {}

    def __init__(
        self, settings: Settings, *, timeout_seconds: float = 10.0, absence: BrokerAbsence | None = None
    ) -> None:
        if not settings.kafka_bootstrap:
            raise ValueError("the broker address must be resolved before producing")
        self._settings = settings
        self._timeout = timeout_seconds
        # The ingress's: a send while `svc up` starts the embedded broker again raises BrokerAway untried.
        self.absence = absence or BrokerAbsence.never()
        self._producer: AIOKafkaProducer | None = None
        self._pacers = {
            settings.topic(name): BatchPacer(settings.kafka_batch_pace_ms / 1000) for name in PACED_TOPICS
        }
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
        """The topics (full names) whose sends are paced, with their pace in seconds."""
        return {topic: pacer.pace_seconds for topic, pacer in self._pacers.items()}

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

    async def publish_record(
        self, record: Record, *, key: str | None = None, headers: Sequence[tuple[str, bytes]] | None = None
    ) -> None:
        """Produce a record to the svc topic that carries its type (schemas/records.py) and wait for the
        broker's acknowledgement. Records without a key share a partition with the records sent at the same
        moment (:class:`StickyPartitioner`)."""
        if record.TOPIC is None:
            raise ValueError(f"{record.TYPE} records have no svc topic")
        await self.send(
            self._settings.topic(record.TOPIC),
            encode(record),
            key=key,
            limit_seconds=self._timeout,
            headers=headers,
        )

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
        if self.absence.away():
            raise BrokerAway("the embedded broker is being started again")
        if self._producer is None:
            raise BrokerUnavailable("the producer is not started")
        pacer = self._pacers.get(topic)
        if pacer is not None:
            await pacer.wait_turn()
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


async def ensure_topics(settings: Settings, names: Iterable[str] = ALL_TOPICS) -> list[str]:
    """Create the prefixed topics that do not exist yet; returns the names created."""
    admin = AIOKafkaAdminClient(
        bootstrap_servers=settings.kafka_bootstrap, client_id=f"{settings.worker_id}-admin"
    )
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        absent = [name for name in names if settings.topic(name) not in existing]
        missing = [settings.topic(name) for name in absent]
        if missing:
            topics = [
                NewTopic(
                    settings.topic(name),
                    num_partitions=settings.partitions(name),
                    replication_factor=settings.topic_replication,
                )
                for name in absent
            ]
            try:
                await admin.create_topics(topics)
            except TopicAlreadyExistsError:
                log.info("topics created concurrently", extra={"topics": missing})
        return missing
    finally:
        await admin.close()


async def broker_reachable(bootstrap: str, timeout_seconds: float = 2.0) -> bool:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=int(timeout_seconds * 1000))
    try:
        await asyncio.wait_for(admin.start(), timeout=timeout_seconds)
        await asyncio.wait_for(admin.list_topics(), timeout=timeout_seconds)
        return True
    except (KafkaError, TimeoutError, OSError):
        return False
    finally:
        await admin.close()
