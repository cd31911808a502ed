"""Kafka administration: topic creation (in a topic generation of the embedded broker's renewal) and a
reachability probe. Imports nothing of the embedded broker's package, which uses it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError, TopicAlreadyExistsError

from schemas.settings import Settings
from schemas.topics import ALL_TOPICS, generation_topic

log = logging.getLogger(__name__)


async def ensure_topics(
    settings: Settings, names: Iterable[str] = ALL_TOPICS, *, generation: int = 0
) -> list[str]:
    """Create the prefixed topics (in ``generation``) that do not exist yet; returns the names created."""
    wanted = {generation_topic(settings.topic(name), generation): name for name in names}
    admin = AIOKafkaAdminClient(
        bootstrap_servers=settings.kafka_bootstrap, client_id=f"{settings.worker_id}-admin"
    )
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        missing = [topic for topic in wanted if topic not in existing]
        if missing:
            topics = [
                NewTopic(
                    topic,
                    num_partitions=settings.partitions(wanted[topic]),
                    replication_factor=settings.topic_replication,
                )
                for topic in missing
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
