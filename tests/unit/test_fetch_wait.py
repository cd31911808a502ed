"""The adaptive fetch wait: short while records arrive, longer under a heavy stream, back to the idle wait
once the topics go quiet."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest
from aiokafka.consumer.fetcher import READ_UNCOMMITTED, Fetcher, FetchResult, PartitionRecords
from aiokafka.record.default_records import DefaultRecordBatchBuilder
from aiokafka.record.memory_records import MemoryRecords
from aiokafka.structs import TopicPartition

from sinks.embedded_broker import fetch_wait
from sinks.embedded_broker.fetch_wait import LOADED_BYTES, FetchWait, adapt


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
    fetch_wait.get_actions_with_current_wait(fetcher, assignment)
    assert fetcher._fetch_max_wait_ms == 20
    wait.records_arrived()
    fetch_wait.get_actions_with_current_wait(fetcher, assignment)
    assert fetcher._fetch_max_wait_ms == 2


def test_a_heavy_fetch_makes_the_next_ones_wait_longer_until_one_brings_less() -> None:
    clock = Clock()
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=2.0, loaded_ms=10, clock=clock)
    wait.records_arrived(LOADED_BYTES - 1)
    assert wait.current_ms() == 2
    wait.records_arrived(LOADED_BYTES)
    assert wait.current_ms() == 10
    wait.records_arrived(5 * LOADED_BYTES)
    assert wait.current_ms() == 10
    wait.records_arrived(100)  # the stream thinned out: back to the short wait
    assert wait.current_ms() == 2
    wait.records_arrived(LOADED_BYTES)
    wait.nothing_arrived()
    assert wait.current_ms() == 2
    clock.now += 2.1  # quiet: the idle wait, whatever came last
    assert wait.current_ms() == 20


def test_under_a_heavy_stream_the_next_fetch_is_held_until_the_loaded_wait_has_passed() -> None:
    """The broker answers at once when records are there, so the client spaces loaded fetches itself."""
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=2.0, loaded_ms=20, clock=Clock())
    wait.records_arrived(LOADED_BYTES)
    assert wait.spacing_seconds(0.005) == pytest.approx(0.015)
    assert wait.spacing_seconds(0.030) == 0.0  # a fetch that took longer: the next one goes at once
    wait.records_arrived(100)  # the stream thinned out: no hold
    assert wait.spacing_seconds(0.0) == 0.0
    assert FetchWait(idle_ms=20, busy_ms=2, busy_seconds=2.0).spacing_seconds(0.0) == 0.0


def test_without_a_loaded_wait_heavy_fetches_keep_the_busy_wait() -> None:
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=2.0)
    wait.records_arrived(100 * LOADED_BYTES)
    assert wait.current_ms() == 2


class _Records:
    def __init__(self, size: int) -> None:
        self.size = size

    def size_in_bytes(self) -> int:
        return self.size


def _buffered(size: int) -> Any:
    return SimpleNamespace(_partition_records=SimpleNamespace(_records=_Records(size)))


def test_a_fetch_reports_the_bytes_of_the_partitions_it_buffered() -> None:
    """Counted from the fetcher's buffer as aiokafka keeps it: a partition buffered before the fetch is not
    counted again, and a fetch that buffered nothing resets the loaded state."""
    clock = Clock()
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=2.0, loaded_ms=10, clock=clock)
    fetcher: Any = Fetcher.__new__(Fetcher)
    fetcher.svc_fetch_wait = wait
    fetcher._records = {TopicPartition("old", 0): _buffered(10 * LOADED_BYTES)}
    fetcher._fetch_waiters = set()
    fetched: list[dict[Any, Any]] = [
        {TopicPartition("a", 0): _buffered(600), TopicPartition("b", 0): _buffered(600)},
        {},
    ]

    async def fetch(self: Any, assignment: Any, node_id: Any, request: Any) -> bool:
        added = fetched.pop(0)
        self._records.update(added)
        return bool(added)

    original = fetch_wait._proc_fetch_request
    fetch_wait._proc_fetch_request = fetch
    try:
        assert asyncio.run(fetch_wait.proc_fetch_request_noting_records(fetcher, None, 0, None))
        assert wait.current_ms() == 10  # 1,200 bytes in the two new partitions
        assert not asyncio.run(fetch_wait.proc_fetch_request_noting_records(fetcher, None, 0, None))
        assert wait.current_ms() == 2
    finally:
        fetch_wait._proc_fetch_request = original


def test_a_fetch_held_for_spacing_wakes_the_consumer_and_ends_quietly_when_cancelled() -> None:
    """aiokafka wakes a consumer waiting for records when the fetch task ends, so the records a held fetch
    brought would wait out the hold: the consumer is woken before it. And ``Fetcher.close`` cancels its
    pending fetch tasks and awaits them: a held task must end as aiokafka's own method does on a cancel (no
    CancelledError), or the consumer's stop fails and the worker hangs until it is killed."""
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=2.0, loaded_ms=10_000)
    fetcher: Any = Fetcher.__new__(Fetcher)
    fetcher.svc_fetch_wait = wait
    fetcher._records = {}
    fetcher._fetch_waiters = set()

    async def fetch(self: Any, assignment: Any, node_id: Any, request: Any) -> bool:
        self._records[TopicPartition("a", 0)] = _buffered(10 * LOADED_BYTES)
        return True

    async def close_while_held() -> Any:
        waiting = asyncio.get_running_loop().create_future()  # a consumer waiting for records
        fetcher._fetch_waiters.add(waiting)
        task = asyncio.ensure_future(fetch_wait.proc_fetch_request_noting_records(fetcher, None, 0, None))
        while not fetcher._records:
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)  # now in the spacing hold (10 s)
        assert waiting.done()  # woken before the hold, not when the task ends
        task.cancel()
        return await task  # as Fetcher.close does

    original = fetch_wait._proc_fetch_request
    fetch_wait._proc_fetch_request = fetch
    try:
        assert asyncio.run(asyncio.wait_for(close_while_held(), 5)) is True
    finally:
        fetch_wait._proc_fetch_request = original


def test_the_bytes_are_read_from_aiokafka_s_own_buffered_results() -> None:
    """Pins the aiokafka internals the count reads (a fetch result's partition records and their size)."""
    builder = DefaultRecordBatchBuilder(2, 0, 0, -1, -1, -1, 1 << 20)
    for offset in range(3):
        builder.append(offset, timestamp=None, key=None, value=b"x" * 400, headers=[])
    records = MemoryRecords(bytes(builder.build()))
    tp = TopicPartition("svc.webhook.deliveries", 0)
    partition_records = PartitionRecords(tp, records, [], 0, None, None, False, READ_UNCOMMITTED)
    fetcher: Any = SimpleNamespace(
        _records={tp: FetchResult(tp, assignment=None, partition_records=partition_records, backoff=0)}
    )
    assert fetch_wait._buffered(fetcher, set())[1] == records.size_in_bytes() > LOADED_BYTES
    assert fetch_wait._buffered(fetcher, {tp}) == (False, 0)


def test_records_of_interactive_topics_are_not_counted() -> None:
    """A query job's record is awaited by its caller: a dashboard's stream of queries must not make the next
    fetch wait the loaded wait, or each query would sit behind the hold its predecessor caused."""
    builder = DefaultRecordBatchBuilder(2, 0, 0, -1, -1, -1, 1 << 20)
    builder.append(0, timestamp=None, key=None, value=b"x" * 2 * LOADED_BYTES, headers=[])
    records = MemoryRecords(bytes(builder.build()))
    jobs, deliveries = TopicPartition("svc.analytics.jobs", 0), TopicPartition("svc.webhook.deliveries", 0)
    fetcher: Any = SimpleNamespace(
        _records={
            tp: FetchResult(
                tp,
                assignment=None,
                partition_records=PartitionRecords(tp, records, [], 0, None, None, False, READ_UNCOMMITTED),
                backoff=0,
            )
            for tp in (jobs, deliveries)
        }
    )
    interactive = frozenset({"svc.analytics.jobs"})
    assert fetch_wait._buffered(fetcher, {deliveries}, interactive) == (True, 0)
    assert fetch_wait._buffered(fetcher, set(), interactive) == (False, records.size_in_bytes())


def test_a_query_makes_the_wait_busy_only_while_no_query_runs() -> None:
    """The busy wait's 2 ms polls would run beside a query on DuckDB's cores; after the query the caller may
    send its next one, which the busy wait then sees at once. The quiet wait never comes while queries do."""
    clock = Clock()
    wait = FetchWait(
        idle_ms=20, busy_ms=2, busy_seconds=2.0, quiet_ms=500, quiet_after_seconds=10.0, clock=clock
    )
    wait.interactive_arrived()
    assert wait.current_ms() == 2  # between the record and the query's start
    wait.work_started()
    assert wait.current_ms() == 20
    clock.now += 9.0
    assert wait.current_ms() == 20  # 9 s after the record: idle, not quiet yet
    wait.work_ended()
    assert wait.current_ms() == 2
    clock.now += 2.0
    assert wait.current_ms() == 20
    clock.now += 8.0
    assert wait.current_ms() == 500
    wait.records_arrived()  # a stream's records make it busy even while a query runs
    wait.work_started()
    assert wait.current_ms() == 2


def test_after_a_query_the_wait_is_busy_for_its_own_window() -> None:
    """The caller's next query comes within milliseconds of the answer; polls every 2 ms for the whole busy
    window would take the cores of the short queries the ingress answers meanwhile."""
    clock = Clock()
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=2.0, after_work_seconds=0.25, clock=clock)
    wait.work_started()
    wait.work_ended()
    assert wait.current_ms() == 2
    clock.now += 0.2
    assert wait.current_ms() == 2
    clock.now += 0.1
    assert wait.current_ms() == 20
    wait.interactive_arrived()  # the next query's record: busy for the whole window until it starts
    clock.now += 1.5
    assert wait.current_ms() == 2


def test_a_fetch_of_query_records_only_never_makes_the_wait_loaded() -> None:
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=2.0, loaded_ms=10, clock=Clock())
    fetcher: Any = Fetcher.__new__(Fetcher)
    fetcher.svc_fetch_wait = replace(wait, interactive=frozenset({"jobs"}))
    fetcher._records = {}
    fetcher._fetch_waiters = set()
    fetched = [{TopicPartition("jobs", 0): _buffered(600)}, {TopicPartition("deliveries", 0): _buffered(600)}]

    async def fetch(self: Any, assignment: Any, node_id: Any, request: Any) -> bool:
        self._records.update(fetched.pop(0))
        return True

    original = fetch_wait._proc_fetch_request
    fetch_wait._proc_fetch_request = fetch
    try:
        asyncio.run(fetch_wait.proc_fetch_request_noting_records(fetcher, None, 0, None))
        assert fetcher.svc_fetch_wait.current_ms() == 2  # busy, not loaded: 600 bytes of a query's record
        fetcher.svc_fetch_wait.work_started()
        assert fetcher.svc_fetch_wait.current_ms() == 20
        asyncio.run(fetch_wait.proc_fetch_request_noting_records(fetcher, None, 0, None))
        assert fetcher.svc_fetch_wait.current_ms() == 10  # loaded: 600 bytes of deliveries
    finally:
        fetch_wait._proc_fetch_request = original


def test_a_long_silence_makes_fetches_wait_the_quiet_wait_until_records_arrive() -> None:
    clock = Clock()
    wait = FetchWait(
        idle_ms=20, busy_ms=2, busy_seconds=2.0, quiet_ms=500, quiet_after_seconds=10.0, clock=clock
    )
    assert wait.current_ms() == 20  # a new worker polls at the idle wait for its first seconds
    clock.now += 10.0
    assert wait.current_ms() == 500
    wait.nothing_arrived()
    assert wait.current_ms() == 500
    wait.records_arrived()
    assert wait.current_ms() == 2
    clock.now += 2.0
    assert wait.current_ms() == 20
    clock.now += 7.9
    assert wait.current_ms() == 20
    clock.now += 0.1
    assert wait.current_ms() == 500


def test_without_a_quiet_wait_the_idle_wait_lasts() -> None:
    clock = Clock()
    wait = FetchWait(idle_ms=20, busy_ms=2, busy_seconds=2.0, clock=clock)
    clock.now += 3600
    assert wait.current_ms() == 20


def test_query_jobs_stay_interactive_in_every_topic_generation() -> None:
    interactive = frozenset({"svc.analytics.jobs"})
    assert fetch_wait.is_interactive("svc.analytics.jobs", interactive)
    assert fetch_wait.is_interactive("svc.analytics.jobs.g12", interactive)
    assert not fetch_wait.is_interactive("svc.webhook.deliveries.g12", interactive)
    assert not fetch_wait.is_interactive("svc.analytics.jobs.gx", interactive)
