"""What a worker area that runs handlers needs, started and stopped with the Faust app: a DB engine with a
group committer, the process's producer, the handler invoker and the svcdb queue, and the tasks in flight.

While the metadata database cannot be reached (or written: its disk is full) the workers wait for it rather
than fail: the group committer runs a batch again, pausing longer each time
(``sinks.db.availability.Backoff``), and ``until_db`` does the same for the reads an area makes outside it.
An error raised by either while the worker stops, or any other error, is raised as before.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

import mode

from core.expiring import Expiring
from core.versions import Version, VersionNotResolved, resolve, selector_of
from schemas.settings import Settings
from sinks.db import resources
from sinks.db.availability import Backoff, OutageClock, describe, unreachable
from sinks.db.engine import make_engine, make_sessions
from sinks.db.group_commit import GroupCommitter
from sinks.db.resources import Registration
from sinks.exceptions import BrokerUnavailable
from sinks.handlers import HandlerInvoker
from sinks.kafka import Publisher
from sinks.storage_full import full
from sinks.svcdb_queue import SvcDbQueue
from streams.metrics import WorkerMetrics

log = logging.getLogger(__name__)
T = TypeVar("T")
# Failures in a row between two log lines while a read waits for the database.
_LOG_EVERY = 20
# How long after an outage the sweeps still allow for it: more than any piece of work runs (a handler's
# timeoutSeconds is at most 900 s).
OUTAGE_HORIZON_SECONDS = 3600.0

# A handler's registration (type and versions, each version's state and endpoint) is read at most this often
# per worker: a change, a newly published version included, applies to the work that starts after it, within
# this time.
HANDLER_CACHE_SECONDS = 1.0
_HANDLER_CACHE_SIZE = 10_000


class _NotKept(enum.Enum):
    """What the handler cache answers for a handler it does not keep (a handler found gone is kept too)."""

    NOT_KEPT = enum.auto()


async def survive_outage(call: Callable[[], Awaitable[None]], what: str) -> None:
    """For a timer's round: an unreachable database or message queue ends the round (the next one tries
    again) instead of crashing the Faust app. A crashed app stops its agents and timers while the process
    lives on, so nothing would restart it. What the round left undone stays in the database: work claimed
    but not published is QUEUED, and the reconcilers publish it again after ``SVC_QUEUED_GRACE_SECONDS``."""
    try:
        await call()
    except BrokerUnavailable as exc:
        log.warning(
            "message queue unavailable; the next round tries again", extra={"work": what, "error": str(exc)}
        )
    except Exception as exc:
        if not unreachable(exc):
            raise
        log.warning(
            f"{_outage(exc)}; the next round tries again", extra={"work": what, "error": describe(exc)}
        )


def _outage(exc: BaseException) -> str:
    """What a log line calls the outage: a full disk is waited out as an unreachable database is."""
    return "storage full" if full(exc) else "metadata database unreachable"


class HandlerUnavailable(Exception):
    """The handler a config names is gone, or has no version its config picks; the message says which."""


class WorkerRuntime(mode.Service):
    """The lifecycle every worker area shares: DB engine and group committer, the process's producer, and
    the tasks in flight, which a stop lets finish."""

    def __init__(
        self, settings: Settings, *, name: str, metrics: WorkerMetrics | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.settings = settings
        self.metrics = metrics or WorkerMetrics()
        self.engine = make_engine(settings.resolved_database_url)
        self.sessions = make_sessions(self.engine)
        self.backoff = Backoff()
        self.outages = OutageClock(margin=self.backoff.longest + 1.0, horizon=OUTAGE_HORIZON_SECONDS)
        self.committer = GroupCommitter(
            self.sessions,
            name=name,
            retry=self.backoff,
            outages=self.outages,
            threads=settings.resolved_db_committers,
        )
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

    async def until_db(self, call: Callable[[], Awaitable[T]], what: str) -> T:
        """``call()``, made again after a pause while it finds the metadata database unreachable; its error
        once the worker is stopping. ``call`` must be safe to repeat (a read, or idempotent work)."""
        failures = 0
        while True:
            try:
                result = await call()
            except Exception as exc:
                if not unreachable(exc) or self.should_stop:
                    raise
                failures += 1
                self.outages.failed()
                if failures == 1 or failures % _LOG_EVERY == 0:
                    log.warning(
                        f"{_outage(exc)}; waiting to try again",
                        extra={"work": what, "error": describe(exc), "failures": failures},
                    )
                await self.sleep(self.backoff.pause(failures))
                continue
            if failures:
                self.outages.answered()
                log.info("metadata database answers again", extra={"work": what, "failures": failures})
            return result


class HandlerRuntime(WorkerRuntime):
    """A worker area that runs handlers: adds the handler invoker and the svcdb queue."""

    def __init__(
        self, settings: Settings, *, name: str, metrics: WorkerMetrics | None = None, **kwargs: Any
    ) -> None:
        super().__init__(settings, name=name, metrics=metrics, **kwargs)
        self.svcdb = SvcDbQueue(self.committer, self.sessions, self.publisher)
        self.invoker = HandlerInvoker(self.publisher)
        self._handlers: Expiring[tuple[str, str], Registration | None] = Expiring(
            HANDLER_CACHE_SECONDS, _HANDLER_CACHE_SIZE
        )
        self._reading: dict[tuple[str, str], asyncio.Future[Registration | None]] = {}

    async def on_stop(self) -> None:
        await super().on_stop()
        await self.invoker.stop()

    def handler(self, company_id: str, resource_id: str) -> Registration | None:
        with self.sessions() as session:
            return resources.registration(session, company_id, resource_id)

    async def cached_handler(self, company_id: str, resource_id: str) -> Registration | None:
        """The handler and its versions as registered at most ``HANDLER_CACHE_SECONDS`` ago (one DB read per
        handler per second instead of one per delivery). Deliveries that miss together share one read:
        without that, every delivery in flight when the entry expires read the row again."""
        key = (company_id, resource_id)
        hit = self._handlers.get(key, _NotKept.NOT_KEPT)
        if not isinstance(hit, _NotKept):
            return hit
        moment = time.monotonic()
        reading = self._reading.get(key)
        if reading is None:
            reading = asyncio.ensure_future(asyncio.to_thread(self.handler, company_id, resource_id))
            self._reading[key] = reading
            reading.add_done_callback(partial(self._handler_read, key, moment))
        # Shielded: one waiting delivery cancelled does not cancel the read the others wait on.
        return await asyncio.shield(reading)

    async def handler_version(
        self, company_id: str, resource_id: str, kind: str, stored_version: Any, label: str
    ) -> Version:
        """The version of the handler that a config's stored ``version`` object picks now, read through the
        cache (waiting out an unreachable database). ``HandlerUnavailable`` (final: no retry would find
        something else) when the handler is gone or no version matches; ``label`` names it in the message."""
        handler = await self.until_db(partial(self.cached_handler, company_id, resource_id), "handler lookup")
        if handler is None or handler.type != kind:
            raise HandlerUnavailable(f"{label} not found")
        try:
            return resolve(handler.versions, selector_of(stored_version), label)
        except VersionNotResolved as exc:
            raise HandlerUnavailable(str(exc)) from None

    def _handler_read(
        self, key: tuple[str, str], moment: float, reading: asyncio.Future[Registration | None]
    ) -> None:
        self._reading.pop(key, None)
        if reading.cancelled() or reading.exception() is not None:
            return
        self._handlers.put(key, reading.result(), moment)
