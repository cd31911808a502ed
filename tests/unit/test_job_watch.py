"""The query watcher's stop (streams/analytics/jobs.py): DuckDB drops an interrupt that comes while no
statement runs, so the watcher repeats it until the run ends, the job's heartbeat kept meanwhile, so no
reconciler takes the stopped run for lost and runs it again."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from schemas.jobs import JobState
from streams.analytics.jobs import AnalyticsRuntime


class _Committer:
    """Answers each heartbeat with the job's state in the database."""

    def __init__(self, state: str) -> None:
        self.state, self.beats = state, 0

    async def run(self, call: Any) -> str:
        self.beats += 1
        return self.state


class _Runtime:
    def __init__(self, state: str) -> None:
        self.committer = _Committer(state)


async def _watch_a_run_that_drops(interrupts: int, state: str, deadline_in: float) -> tuple[Any, int, int]:
    loop = asyncio.get_running_loop()
    work: asyncio.Future[None] = loop.create_future()
    taken = 0

    def interrupt() -> None:  # the first ones come before the statement runs, and are dropped
        nonlocal taken
        taken += 1
        if taken == interrupts and not work.done():
            work.set_result(None)

    runtime = _Runtime(state)
    watch = AnalyticsRuntime._watch
    stopped = await watch(runtime, "job", work, interrupt, time.monotonic() + deadline_in)  # type: ignore[arg-type]
    return stopped, taken, runtime.committer.beats


def test_a_timed_out_run_is_interrupted_until_it_ends_and_keeps_its_heartbeat() -> None:
    stopped, taken, beats = asyncio.run(_watch_a_run_that_drops(6, JobState.RUNNING.value, 0.0))
    assert stopped is JobState.TIMED_OUT
    assert taken == 6
    assert beats >= 1  # six rounds of 0.25 s: at least one heartbeat while the stop was repeated


def test_a_cancelled_run_is_interrupted_until_it_ends() -> None:
    stopped, taken, _ = asyncio.run(_watch_a_run_that_drops(3, JobState.CANCELLED.value, 3600.0))
    assert stopped is JobState.CANCELLED
    assert taken == 3
