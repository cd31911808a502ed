"""Group commit: many small units of work from concurrent requests share one transaction.

On SQLite every commit takes the single write lock; at a thousand deliveries a second a commit per request
queues the requests behind each other. One thread drains a queue of work items and commits them together;
each caller awaits its own future, resolved only after the commit, so an answer still means "durable".
A failing batch is replayed item by item, so one bad item never fails its neighbours. Each batch takes the
database's write lock before its first statement (:mod:`sinks.db.write_lock`): at these rates nearly every
batch writes, and waiting for the lock in short steps keeps a batch out of SQLite's coarse sleeps.

The futures of the coroutines a batch served are settled by one callback per event loop, not one
thread-safe call each: every such call wakes the loop through its self-pipe (a system call), which at a
thousand deliveries a second cost the worker 5% of its CPU.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy.orm import Session, sessionmaker

from sinks.db import write_lock

log = logging.getLogger(__name__)
T = TypeVar("T")
Work = Callable[[Session], Any]
_STOP = object()


@dataclass(frozen=True)
class _Waiter:
    """The future a coroutine awaits, on its own loop."""

    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]


Outcome = tuple[_Waiter, bool, Any]
"""Who awaits a work item's result, whether the work succeeded, and its result or exception."""


class GroupCommitter:
    def __init__(
        self, sessions: sessionmaker[Session], *, max_batch: int = 256, name: str = "group-commit"
    ) -> None:
        self._sessions = sessions
        self._max_batch = max_batch
        self._queue: queue.Queue[object] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._started = False

    def start(self) -> None:
        if not self._started:
            self._started = True
            self._thread.start()

    def stop(self) -> None:
        """Finish everything already submitted, then stop."""
        if self._started:
            self._queue.put(_STOP)
            self._thread.join()
            self._started = False

    async def run(self, work: Callable[[Session], T]) -> T:
        if not self._started:
            raise RuntimeError("the group committer is not running")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put((work, _Waiter(loop, future)))
        return await future

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is _STOP:
                break
            batch = [first]
            while len(batch) < self._max_batch:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is _STOP:
                    stopping = True
                    break
                batch.append(item)
            _settle(self._commit(batch))  # type: ignore[arg-type]

    def _commit(self, batch: list[tuple[Work, _Waiter]]) -> list[Outcome]:
        try:
            with self._sessions.begin() as session:
                write_lock.take(session)
                results = [work(session) for work, _waiter in batch]
        except write_lock.WriteLockTimeout as exc:
            # No item ran: replaying them one by one would wait the whole timeout again for each.
            log.warning("write lock not taken", extra={"error": str(exc), "items": len(batch)})
            return [(waiter, False, exc) for _work, waiter in batch]
        except Exception as exc:
            if len(batch) == 1:
                log.warning("unit of work failed", extra={"error": type(exc).__name__})
                return [(batch[0][1], False, exc)]
            # Work items touch only the DB, so replaying them one by one is safe.
            return [outcome for item in batch for outcome in self._commit([item])]
        return [(waiter, True, result) for (_work, waiter), result in zip(batch, results, strict=True)]


def _settle(outcomes: list[Outcome]) -> None:
    """Resolve every future of a batch, each loop's futures in one call on that loop."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], bool, Any]]] = {}
    for waiter, ok, value in outcomes:
        by_loop.setdefault(waiter.loop, []).append((waiter.future, ok, value))
    for loop, settled in by_loop.items():
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody awaits these any more
            loop.call_soon_threadsafe(_settle_on_loop, settled)


def _settle_on_loop(settled: list[tuple[asyncio.Future[Any], bool, Any]]) -> None:
    for future, ok, value in settled:
        if future.done():  # the awaiting task was cancelled
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)
