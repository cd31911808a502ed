"""Group commit: many small units of work from concurrent requests share one transaction.

On SQLite every commit takes the single write lock, so a commit per request would queue the requests
behind each other. One thread drains a queue of work items and commits them together; each caller awaits
its own future, resolved only after the commit, so an answer still means "durable". A failing batch is
replayed item by item, so one bad item never fails its neighbours. Each batch takes the write lock before
its first statement, after its turn among the group committers on the same file
(:mod:`sinks.db.write_lock`). Work of one kind that many callers submit can be :class:`Gathered`: the batch
writes all its items of a kind with one statement or one ``executemany``. The futures a batch served are
settled by one callback per event loop, since every thread-safe call wakes the loop with a system call.

A batch that finds the database unreachable (:mod:`sinks.db.availability`) is not replayed item by item.
Without ``retry`` (the ingress) every caller gets the error at once, and for ``fail_fast_seconds`` so does
every batch, untried (raised from what the first found, so a full disk still reads as one), so callers do
not pile up behind connection timeouts. With ``retry`` (the workers) the batch waits and runs again with
growing pauses until the database answers (or has room again) or the committer stops; that is safe because
units of work touch only the database and the workers' are compare-and-set.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy.orm import Session, sessionmaker

from sinks.db import write_lock
from sinks.db.availability import (
    Backoff,
    DatabaseUnreachable,
    OutageClock,
    contention,
    describe,
    unreachable,
)
from sinks.storage_full import full

log = logging.getLogger(__name__)
T = TypeVar("T")
A = TypeVar("A")
Work = Callable[[Session], Any]
_STOP = object()
# Failures in a row between two log lines while a worker's batch waits for the database.
_LOG_EVERY = 20


@dataclass(frozen=True)
class _Waiter:
    """The future a coroutine awaits, on its own loop."""

    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]


@dataclass(frozen=True)
class Gathered(Generic[A, T]):
    """A unit of work run together with the batch's other items of the same ``run_all``: one call
    ``run_all(session, [argument, ...])`` returns each item's result, in order."""

    run_all: Callable[[Session, list[A]], list[T]]
    argument: A

    def __call__(self, session: Session) -> T:
        return self.run_all(session, [self.argument])[0]


def _run_items(session: Session, works: list[Work]) -> list[Any]:
    """Each item's result; the Gathered items of one kind run in one call, where the first of them stands."""
    results: list[Any] = [None] * len(works)
    kinds: dict[Any, list[tuple[int, Any]]] = {}
    for index, work in enumerate(works):
        if isinstance(work, Gathered):
            kinds.setdefault(work.run_all, []).append((index, work.argument))
    for index, work in enumerate(works):
        if not isinstance(work, Gathered):
            results[index] = work(session)
        elif work.run_all in kinds:
            members = kinds.pop(work.run_all)
            gathered = work.run_all(session, [argument for _index, argument in members])
            for (member, _argument), result in zip(members, gathered, strict=True):
                results[member] = result
    return results


Outcome = tuple[_Waiter, bool, Any]
"""Who awaits a work item's result, whether the work succeeded, and its result or exception."""


class GroupCommitter:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        *,
        max_batch: int = 256,
        name: str = "group-commit",
        retry: Backoff | None = None,
        fail_fast_seconds: float = 1.0,
        outages: OutageClock | None = None,
        threads: int = 1,
    ) -> None:
        self._sessions = sessions
        bind = sessions.kw.get("bind")
        self._turns = write_lock.writer_turns(bind.url) if bind is not None else None
        self._max_batch = max_batch
        self._name = name
        self._retry = retry
        self._fail_fast_seconds = fail_fast_seconds
        self._outages = outages
        self._down_until = 0.0  # monotonic time before which batches fail untried (without retry)
        self._down_because: Exception | None = None  # what the batch that set it found: a full disk, say
        self._queue: queue.Queue[object] = queue.Queue()
        # More than one thread where the database takes concurrent writers (PostgreSQL): a batch waiting for
        # its COMMIT does not hold up the next one. Each thread gathers and commits its own batches.
        self._threads = [
            threading.Thread(target=self._run, name=name if n == 0 else f"{name}-{n + 1}", daemon=True)
            for n in range(max(1, threads))
        ]
        self._stopping = threading.Event()
        self._started = False

    def start(self) -> None:
        if not self._started:
            self._started = True
            for thread in self._threads:
                thread.start()

    def stop(self) -> None:
        """Finish everything already submitted, then stop; a batch waiting for the database fails."""
        if self._started:
            self._stopping.set()
            for _thread in self._threads:
                self._queue.put(_STOP)
            for thread in self._threads:
                thread.join()
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
            work: list[tuple[Work, _Waiter]] = batch  # type: ignore[assignment]
            try:
                outcomes = self._commit(work)
            except Exception as exc:  # a dead thread would leave every later caller waiting forever
                log.exception("group commit failed", extra={"committer": self._name})
                outcomes = [(waiter, False, exc) for _work, waiter in work]
            _settle(outcomes)

    def _commit(self, batch: list[tuple[Work, _Waiter]]) -> list[Outcome]:
        failures = 0
        while True:
            try:
                outcomes = self._commit_once(batch)
            except Exception as exc:
                if not unreachable(exc):
                    return self._replay(batch, exc)
                failures += 1
                if self._outages is not None and not contention(exc):
                    self._outages.failed()
                if not self._wait_to_retry(exc, failures, len(batch)):
                    return [(waiter, False, exc) for _work, waiter in batch]
                continue
            if failures:
                if self._outages is not None:
                    self._outages.answered()
                log.info(
                    "metadata database answers again", extra={"committer": self._name, "failures": failures}
                )
            return outcomes

    def _commit_once(self, batch: list[tuple[Work, _Waiter]]) -> list[Outcome]:
        if self._retry is None and time.monotonic() < self._down_until:
            raise DatabaseUnreachable(
                "the metadata database was unreachable a moment ago"
            ) from self._down_because
        turn = self._turns.turn() if self._turns is not None else contextlib.nullcontext()
        with turn, self._sessions.begin() as session:
            write_lock.take(session)
            results = _run_items(session, [work for work, _waiter in batch])
        return [(waiter, True, result) for (_work, waiter), result in zip(batch, results, strict=True)]

    def _replay(self, batch: list[tuple[Work, _Waiter]], exc: Exception) -> list[Outcome]:
        if len(batch) == 1:
            log.warning("unit of work failed", extra={"error": type(exc).__name__})
            return [(batch[0][1], False, exc)]
        # Work items touch only the DB, so replaying them one by one is safe.
        return [outcome for item in batch for outcome in self._commit([item])]

    def _wait_to_retry(self, exc: Exception, failures: int, items: int) -> bool:
        """After the batch found the database unreachable: True once it is time to try again, False when
        the batch fails now (no retry, or the committer is stopping). Its transaction did not commit, or
        its commit went unconfirmed (then running it again finds its work done)."""
        if isinstance(exc, DatabaseUnreachable):  # failed untried: said once already
            return False
        busy = contention(exc)  # SQLite's write lock stayed taken: the database is there
        what = (
            "write lock not taken"
            if busy
            else "storage full"
            if full(exc)
            else "metadata database unreachable"
        )
        extra = {"committer": self._name, "error": describe(exc), "items": items, "failures": failures}
        if self._retry is None or self._stopping.is_set():
            if not busy:  # the lock is per batch: the next batch waits for it afresh
                self._down_until = time.monotonic() + self._fail_fast_seconds
                self._down_because = exc
            log.warning(f"{what}; batch failed", extra=extra)
            return False
        if failures == 1 or failures % _LOG_EVERY == 0:
            log.warning(f"{what}; batch waits to run again", extra=extra)
        return not self._stopping.wait(self._retry.pause(failures))


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
