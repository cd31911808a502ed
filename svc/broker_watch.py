"""Watches the embedded broker for ``svc up`` and asks for it to be started afresh (core/broker_recycle.py).

A thread reads, every ``SVC_EMBEDDED_BROKER_CHECK_SECONDS``, the end offsets of the partitions the workers
read (one ListOffsets request; nothing is listed) and the broker's resident memory; when a limit is passed
it raises a flag that the supervisor's loop takes (``take``), so the restart itself runs where every other
child is tended. A check that fails (the broker is restarting, or too busy to answer in time) decides
nothing.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import threading
import time
from collections.abc import Callable

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.errors import KafkaError

from core.broker_recycle import RecycleLimits, may_recycle, recycle_reason
from schemas.settings import Settings
from schemas.topics import ANALYTICS_JOBS, SCHEDULE_TICKS, TABLE_APPENDS, WEBHOOK_DELIVERIES

log = logging.getLogger(__name__)

# The topics the workers consume: only their fetches pay for long partitions.
READ_TOPICS = (WEBHOOK_DELIVERIES, SCHEDULE_TICKS, ANALYTICS_JOBS, TABLE_APPENDS)
_CHECK_TIMEOUT_SECONDS = 5.0


def limits_of(settings: Settings) -> RecycleLimits:
    return RecycleLimits(
        records_per_partition=settings.embedded_broker_recycle_records,
        resident_mib=settings.embedded_broker_recycle_mib,
        min_interval_seconds=settings.embedded_broker_recycle_min_seconds,
    )


def resident_mib(pid: int) -> float | None:
    """The process's resident memory (VmRSS) in MiB, or None where /proc does not say."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


async def end_offsets(
    bootstrap: str, topics: list[str], timeout_seconds: float
) -> dict[tuple[str, int], int]:
    """The end offset of every partition of ``topics`` that exists. The metadata request names no topic (it
    asks for all), so a topic the broker does not have yet is not created by asking."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        enable_auto_commit=False,
        request_timeout_ms=int(timeout_seconds * 1000),
        metadata_max_age_ms=60_000,
    )
    await asyncio.wait_for(consumer.start(), timeout_seconds)
    try:
        existing = await asyncio.wait_for(consumer.topics(), timeout_seconds)
        partitions = [
            TopicPartition(topic, partition)
            for topic in topics
            if topic in existing
            for partition in sorted(consumer.partitions_for_topic(topic) or ())
        ]
        if not partitions:
            return {}
        found = await asyncio.wait_for(consumer.end_offsets(partitions), timeout_seconds)
        return {(tp.topic, tp.partition): int(offset) for tp, offset in found.items()}
    finally:
        await consumer.stop()


class BrokerWatch:
    """Decides, off the supervisor's loop, when the embedded broker should start afresh."""

    def __init__(
        self, settings: Settings, bootstrap: str, broker: Callable[[], subprocess.Popen[bytes]]
    ) -> None:
        self.limits = limits_of(settings)
        self.check_seconds = settings.embedded_broker_check_seconds
        self.bootstrap = bootstrap
        self.topics = [settings.topic(name) for name in READ_TOPICS]
        self.broker = broker  # the current process: a restart replaces it
        self.last_recycle: float | None = None
        self._reason: str | None = None
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="broker-watch", daemon=True)

    @property
    def enabled(self) -> bool:
        return self.limits.records_per_partition > 0 or self.limits.resident_mib > 0

    def start(self) -> None:
        if self.enabled:
            self._thread.start()

    def stop(self) -> None:
        self._stopped.set()

    def take(self) -> str | None:
        """The reason to start the broker afresh, once; None when there is none."""
        with self._lock:
            reason, self._reason = self._reason, None
            if reason is not None:
                self.last_recycle = time.monotonic()
        return reason

    def recycle_when_due(self, recycle: Callable[[], None]) -> None:
        """Called on the supervisor's loop: ``recycle`` (``Supervisor.renew_broker``) when a check found a
        reason."""
        reason = self.take()
        if reason is not None:
            log.warning("starting the embedded broker afresh", extra={"reason": reason})
            recycle()

    def check(self) -> str | None:
        """One check: the reason a limit gives now, or None (also when the broker did not answer)."""
        if not may_recycle(self.last_recycle, time.monotonic(), self.limits):
            return None
        process = self.broker()
        memory = resident_mib(process.pid) if process.poll() is None else None
        try:
            offsets = asyncio.run(end_offsets(self.bootstrap, self.topics, _CHECK_TIMEOUT_SECONDS))
        except (KafkaError, OSError, TimeoutError) as exc:
            log.info("embedded broker check skipped", extra={"reason": type(exc).__name__})
            return None
        return recycle_reason(offsets, memory, self.limits)

    def _run(self) -> None:
        while not self._stopped.wait(self.check_seconds):
            try:
                reason = self.check()
            except Exception:  # a dead thread would never check again
                log.exception("embedded broker check failed")
                continue
            if reason is not None:
                with self._lock:
                    # Not when the supervisor took a reason while this check ran: that broker is gone.
                    if may_recycle(self.last_recycle, time.monotonic(), self.limits):
                        self._reason = reason
