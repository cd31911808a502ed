"""Group commit: many small units of work from concurrent requests share one transaction.

On SQLite every commit takes the single write lock; at a thousand deliveries a second a commit per request
queues the requests behind each other. One thread drains a queue of work items and commits them together;
each caller awaits its own future, resolved only after the commit, so an answer still means "durable".
A failing batch is replayed item by item, so one bad item never fails its neighbours.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from sqlalchemy.orm import Session, sessionmaker

log = logging.getLogger(__name__)
T = TypeVar("T")
Work = Callable[[Session], Any]
_STOP = object()


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

    def submit(self, work: Callable[[Session], T]) -> Future[T]:
        if not self._started:
            raise RuntimeError("the group committer is not running")
        future: Future[T] = Future()
        self._queue.put((work, future))
        return future

    async def run(self, work: Callable[[Session], T]) -> T:
        return await asyncio.wrap_future(self.submit(work))

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
            self._commit(batch)  # type: ignore[arg-type]

    def _commit(self, batch: list[tuple[Work, Future[Any]]]) -> None:
        try:
            with self._sessions.begin() as session:
                results = [work(session) for work, _future in batch]
        except Exception as exc:
            if len(batch) == 1:
                log.warning("unit of work failed", extra={"error": type(exc).__name__})
                batch[0][1].set_exception(exc)
                return
            # Work items touch only the DB, so replaying them one by one is safe.
            for item in batch:
                self._commit([item])
            return
        for (_work, future), result in zip(batch, results, strict=True):
            future.set_result(result)
