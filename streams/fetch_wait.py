"""An adaptive fetch wait for the worker's consumer.

A fetch that finds no new record waits at the broker for the fetch wait. Kafka answers as soon as a record
arrives, but the embedded broker (Tansu) holds every fetch for the whole wait, so a record produced just after
a fetch began sits unseen for up to that long. A short wait costs CPU on both sides even when nothing happens
(idle CPU of the whole ``svc up`` stack: 20 % of a core at 20 ms, 35 % at 5 ms).

So the wait adapts: while records keep arriving (within ``busy_seconds`` of the last fetch that brought one)
fetches wait ``busy_ms``; once the topics go quiet they wait ``idle_ms`` again. A burst of work (a
dashboard's queries, a stream of webhook deliveries) pays the long wait once, at its start.

Even ``idle_ms`` polls 50 times a second: 18 % of a core in the broker and 10 % in the worker for a stack
with nothing to do. After ``quiet_after_seconds`` without a record, fetches wait ``quiet_ms`` (Kafka's own
default wait): the first record after such a silence is seen up to that much later, and an idle stack costs
a few percent of a core.

Under a heavy stream the short wait costs the most: the embedded broker lists every stored batch of each
partition a fetch reads new records from, so a fetch every 2 ms at a thousand deliveries a second kept half a
core of it busy. A fetch that brings at least ``LOADED_BYTES`` of records (a record batch) makes the next
ones wait ``loaded_ms``; they stay there while each brings records and fall back to ``busy_ms`` once one
brings none. The broker answers a fetch at once when records are already there, so under a stream the wait
alone does not space fetches (some 125 a second at a thousand deliveries a second): a loaded fetch also
holds the next one until ``loaded_ms`` after it began (some 47 a second). A record that arrives meanwhile
waits at most ``loaded_ms`` more to be seen. The records the held fetch brought are handed to the consumer
before the hold: aiokafka wakes a waiting consumer only when the fetch task ends, and until 2026-11-27 they
waited out the hold too (at 1,000 deliveries a second, lag from the 202 to the handler p50 73 ms and p99
302 ms before, 36-43 ms and 75-102 ms after).

Records of the ``interactive`` topics never make a fetch loaded: a query job is one record that a caller
waits on, and a dashboard sending one query after another counted as a heavy stream, so each query's record
sat up to ``loaded_ms`` behind the hold its predecessor had caused (20 of a trivial query's 53 ms). Nor do
they make it busy while a query runs: the 2 ms polls that followed a query's record for ``busy_seconds`` kept
the broker and the worker busy on the cores DuckDB was running that query on (TPC-H q01, q03, q09, q13, q18
and q21 through the service: 3,217 ms against 2,554 ms without them). The worker's query runner says when
its queries start and end (``work_started``, ``work_ended``): the wait is busy for ``busy_seconds`` after a
query's record and after a query ends, while none runs, so the next query of a dashboard is still seen
within ``busy_ms``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiokafka.consumer.fetcher import Fetcher

# A fetch that brings this many bytes of records makes the next ones wait ``loaded_ms``: one record batch
# (a delivery record with its batch header is some 300 bytes). At three records (1 KiB), a stream of a few
# hundred deliveries a second never counted as loaded and was fetched every 2 ms, one fetch per delivery:
# the fetches' requests and answers were a sixth of the worker's CPU and a third of the broker's.
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


# aiokafka's own methods, kept before svc/patches.py replaces them with the two functions below.
_proc_fetch_request = Fetcher._proc_fetch_request
_get_actions_per_node = Fetcher._get_actions_per_node


def _buffered(fetcher: Any, before: set[Any], interactive: frozenset[str] = frozenset()) -> tuple[bool, int]:
    """Whether the last fetch buffered records of ``interactive`` topics only, and the bytes of the others:
    the partitions it added to the fetcher's buffer (a partition whose earlier records are still buffered
    is not fetched again until they are taken)."""
    added = [(tp, result) for tp, result in list(fetcher._records.items()) if tp not in before]
    total = 0
    for tp, result in added:
        if tp.topic not in interactive:
            records = getattr(getattr(result, "_partition_records", None), "_records", None)
            total += records.size_in_bytes() if records is not None else 0
    return bool(added) and all(tp.topic in interactive for tp, _ in added), total


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
