"""The threads that run queries take SVC_QUERY_NICENESS (19 by default, Linux's idle class at 19, as the
script sandbox has it): DuckDB's own threads, started when a company's database opens, and the pool threads
that call DuckDB. Real DuckDB databases; the priorities read back from Linux."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from schemas.settings import Settings
from sinks.query_engine import QueryEngines
from sinks.thread_priority import lower_this_thread, thread_ids

pytestmark = pytest.mark.integration


def _priority(thread_id: int) -> tuple[int, bool]:
    return os.getpriority(os.PRIO_PROCESS, thread_id), os.sched_getscheduler(thread_id) == os.SCHED_IDLE


@pytest.mark.parametrize("niceness", [10, 19])
def test_duckdbs_threads_take_the_query_niceness(tmp_path: Path, niceness: int) -> None:
    before = thread_ids()
    engines = QueryEngines(tmp_path, threads=3, memory_limit="256MB", niceness=niceness)
    try:
        cursor = engines.cursor("acme")
        assert cursor.execute("SELECT count(*) FROM range(1000000)").fetchone() == (1_000_000,)
        python = {t.native_id for t in threading.enumerate()}
        started = thread_ids() - before - python
        assert len(started) >= 2  # DuckDB's threads beside the caller's
        for thread_id in started:
            assert _priority(thread_id) == (max(niceness, os.nice(0)), niceness == 19)
        # The service's own threads keep their priority.
        assert _priority(threading.get_native_id()) == (os.nice(0), False)
    finally:
        engines.close()


def test_the_threads_calling_duckdb_take_it_too() -> None:
    with ThreadPoolExecutor(1, initializer=lower_this_thread, initargs=(19,)) as pool:
        found = pool.submit(lambda: _priority(threading.get_native_id())).result()
    assert found == (19, True)


def test_a_niceness_of_zero_changes_nothing(tmp_path: Path) -> None:
    before = thread_ids()
    engines = QueryEngines(tmp_path, threads=2, memory_limit="256MB", niceness=0)
    try:
        engines.cursor("acme").execute("SELECT 1").fetchall()
        for thread_id in thread_ids() - before:
            assert _priority(thread_id) == (os.nice(0), False)
    finally:
        engines.close()


def test_the_default_is_the_idle_class() -> None:
    assert Settings.model_fields["query_niceness"].default == 19
