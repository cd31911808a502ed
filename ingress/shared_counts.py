"""Counts shared by the ingress processes: counted in memory at once, sent to the metadata DB in the
background.

A decision (a rate limit, a failed-authentication lockout) reads a count's *estimate*: the shared total as
this process last read it, plus the increments this process made since. A background thread sends those
increments every ``flush_seconds`` (sooner once a count has half its quantum unsent), one UPSERT row per
count, and reads the shared totals back (:mod:`sinks.db.counters`), so no request waits for the database.
A count the process only read since (a key it keeps refusing) is sent with nothing to add, to be read back.

The callers never let a process hold more than a *quantum* of unconfirmed increments per count. That bounds
the overshoot: when the last of P processes to read a shared total admitted its last hit, that total held
every increment the others had sent; only their unconfirmed ones, at most a quantum each, were hidden from
it. So P processes admit at most ``limit + (P - 1) * quantum`` hits in a window.

Without a store (tests, a single process) counts are confirmed the moment they are made.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from sinks.db.counters import CounterDelta

log = logging.getLogger(__name__)
MIN_FLUSH_GAP_SECONDS = 0.002


class CounterStore(Protocol):
    def add_and_read(self, deltas: Sequence[CounterDelta], now: float) -> list[int]: ...


class Window(NamedTuple):
    """The count ``name`` over ``[start, end)`` (Unix seconds)."""

    name: str
    start: int
    end: int


@dataclass(slots=True)
class _Count:
    start: int
    confirmed: int = 0  # the shared total at the last read, this process's sent increments included
    sending: int = 0  # sent in the flush under way
    pending: int = 0  # not sent yet


_NOTHING = (0, 0)


class CountView:
    """The counts while the caller holds their lock, so that reading and adding are one atomic step."""

    __slots__ = ("_owner",)

    def __init__(self, owner: SharedCounts) -> None:
        self._owner = owner

    def __enter__(self) -> CountView:
        self._owner._condition.acquire()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._owner._condition.release()

    def read(self, window: Window) -> tuple[int, int]:
        """The count's estimate (shared total last read + own increments since) and its unconfirmed part."""
        count = self._owner._find(window, touch=True)
        if count is None:
            return _NOTHING
        unconfirmed = count.sending + count.pending
        return count.confirmed + unconfirmed, unconfirmed

    def add(self, window: Window, amount: int, quantum: int) -> None:
        self._owner._add(window, amount, quantum)


class SharedCounts:
    def __init__(
        self,
        store: CounterStore | None = None,
        *,
        flush_seconds: float = 0.2,
        clock: Callable[[], float] = time.time,
        name: str = "shared-counts",
    ) -> None:
        self._store = store
        self._flush_seconds = flush_seconds
        self._clock = clock
        self._name = name
        self._condition = threading.Condition(threading.Lock())
        self._flushing = threading.Lock()
        self._view = CountView(self)
        self._by_end: dict[int, dict[str, _Count]] = {}
        self._dirty: set[tuple[int, str]] = set()
        self._started = 0  # flushes begun
        self._finished = 0  # flushes ended (sent or failed)
        self._failing = False
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        # Coroutines waiting for a flush: (the flush they wait for, their loop, their future).
        self._waiters: list[tuple[int, asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def hold(self) -> CountView:
        """``with counts.hold() as view:`` reads and adds under the counts' lock."""
        return self._view

    def start(self) -> None:
        if self._store is not None and self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Send what is left, then stop the thread."""
        if self._thread is not None:
            self._stopping.set()
            self._wake.set()
            self._thread.join()
            self._thread = None

    def wait_flushed(self, timeout: float) -> bool:
        """Block (never on an event loop) until a flush that began after this call has ended."""
        if self._store is None:
            return True
        with self._condition:
            target = self._started + 1
            self._wake.set()
            return self._condition.wait_for(lambda: self._finished >= target, timeout)

    async def wait_flushed_async(self, wait_seconds: float) -> bool:
        """As :meth:`wait_flushed`, for a coroutine: the event loop goes on serving meanwhile."""
        if self._store is None:
            return True
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._condition:
            self._waiters.append((self._started + 1, loop, future))
            self._wake.set()
        done, _ = await asyncio.wait({future}, timeout=wait_seconds)
        return bool(done)

    def flush(self) -> bool:
        """Send every pending increment and read the shared totals back; False when the store failed."""
        if self._store is None:
            return True
        with self._flushing:  # one flush at a time: a count's ``sending`` belongs to the flush under way
            return self._flush(self._store)

    def _flush(self, store: CounterStore) -> bool:
        with self._condition:
            self._started += 1
            now = self._clock()
            self._forget_ended(now)
            batch: list[tuple[_Count, CounterDelta]] = []
            for end, name in self._dirty:
                count = self._by_end.get(end, {}).get(name)
                if count is not None:  # a count with nothing pending is only read
                    count.sending, count.pending = count.pending, 0
                    batch.append((count, CounterDelta(name, count.start, end, count.sending)))
            self._dirty.clear()
        ok = True
        totals: list[int] = []
        if batch:
            try:
                totals = store.add_and_read([delta for _, delta in batch], now)
            except Exception as exc:
                ok = False
                if not self._failing:
                    log.warning(
                        "shared counts not sent", extra={"error": type(exc).__name__, "counts": len(batch)}
                    )
        with self._condition:
            for position, (count, delta) in enumerate(batch):
                if ok:
                    count.confirmed = max(count.confirmed, totals[position])
                else:  # kept for the next flush: an increment is never lost
                    count.pending += count.sending
                    self._dirty.add((delta.window_end, delta.name))
                count.sending = 0
            self._failing = not ok
            self._finished += 1
            self._condition.notify_all()
            settled = [(loop, future) for target, loop, future in self._waiters if target <= self._finished]
            self._waiters = [waiter for waiter in self._waiters if waiter[0] > self._finished]
        for loop, future in settled:
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(_settle, future)
        return ok

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(self._flush_seconds)
            self._wake.clear()
            ok = self.flush()
            # A failing store is retried at the regular pace, not at every early wake-up.
            self._stopping.wait(MIN_FLUSH_GAP_SECONDS if ok else self._flush_seconds)
        self.flush()

    def _find(self, window: Window, *, touch: bool = False) -> _Count | None:
        count = self._by_end.get(window.end, {}).get(window.name)
        if count is None or count.start != window.start:
            return None
        if touch and self._store is not None:
            # Read back at the next flush even with nothing to add: a count this process keeps deciding on
            # follows what the other processes add to it.
            self._dirty.add((window.end, window.name))
        return count

    def _add(self, window: Window, amount: int, quantum: int) -> None:
        bucket = self._by_end.get(window.end)
        if bucket is None:
            # A new window began: the windows that ended before it are no longer read.
            self._forget_ended(window.start)
            bucket = self._by_end[window.end] = {}
        count = bucket.get(window.name)
        if count is None or count.start != window.start:
            count = bucket[window.name] = _Count(window.start)
        if self._store is None:
            count.confirmed += amount
            return
        count.pending += amount
        self._dirty.add((window.end, window.name))
        if count.sending + count.pending >= max(1, quantum // 2) and not self._wake.is_set():
            self._wake.set()

    def _forget_ended(self, now: float) -> None:
        for end in [end for end in self._by_end if end <= now]:
            del self._by_end[end]


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
