"""Faust's ``Stream.take`` without its idle wake-ups; installed by svc/patches.py when a worker starts.

Faust's ``take(max_, within)`` wakes every ``within`` seconds whether or not anything arrived, and each
wake-up creates and cancels tasks, which costs an idle worker CPU. This one waits for the first value
without a timeout; from then on it behaves as Faust's: the batch is handed over when it is full or at the
end of the ``within`` window the first value arrived in (windows counted from when the wait began, as
Faust's loop counts them), so no value waits longer. Acks, the passive drain and the cleanup are Faust's
own (faust-streaming 0.15.3, ``faust/streams.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from typing import Any, cast

from faust.streams import _tracks_buffer_agen
from mode.utils.aiter import aiter
from mode.utils.futures import notify
from mode.utils.times import want_seconds


def _remaining(window: float | None, waited: float) -> float | None:
    """What is left of the ``window``-second window that ``waited`` seconds of waiting ended in."""
    if not window:
        return None
    return window - (waited % window)


@_tracks_buffer_agen
async def take(self: Any, max_: int, within: Any) -> AsyncGenerator[Sequence[Any], None]:
    buffer: list[Any] = []
    events: list[Any] = []
    buffer_add = buffer.append
    event_add = events.append
    buffer_size = buffer.__len__
    buffer_full = asyncio.Event()
    buffer_started = asyncio.Event()  # the first value of a batch arrived
    buffer_consumed = asyncio.Event()
    timeout = want_seconds(within) if within else None
    stream_enable_acks: bool = self.enable_acks
    buffer_consuming: asyncio.Future[Any] | None = None
    channel_it = aiter(self.channel)

    async def add_to_buffer(value: Any) -> Any:
        try:
            nonlocal buffer_consuming
            if buffer_consuming is not None:
                try:
                    await buffer_consuming
                finally:
                    buffer_consuming = None
            buffer_add(value)
            event = self.current_event
            if event is None:
                raise RuntimeError("Take buffer found current_event is None")
            event_add(event)
            buffer_started.set()
            if buffer_size() >= max_:
                buffer_full.set()
                buffer_consumed.clear()
                await self.wait(buffer_consumed)
        except asyncio.CancelledError:  # pragma: no cover
            raise
        except Exception as exc:
            self.log.exception("Error adding to take buffer: %r", exc)
            await self.crash(exc)
        return value

    self.enable_acks = False
    self.add_processor(add_to_buffer)
    self._enable_passive(channel_it)
    loop = asyncio.get_running_loop()
    try:
        while not self.should_stop:
            began = loop.time()
            if not buffer:
                await self.wait_for_stopped(buffer_started)  # no timeout: nothing to hand over until then
            if not buffer:
                continue  # stopping
            remaining = _remaining(timeout, loop.time() - began)
            if not buffer_full.is_set():
                await self.wait_for_stopped(buffer_full, timeout=remaining)
            buffer_consuming = loop.create_future()
            try:
                yield list(buffer)
            finally:
                buffer.clear()
                for event in events:
                    await self.ack(event)
                events.clear()
                notify(buffer_consuming)
                buffer_full.clear()
                buffer_started.clear()
                buffer_consumed.set()
    finally:
        self.enable_acks = stream_enable_acks
        self._processors.remove(add_to_buffer)


def stream_take() -> Any:
    """The replacement for ``faust.streams.Stream.take``, for svc/patches.py."""
    return cast(Any, take)
