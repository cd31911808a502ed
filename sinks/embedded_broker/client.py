"""The producer's profile for the embedded broker: keyless records sticky to one partition per time slot,
and paced sends on the heaviest stream, so records leave and are stored in few, full batches.

The embedded broker's fetch lists every stored batch of each partition it reads new records from (see
docs/architecture.md), so fewer and fuller batches keep its CPU per record down. Both help Apache Kafka too
(its own producer has been sticky since 2.4), so the producer uses them whatever the profile.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from aiokafka.partitioner import DefaultPartitioner

from schemas.topics import WEBHOOK_DELIVERIES

# How long keyless records keep to one partition. Records sent together (a group commit's deliveries, a
# burst of retries) fall in one slot; successive slots take the partitions in turn.
STICKY_SLOT_NS = 10_000_000
# The stream that runs at thousands of records a second and that the worker reads: its sends are paced
# (BatchPacer). Webhook results are keyed over several partitions, so pacing them saves few batches.
PACED_TOPICS = (WEBHOOK_DELIVERIES,)


class StickyPartitioner:
    """Keyed records by the murmur2 hash of their key, as Kafka's default; keyless records to one partition
    per time slot, as Kafka's own producer has done for keyless records since 2.4.

    Records sent together then form one batch: one produce request and one stored batch instead of one per
    partition. That matters most on the embedded broker, whose fetch lists every stored batch of each
    partition it reads new records from (docs/architecture.md), so fewer and fuller batches keep its
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
