"""The adaptive fetch wait: short while records arrive, back to the idle wait once the topics go quiet."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from aiokafka.consumer.fetcher import Fetcher

from streams.fetch_wait import FetchWait, adapt


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_idle_until_records_arrive_then_busy_for_the_window() -> None:
    clock = Clock()
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=2.0, clock=clock)
    assert wait.current_ms() == 20
    wait.records_arrived()
    assert wait.current_ms() == 2
    clock.now += 1.9
    assert wait.current_ms() == 2
    clock.now += 0.2
    assert wait.current_ms() == 20


def test_each_arrival_extends_the_busy_window() -> None:
    clock = Clock()
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=1.0, clock=clock)
    wait.records_arrived()
    clock.now += 0.9
    wait.records_arrived()
    clock.now += 0.9
    assert wait.current_ms() == 2


def test_adapt_sets_the_idle_wait_and_hands_the_wait_to_the_fetcher_on_start() -> None:
    started: list[bool] = []
    consumer: Any = SimpleNamespace(_fetch_max_wait_ms=1500, _fetcher=None)

    async def start() -> None:
        started.append(True)
        consumer._fetcher = SimpleNamespace()

    consumer.start = start
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=1.0)
    adapt(consumer, wait)
    assert consumer._fetch_max_wait_ms == 20
    asyncio.run(consumer.start())
    assert started == [True]
    assert consumer._fetcher.svc_fetch_wait is wait


def test_a_fetcher_uses_the_current_wait_when_it_plans_fetches() -> None:
    clock = Clock()
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=1.0, clock=clock)
    fetcher: Any = Fetcher.__new__(Fetcher)
    fetcher.svc_fetch_wait = wait
    fetcher._fetch_max_wait_ms = 1500
    fetcher._fetcher_timeout = 0.2
    assignment = SimpleNamespace(tps=[])
    fetcher._get_actions_per_node(assignment)
    assert fetcher._fetch_max_wait_ms == 20
    wait.records_arrived()
    fetcher._get_actions_per_node(assignment)
    assert fetcher._fetch_max_wait_ms == 2
