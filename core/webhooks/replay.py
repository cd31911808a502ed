"""Pure rules of webhook replay: which stored executions a call replays, what of the stored request a replay
sends again, and when each replay is handed to the handler queue (the pacing schedule).

The schedule: every company has one next free slot; a replay of ``n`` executions takes the ``n`` slots from
``max(next free, now)`` on, ``1 / rate`` seconds apart, and moves the next free slot past them. All replays of
a company, from any process, share its slots, so together they never exceed the rate.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Selection:
    """What a replay call found: every match (``matched``) and the ones it replays, oldest first."""

    matched: int
    chosen: list[str]
    not_found: list[str]


def select_by_ids(requested: Sequence[str], found: dict[str, datetime], limit: int) -> Selection:
    """``found`` maps each requested id that is an execution of the webhook to when its original request
    arrived. Repeated ids count once; the oldest ``limit`` are replayed; the others are not found."""
    unique = list(dict.fromkeys(requested))
    present = [execution_id for execution_id in unique if execution_id in found]
    oldest = sorted(present, key=lambda execution_id: (found[execution_id], execution_id))
    missing = [execution_id for execution_id in unique if execution_id not in found]
    return Selection(matched=len(present), chosen=oldest[:limit], not_found=missing)


def stored_request_part(stored_json: str | None, redacted: str) -> dict[str, str]:
    """Headers or query parameters as the history stored them, without the values it redacted: a replay
    cannot send a secret the history never kept, and sending the placeholder would be a value nobody sent."""
    if not stored_json:
        return {}
    try:
        values = json.loads(stored_json)
    except ValueError:
        return {}
    if not isinstance(values, dict):
        return {}
    return {str(name): str(value) for name, value in values.items() if value != redacted}


@dataclass(frozen=True)
class Schedule:
    slots: list[datetime]
    next_free: datetime


def schedule(next_free: datetime | None, now: datetime, count: int, rate_per_second: float) -> Schedule:
    """The slots of ``count`` replays at ``rate_per_second``, from the company's next free slot or now,
    whichever is later; a slot left unused in the past is not made up for."""
    if rate_per_second <= 0:
        raise ValueError("rate_per_second must be positive")
    start = now if next_free is None or next_free < now else next_free
    step = 1.0 / rate_per_second
    slots = [start + timedelta(seconds=index * step) for index in range(count)]
    return Schedule(slots=slots, next_free=start + timedelta(seconds=count * step))


def due_now(slot: datetime, now: datetime, window: timedelta) -> bool:
    """A slot within ``window`` of now is handed over at once by the call itself; the later ones wait in the
    database for the worker's sweep of due attempts, which runs about every ``window``."""
    return slot <= now + window


def rest_after(spent_seconds: float, count: int, rate_per_second: float, least: float = 0.0) -> float:
    """How long a replay call rests after a step that recorded ``count`` executions in ``spent_seconds``, so
    that its steps record at most ``rate_per_second`` executions a second; never less than ``least``."""
    if rate_per_second <= 0:
        raise ValueError("rate_per_second must be positive")
    return max(least, count / rate_per_second - spent_seconds)


def chunked(
    items: Iterable[T], size_of: Callable[[T], int], max_items: int, max_size: int
) -> Iterator[list[T]]:
    """Consecutive chunks of at most ``max_items`` items and ``max_size`` total size (an item larger than
    ``max_size`` is a chunk of its own)."""
    if max_items < 1:
        raise ValueError("max_items must be at least 1")
    chunk: list[T] = []
    total = 0
    for item in items:
        size = size_of(item)
        if chunk and (len(chunk) >= max_items or total + size > max_size):
            yield chunk
            chunk, total = [], 0
        chunk.append(item)
        total += size
    if chunk:
        yield chunk
