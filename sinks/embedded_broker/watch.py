"""Watches the embedded broker for ``svc up`` and renews it when a limit is passed (renewal_limits.py).

A thread reads, every ``SVC_EMBEDDED_BROKER_CHECK_SECONDS``, the end offsets of the partitions the workers
read (one ListOffsets request; nothing is listed) and the broker's resident memory; when a limit is passed
it runs the renewal (rotation.py) itself, off the supervisor's loop. A check that fails (the broker is
restarting, or too busy to answer in time) decides nothing.
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

from schemas.settings import Settings
from schemas.topics import ANALYTICS_JOBS, SCHEDULE_TICKS, TABLE_APPENDS, WEBHOOK_DELIVERIES, generation_topic
from sinks.embedded_broker.generations import GenerationNotice
from sinks.embedded_broker.renewal_limits import RenewalLimits, may_renew, renewal_reason

log = logging.getLogger(__name__)

# The topics the workers consume: only their fetches pay for long partitions.
READ_TOPICS = (WEBHOOK_DELIVERIES, SCHEDULE_TICKS, ANALYTICS_JOBS, TABLE_APPENDS)
_CHECK_TIMEOUT_SECONDS = 5.0


def limits_of(settings: Settings) -> RenewalLimits:
    return RenewalLimits(
        records_per_partition=settings.embedded_broker_renew_records,
        resident_mib=settings.embedded_broker_renew_mib,
        min_interval_seconds=settings.embedded_broker_renew_min_seconds,
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
    """Decides, off the supervisor's loop, when the embedded broker is renewed, and renews it.

    ``renew`` runs one renewal (``rotation.renew`` in ``svc up``); a test may give another."""

    def __init__(
        self,
        settings: Settings,
        broker: Callable[[], subprocess.Popen[bytes]],
        notice: GenerationNotice,
        renew: Callable[[], None],
    ) -> None:
        self.limits = limits_of(settings)
        self.check_seconds = settings.embedded_broker_check_seconds
        self.settings = settings
        self.broker = broker  # the current process: a restart replaces it
        self.notice = notice
        self.renew = renew
        self.last_renewal: float | None = None
        self.renewals = 0
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="broker-watch", daemon=True)

    @property
    def enabled(self) -> bool:
        return self.limits.enabled

    def start(self) -> None:
        if self.enabled:
            self._thread.start()

    def stop(self) -> None:
        self._stopped.set()

    def topics(self) -> list[str]:
        """The workers' topics in the generation they are written to now."""
        produce = self.notice.current.produce
        return [generation_topic(self.settings.topic(name), produce) for name in READ_TOPICS]

    def check(self) -> str | None:
        """One check: the reason a limit gives now, or None (also when the broker did not answer)."""
        if not may_renew(self.last_renewal, time.monotonic(), self.limits):
            return None
        process = self.broker()
        memory = resident_mib(process.pid) if process.poll() is None else None
        bootstrap = self.settings.kafka_bootstrap or ""
        try:
            offsets = asyncio.run(end_offsets(bootstrap, self.topics(), _CHECK_TIMEOUT_SECONDS))
        except (KafkaError, OSError, TimeoutError) as exc:
            log.info("embedded broker check skipped", extra={"reason": type(exc).__name__})
            return None
        return renewal_reason(offsets, memory, self.limits)

    def renew_when_due(self) -> bool:
        """One check and, when a limit is passed, one renewal; whether it renewed."""
        reason = self.check()
        if reason is None:
            return False
        self.last_renewal = time.monotonic()
        log.warning("renewing the embedded broker", extra={"reason": reason})
        self.renew()
        self.renewals += 1
        return True

    def _run(self) -> None:
        while not self._stopped.wait(self.check_seconds):
            try:
                self.renew_when_due()
            except Exception:  # a dead thread would never check again
                log.exception("embedded broker renewal failed")
