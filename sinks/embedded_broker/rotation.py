"""The embedded broker's renewal: every svc topic moves to a new generation and the old one is deleted, which
frees its memory (docs/decisions/0001-embedded-broker-renewal.md). No worker stops.

1. Generation N+1's topics are created with the configured partition counts.
2. The signal says ``produce=N+1, read=N..N+1``: every producer sends to N+1 from its next send, every worker
   adds N+1's topics to its subscription.
3. After ``settle_seconds`` (a send that read the signal before the switch has landed by then) one marker
   record goes to each partition of N's worker topics; N is drained once the workers' group has committed
   past every marker, and then past a second round of them (for a send that landed after the settle). End
   offsets cannot say it: the embedded broker reports them wrong after a batched produce, while a single
   send's offset is right.
4. The signal says ``read=N+1``: the workers drop N. Once they have resubscribed, N's topics are deleted
   (a metadata request naming a topic makes the embedded broker create it again, so not sooner).

Every wait is bounded: past ``drain_seconds`` the old generation is deleted anyway, logged; the reconcilers
publish again from the metadata database whatever it still held (nothing acknowledged is lost). The topics
outside consumers read (webhook results, scheduled dead letters) are kept one renewal longer, so a consumer
that follows the generations has a whole renewal interval to finish the old one.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaError

from schemas.records import generation_marker
from schemas.settings import Settings
from schemas.topics import ALL_TOPICS, SCHEDULED_DEAD_LETTER, WEBHOOK_RESULTS, generation_topic
from sinks.embedded_broker.generations import GenerationNotice, Generations
from sinks.embedded_broker.watch import READ_TOPICS
from sinks.kafka_admin import ensure_topics

log = logging.getLogger(__name__)
# Read by consumers outside svc: deleted one renewal after the workers' topics of the same generation.
OUTSIDE_TOPICS = (WEBHOOK_RESULTS, SCHEDULED_DEAD_LETTER)
_POLL_SECONDS = 0.2
_REQUEST_SECONDS = 5.0


class RenewalAborted(RuntimeError):
    """The signal changed under the renewal (the broker crashed and ``svc up`` started it again)."""


@dataclass(frozen=True)
class RenewalTimes:
    # Sends that read the signal before the switch land within this.
    settle_seconds: float = 1.0
    # The longest the workers may take to read the old generation to its end.
    drain_seconds: float = 60.0
    # How long the workers take to drop the old generation from their subscription (follow interval,
    # resubscribe wait, one rebalance).
    release_seconds: float = 5.0


@dataclass(frozen=True)
class RenewalOutcome:
    generation: int
    drained: bool
    deleted: tuple[str, ...]


def group_id(settings: Settings) -> str:
    """The workers' consumer group (Faust's app id)."""
    return settings.worker_id


def _switch(notice: GenerationNotice, expected: Generations, to: Generations) -> None:
    if not notice.replace(expected, to):
        raise RenewalAborted(f"the signal moved to {notice.current} during the renewal")


async def renew(settings: Settings, notice: GenerationNotice, times: RenewalTimes) -> RenewalOutcome:
    """One renewal, from the generation the signal names now to the next one."""
    before = notice.current
    old, new = before.produce, before.produce + 1
    await ensure_topics(settings, generation=new)
    both = Generations(produce=new, read_from=old, read_to=new)
    _switch(notice, before, both)
    log.info("embedded broker renewal: producing to the new generation", extra={"generation": new})
    await asyncio.sleep(times.settle_seconds)
    deadline = time.monotonic() + times.drain_seconds
    drained = True
    # Twice: a send that chose the old generation before the switch but reached the broker after the first
    # markers (a stalled event loop, a slow machine) lies before the second ones, written once the workers
    # had read past the first.
    for _ in range(2):
        markers = await send_markers(settings, old)
        left = max(1.0, deadline - time.monotonic())
        if not await wait_committed_past(settings, markers, left):
            drained = False
            break
    if not drained:
        log.warning(
            "embedded broker renewal: the workers did not read the old generation to its end in time; "
            "deleting it anyway (the reconcilers publish its pending work again)",
            extra={"generation": old, "drain_seconds": times.drain_seconds},
        )
    only_new = Generations(produce=new, read_from=new, read_to=new)
    _switch(notice, both, only_new)
    await asyncio.sleep(times.release_seconds)
    deleted = await delete_retired(settings, new)
    log.info(
        "embedded broker renewed",
        extra={"generation": new, "drained": drained, "topics_deleted": len(deleted)},
    )
    return RenewalOutcome(new, drained, tuple(deleted))


async def send_markers(settings: Settings, generation: int) -> dict[TopicPartition, int]:
    """One marker record per partition of the workers' topics of ``generation``; their offsets."""
    producer = AIOKafkaProducer(
        bootstrap_servers=settings.kafka_bootstrap,
        client_id=f"{settings.worker_id}-renewal",
        acks="all",
        request_timeout_ms=int(_REQUEST_SECONDS * 1000),
    )
    await producer.start()
    try:
        marker = generation_marker(generation)
        offsets: dict[TopicPartition, int] = {}
        for name in READ_TOPICS:
            topic = generation_topic(settings.topic(name), generation)
            for partition in range(settings.partitions(name)):
                # One at a time: a single send's offset is the one the broker stored.
                sent = await producer.send_and_wait(topic, marker, partition=partition)
                offsets[TopicPartition(topic, partition)] = int(sent.offset)
        return offsets
    finally:
        await producer.stop()


def committed_past(committed: Mapping[TopicPartition, int], markers: Mapping[TopicPartition, int]) -> bool:
    """Whether the group's committed offset of every marked partition is past its marker."""
    return all(committed.get(tp, -1) > offset for tp, offset in markers.items())


async def wait_committed_past(
    settings: Settings, markers: Mapping[TopicPartition, int], timeout_seconds: float
) -> bool:
    """Whether the workers' group committed past every marker within ``timeout_seconds``. Read through a
    consumer of the group that never subscribes, so it never joins: the embedded broker does not answer the
    admin client's offset fetch."""
    reader = AIOKafkaConsumer(
        bootstrap_servers=settings.kafka_bootstrap,
        group_id=group_id(settings),
        enable_auto_commit=False,
        request_timeout_ms=int(_REQUEST_SECONDS * 1000),
    )
    await reader.start()
    deadline = time.monotonic() + timeout_seconds
    pending = dict(markers)
    try:
        while True:
            for tp in list(pending):
                try:
                    committed = await reader.committed(tp)
                except KafkaError as exc:
                    log.info("embedded broker renewal: offset not read", extra={"error": type(exc).__name__})
                    break
                if committed_past({tp: committed if committed is not None else -1}, {tp: pending[tp]}):
                    del pending[tp]
            if not pending:
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(_POLL_SECONDS)
    finally:
        await reader.stop()


def retired_topics(settings: Settings, existing: list[str], current: int) -> list[str]:
    """The svc topics of generations before ``current`` that may go: the workers' topics of every older
    generation, the outside consumers' topics of generations older than the one before."""
    workers = {settings.topic(name) for name in ALL_TOPICS if name not in OUTSIDE_TOPICS}
    outside = {settings.topic(name) for name in OUTSIDE_TOPICS}
    pattern = re.compile(r"^(?P<base>.+?)(?:\.g(?P<generation>[0-9]+))?$")
    retired = []
    for topic in existing:
        match = pattern.match(topic)
        if match is None:
            continue
        base, generation = match["base"], int(match["generation"] or 0)
        if (base in workers and generation < current) or (base in outside and generation < current - 1):
            retired.append(topic)
    return sorted(retired)


async def delete_retired(settings: Settings, current: int) -> list[str]:
    admin = AIOKafkaAdminClient(
        bootstrap_servers=settings.kafka_bootstrap, request_timeout_ms=int(_REQUEST_SECONDS * 1000)
    )
    await admin.start()
    try:
        retired = retired_topics(settings, list(await admin.list_topics()), current)
        if retired:
            await admin.delete_topics(retired)
        return retired
    finally:
        await admin.close()
