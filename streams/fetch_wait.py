"""An adaptive fetch wait for the worker's consumer.

A fetch that finds no new record waits at the broker for the fetch wait. Kafka answers as soon as a record
arrives, but the embedded broker (Tansu) holds every fetch for the whole wait, so a record produced just after
a fetch began sits unseen for up to that long. A short wait costs CPU on both sides even when nothing happens
(idle CPU of the whole ``svc up`` stack: 20 % of a core at 20 ms, 35 % at 5 ms).

So the wait adapts: while records keep arriving (within ``busy_seconds`` of the last fetch that brought one)
fetches wait ``busy_ms``; once the topics go quiet they wait ``idle_ms`` again. A burst of work (a
dashboard's queries, a stream of webhook deliveries) pays the long wait once, at its start, and an idle stack
pays nothing more.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiokafka.consumer.fetcher import Fetcher


@dataclass
class FetchWait:
    """The next fetch's wait: ``busy_ms`` until ``busy_seconds`` after the last records, else ``idle_ms``."""

    idle_ms: int
    busy_ms: int
    busy_seconds: float
    clock: Callable[[], float] = time.monotonic
    _busy_until: float = float("-inf")

    def records_arrived(self) -> None:
        self._busy_until = self.clock() + self.busy_seconds

    def current_ms(self) -> int:
        return self.busy_ms if self.clock() < self._busy_until else self.idle_ms


_proc_fetch_request = Fetcher._proc_fetch_request
_get_actions_per_node = Fetcher._get_actions_per_node


async def _proc_fetch_request_noting_records(self: Any, assignment: Any, node_id: Any, request: Any) -> Any:
    got_records = await _proc_fetch_request(self, assignment, node_id, request)
    wait: FetchWait | None = getattr(self, "svc_fetch_wait", None)
    if got_records and wait is not None:
        wait.records_arrived()
    return got_records


def _get_actions_with_current_wait(self: Any, assignment: Any) -> Any:
    wait: FetchWait | None = getattr(self, "svc_fetch_wait", None)
    if wait is not None:
        self._fetch_max_wait_ms = wait.current_ms()
    return _get_actions_per_node(self, assignment)


# Fetchers without a ``svc_fetch_wait`` (every consumer but the worker's) behave exactly as before.
Fetcher._proc_fetch_request = _proc_fetch_request_noting_records
Fetcher._get_actions_per_node = _get_actions_with_current_wait


def adapt(consumer: Any, wait: FetchWait) -> None:
    """Give ``consumer`` (an aiokafka consumer, before its start) the adaptive ``wait``."""
    consumer._fetch_max_wait_ms = wait.idle_ms
    start = consumer.start

    async def start_then_adapt() -> None:
        await start()
        consumer._fetcher.svc_fetch_wait = wait

    consumer.start = start_then_adapt
