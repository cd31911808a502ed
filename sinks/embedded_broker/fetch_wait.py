"""The worker consumer's adaptive fetch wait, for the embedded broker (the measurements behind it are in
docs/performance.md).

A fetch that finds no new record waits at the broker for the fetch wait. Kafka answers as soon as a record
arrives; the embedded broker holds every fetch for the whole wait, so the wait is a latency floor as well as
a cost. So the wait adapts: ``busy_ms`` while records keep arriving, ``loaded_ms`` (and the next fetch held
until then) after a fetch that brought a batch, ``idle_ms`` once the topics go quiet and ``quiet_ms`` after a
long silence. Records of the ``interactive`` topics (query jobs, which a caller waits on) never make a fetch
loaded, and keep it busy only while no query runs, so the polls do not compete with DuckDB for the cores.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiokafka.consumer.fetcher import Fetcher
from faust.transport.drivers import aiokafka as faust_aiokafka

# A fetch that brings this many bytes of records makes the next ones wait ``loaded_ms``: one record batch
# (a delivery record with its batch header is some 300 bytes), so a stream of a few hundred deliveries a
# second counts as loaded and is not fetched one delivery at a time.
LOADED_BYTES = 256


@dataclass
class FetchWait:
    """The next fetch's wait: ``loaded_ms`` after a fetch that brought ``LOADED_BYTES``, ``busy_ms`` until
    ``busy_seconds`` after the last records, ``quiet_ms`` from ``quiet_after_seconds`` after them (or after
    the start, before any), else ``idle_ms``."""

    idle_ms: int
    busy_ms: int
    busy_seconds: float
    loaded_ms: int | None = None  # None: never longer than ``busy_ms`` while busy
    quiet_ms: int | None = None  # None: never longer than ``idle_ms``
    quiet_after_seconds: float = 10.0
    # After a query ends, busy this long (None: ``busy_seconds``): its caller's next query, if it goes to a
    # worker, is sent within milliseconds, and short ones are answered in the ingress, beside these polls.
    after_work_seconds: float | None = None
    interactive: frozenset[str] = frozenset()  # topics whose records never make a fetch loaded
    clock: Callable[[], float] = time.monotonic
    _busy_until: float = float("-inf")
    _interactive_until: float = float("-inf")  # busy while no interactive work runs, until then
    _running: int = 0  # interactive work (queries) running now
    _last_records: float = float("nan")  # the start, until records arrive
    _loaded: bool = False

    def __post_init__(self) -> None:
        self._last_records = self.clock()

    def records_arrived(self, size_bytes: int = 0) -> None:
        self._last_records = self.clock()
        self._busy_until = self._last_records + self.busy_seconds
        self._loaded = size_bytes >= LOADED_BYTES

    def interactive_arrived(self) -> None:
        """Only records of the interactive topics: busy for ``busy_seconds`` unless a query runs."""
        self._last_records = self.clock()
        self._interactive_until = self._last_records + self.busy_seconds
        self._loaded = False

    def work_started(self) -> None:
        self._running += 1

    def work_ended(self) -> None:
        """A query ended: its caller may send the next one now."""
        self._running = max(0, self._running - 1)
        self.interactive_arrived()
        if self.after_work_seconds is not None:
            self._interactive_until = self._last_records + self.after_work_seconds

    def nothing_arrived(self) -> None:
        self._loaded = False

    def current_ms(self) -> int:
        now = self.clock()
        if now >= self._busy_until:
            if self._running == 0 and now < self._interactive_until:
                return self.busy_ms
            if self.quiet_ms is not None and now >= self._last_records + self.quiet_after_seconds:
                return self.quiet_ms
            return self.idle_ms
        if self._loaded and self.loaded_ms is not None:
            return self.loaded_ms
        return self.busy_ms

    def spacing_seconds(self, elapsed: float) -> float:
        """How long to hold the next fetch after one that took ``elapsed`` seconds: under a heavy stream,
        until ``loaded_ms`` after the last one began. The broker answers a fetch at once when records are
        already there, so only the client can space fetches out."""
        if not self._loaded or self.loaded_ms is None:
            return 0.0
        return max(0.0, self.loaded_ms / 1000 - elapsed)


# aiokafka's and Faust's own methods, kept before svc/patches.py replaces them with the functions below.
_proc_fetch_request = Fetcher._proc_fetch_request
_get_actions_per_node = Fetcher._get_actions_per_node
_create_worker_consumer = faust_aiokafka.AIOKafkaConsumerThread._create_worker_consumer


_GENERATION = re.compile(r"\.g[0-9]+$")


def is_interactive(topic: str, interactive: frozenset[str]) -> bool:
    """Whether ``topic`` is one of ``interactive`` in any topic generation (rotation.py renames them)."""
    return topic in interactive or _GENERATION.sub("", topic) in interactive


def _buffered(fetcher: Any, before: set[Any], interactive: frozenset[str] = frozenset()) -> tuple[bool, int]:
    """Whether the last fetch buffered records of ``interactive`` topics only, and the bytes of the others:
    the partitions it added to the fetcher's buffer (a partition whose earlier records are still buffered
    is not fetched again until they are taken)."""
    added = [(tp, result) for tp, result in list(fetcher._records.items()) if tp not in before]
    total = 0
    for tp, result in added:
        if not is_interactive(tp.topic, interactive):
            records = getattr(getattr(result, "_partition_records", None), "_records", None)
            total += records.size_in_bytes() if records is not None else 0
    return bool(added) and all(is_interactive(tp.topic, interactive) for tp, _ in added), total


async def proc_fetch_request_noting_records(self: Any, assignment: Any, node_id: Any, request: Any) -> Any:
    wait: FetchWait | None = getattr(self, "svc_fetch_wait", None)
    if wait is None:
        return await _proc_fetch_request(self, assignment, node_id, request)
    before = set(self._records)
    began = time.monotonic()
    got_records = await _proc_fetch_request(self, assignment, node_id, request)
    interactive_only, size = _buffered(self, before, wait.interactive) if got_records else (False, 0)
    if interactive_only:
        wait.interactive_arrived()
    elif got_records:
        wait.records_arrived(size)
        # The records are buffered; only the node's next fetch waits. aiokafka wakes a consumer waiting for
        # records when this task ends, so it is woken here, before the hold, as aiokafka would.
        pause = wait.spacing_seconds(time.monotonic() - began)
        if pause > 0:
            for waiter in list(self._fetch_waiters):
                self._notify(waiter)
            try:
                await asyncio.sleep(pause)
            except asyncio.CancelledError:
                # The fetcher closes (the worker stops) or the partitions moved: aiokafka cancels its fetch
                # tasks and awaits them, expecting them to end quietly as its own method does. Raised, the
                # cancellation would abort the consumer's stop and the worker would hang until killed.
                return got_records
    else:
        wait.nothing_arrived()
    return got_records


def get_actions_with_current_wait(self: Any, assignment: Any) -> Any:
    wait: FetchWait | None = getattr(self, "svc_fetch_wait", None)
    if wait is not None:
        self._fetch_max_wait_ms = wait.current_ms()
    return _get_actions_per_node(self, assignment)


# Installed on aiokafka's Fetcher by svc/patches.py when a worker starts. Fetchers without a
# ``svc_fetch_wait`` (every consumer but the worker's) behave exactly as before.


def adapt(consumer: Any, wait: FetchWait) -> None:
    """Give ``consumer`` (an aiokafka consumer, before its start) the adaptive ``wait``."""
    consumer._fetch_max_wait_ms = wait.idle_ms
    start = consumer.start

    async def start_then_adapt() -> None:
        await start()
        consumer._fetcher.svc_fetch_wait = wait

    consumer.start = start_then_adapt


def worker_consumer_with_fetch_wait(self: Any, transport: Any) -> Any:
    """Faust's worker consumer with the app's adaptive fetch wait (``app.svc_fetch_wait``) instead of its
    fixed 1.5 s; installed by svc/patches.py when a worker starts."""
    consumer = _create_worker_consumer(self, transport)
    wait = getattr(self.app, "svc_fetch_wait", None)
    if wait is not None:
        adapt(consumer, wait)
    return consumer
