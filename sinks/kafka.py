"""Kafka adapters: the one producer per process, topic creation and a reachability probe."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError, TopicAlreadyExistsError

from schemas.envelopes import Envelope
from schemas.settings import Settings
from schemas.topics import ALL_TOPICS
from sinks.exceptions import BrokerUnavailable

log = logging.getLogger(__name__)


class Publisher:
    """Produces envelopes with ``acks=all`` and reports a failed produce as :class:`BrokerUnavailable`."""

    def __init__(self, settings: Settings, *, timeout_seconds: float = 10.0) -> None:
        if not settings.kafka_bootstrap:
            raise ValueError("the broker address must be resolved before producing")
        self._settings = settings
        self._timeout = timeout_seconds
        self._producer: AIOKafkaProducer | None = None

    async def start(self) -> None:
        # Created here, not in __init__: aiokafka binds to the running event loop.
        self._producer = AIOKafkaProducer(
            bootstrap_servers=self._settings.kafka_bootstrap,
            client_id=f"{self._settings.worker_id}-producer",
            acks="all",
            enable_idempotence=self._settings.kafka_idempotence,
            linger_ms=2,
            request_timeout_ms=int(self._timeout * 1000),
        )
        await self._producer.start()

    async def stop(self) -> None:
        if self._producer is not None:
            await self._producer.stop()
            self._producer = None

    async def publish(self, topic: str, envelope: Envelope, *, key: str | None = None) -> None:
        """Produce to the prefixed topic and wait for the broker's acknowledgement."""
        if self._producer is None:
            raise BrokerUnavailable("the producer is not started")
        try:
            await asyncio.wait_for(
                self._producer.send_and_wait(
                    self._settings.topic(topic), envelope.to_bytes(), key=key.encode() if key else None
                ),
                timeout=self._timeout,
            )
        except (KafkaError, TimeoutError) as exc:
            raise BrokerUnavailable(
                f"the message queue did not acknowledge the record: {type(exc).__name__}"
            ) from exc


async def ensure_topics(settings: Settings, names: Iterable[str] = ALL_TOPICS) -> list[str]:
    """Create the prefixed topics that do not exist yet; returns the names created."""
    admin = AIOKafkaAdminClient(
        bootstrap_servers=settings.kafka_bootstrap, client_id=f"{settings.worker_id}-admin"
    )
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        wanted = [settings.topic(name) for name in names]
        missing = [name for name in wanted if name not in existing]
        if missing:
            topics = [
                NewTopic(
                    name,
                    num_partitions=settings.topic_partitions,
                    replication_factor=settings.topic_replication,
                )
                for name in missing
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
