"""What a worker area that runs handlers needs, started and stopped with the Faust app: a DB engine with a
group committer, the process's producer, the handler invoker and the svcdb queue, and the tasks in flight."""

from __future__ import annotations

import asyncio
import time
from functools import partial
from typing import Any

import mode

from schemas.settings import Settings
from sinks.db import resources
from sinks.db.engine import make_engine, make_sessions
from sinks.db.group_commit import GroupCommitter
from sinks.db.models import HandlerResource
from sinks.handlers import HandlerInvoker
from sinks.kafka import Publisher
from sinks.svcdb_queue import SvcDbQueue

# A handler's registration (endpoint, type) is read at most this often per worker: a change applies to the
# deliveries that start after it, within this time.
HANDLER_CACHE_SECONDS = 1.0
_HANDLER_CACHE_SIZE = 10_000


class WorkerRuntime(mode.Service):
    """The lifecycle every worker area shares: DB engine and group committer, the process's producer, and
    the tasks in flight, which a stop lets finish."""

    def __init__(self, settings: Settings, *, name: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.settings = settings
        self.engine = make_engine(settings.resolved_database_url)
        self.sessions = make_sessions(self.engine)
        self.committer = GroupCommitter(self.sessions, name=name)
        self.publisher = Publisher.shared(settings)
        self.running: set[asyncio.Task[None]] = set()
        self.ready = asyncio.Event()

    async def on_start(self) -> None:
        self.committer.start()
        await self.publisher.start()
        self.ready.set()

    async def on_stop(self) -> None:
        if self.running:
            # Let work in flight finish and record its outcome; the reconcilers cover whatever cannot.
            await asyncio.wait(self.running, timeout=self.settings.shutdown_timeout_seconds)
        await self.publisher.stop()
        self.committer.stop()
        self.engine.dispose()


class HandlerRuntime(WorkerRuntime):
    """A worker area that runs handlers: adds the handler invoker and the svcdb queue."""

    def __init__(self, settings: Settings, *, name: str, **kwargs: Any) -> None:
        super().__init__(settings, name=name, **kwargs)
        self.svcdb = SvcDbQueue(self.committer, self.sessions, self.publisher)
        self.invoker = HandlerInvoker(self.publisher)
        self._handlers: dict[tuple[str, str], tuple[float, HandlerResource | None]] = {}
        self._reading: dict[tuple[str, str], asyncio.Future[HandlerResource | None]] = {}

    async def on_stop(self) -> None:
        await super().on_stop()
        await self.invoker.stop()

    def handler(self, company_id: str, resource_id: str) -> HandlerResource | None:
        with self.sessions() as session:
            return resources.get_handler(session, company_id, resource_id)

    async def cached_handler(self, company_id: str, resource_id: str) -> HandlerResource | None:
        """The handler as registered at most ``HANDLER_CACHE_SECONDS`` ago (one DB read per handler per
        second instead of one per delivery). Deliveries that miss together share one read: without that,
        every delivery in flight when the entry expires read the row again."""
        key = (company_id, resource_id)
        moment = time.monotonic()
        hit = self._handlers.get(key)
        if hit is not None and moment - hit[0] < HANDLER_CACHE_SECONDS:
            return hit[1]
        reading = self._reading.get(key)
        if reading is None:
            reading = asyncio.ensure_future(asyncio.to_thread(self.handler, company_id, resource_id))
            self._reading[key] = reading
            reading.add_done_callback(partial(self._handler_read, key, moment))
        # Shielded: one waiting delivery cancelled does not cancel the read the others wait on.
        return await asyncio.shield(reading)

    def _handler_read(
        self, key: tuple[str, str], moment: float, reading: asyncio.Future[HandlerResource | None]
    ) -> None:
        self._reading.pop(key, None)
        if reading.cancelled() or reading.exception() is not None:
            return
        if len(self._handlers) >= _HANDLER_CACHE_SIZE:
            self._handlers.clear()
        self._handlers[key] = (moment, reading.result())
