"""Per-key fixed-window rate limits (minute and UTC day) and the appended-rows quota, shared by the
ingress processes through :class:`ingress.shared_counts.SharedCounts` (kept in memory without a store).

A process admits a hit while its estimate of the window's count (the shared total it last read plus its own
hits since) is under the limit and it holds fewer than a *quantum* of hits the shared table has not
confirmed; a hit beyond the quantum waits for the next flush (callers on a worker thread) or is refused with
``Retry-After: 1`` (callers on the event loop). P processes together admit at most
``limit + (P - 1) * quantum`` hits in a window.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from ingress.shared_counts import SharedCounts, Window

MINUTE = 60
DAY = 86_400
_PERIODS = {MINUTE: "m", DAY: "d"}
MAX_NAME_CHARS = 200
REQUEST_MIN_QUANTUM = 16
"""A burst this size never waits for a flush, whatever the limit (the bound grows by as much)."""
ROWS_MIN_QUANTUM = 10_000
"""Rows of appends in quick succession that are never refused for want of a flush (appends cannot wait)."""


def quantum(limit: int, share: float, floor: int) -> int:
    """Hits a process may admit past the shared total it last read: ``share`` of the limit, >= ``floor``."""
    return max(floor, math.ceil(limit * share))


def window(scope: str, key: str, now: float, seconds: int) -> Window:
    """The fixed window of ``seconds`` holding ``now``, of the count of ``key`` in ``scope``."""
    start = int(now // seconds) * seconds
    name = f"{scope}:{_PERIODS.get(seconds) or f'{seconds}s'}:{key}"
    if len(name) > MAX_NAME_CHARS:  # the table's column; a digest keeps long keys apart
        name = name[:100] + hashlib.sha256(name.encode()).hexdigest()
    return Window(name, start, start + seconds)


def retry_after(window_end: int, now: float) -> int:
    return max(1, int(window_end - now + 0.999))


@dataclass(frozen=True)
class RateDecision:
    limit_minute: int
    remaining_minute: int
    limit_day: int
    remaining_day: int
    retry_after: int | None
    # Refused only because this process's unconfirmed share is used up: a flush will free it.
    awaiting_flush: bool = False

    @property
    def allowed(self) -> bool:
        return self.retry_after is None

    def headers(self) -> dict[str, str]:
        values = {
            "X-RateLimit-Limit-Minute": self.limit_minute,
            "X-RateLimit-Remaining-Minute": self.remaining_minute,
            "X-RateLimit-Limit-Day": self.limit_day,
            "X-RateLimit-Remaining-Day": self.remaining_day,
        }
        headers = {name: str(value) for name, value in values.items()}
        if self.retry_after is not None:
            headers["Retry-After"] = str(self.retry_after)
        return headers


class RateLimiter:
    """Counts hits per key in the current minute and UTC day; a refused hit is not counted."""

    def __init__(
        self,
        per_minute: int,
        per_day: int,
        counts: SharedCounts | None = None,
        *,
        scope: str = "requests",
        local_share: float = 0.02,
    ) -> None:
        self._per_minute = per_minute
        self._per_day = per_day
        self._counts = counts if counts is not None else SharedCounts()
        self._scope = scope
        self._minute_quantum = quantum(per_minute, local_share, REQUEST_MIN_QUANTUM)
        self._day_quantum = quantum(per_day, local_share, REQUEST_MIN_QUANTUM)

    def hit(self, key: str, now: float, *, wait_seconds: float = 0.0) -> RateDecision:
        """Count a hit if the limits allow it. ``wait_seconds`` > 0 (worker threads only) waits that long
        for a flush rather than refuse a hit for want of a confirmed share."""
        decision = self._decide(key, now)
        if decision.awaiting_flush and wait_seconds > 0:
            self._counts.wait_flushed(wait_seconds)
            decision = self._decide(key, now)
        return decision

    def _decide(self, key: str, now: float) -> RateDecision:
        minute = window(self._scope, key, now, MINUTE)
        day = window(self._scope, key, now, DAY)
        awaiting = False
        with self._counts.hold() as view:
            minute_count, minute_unconfirmed = view.read(minute)
            day_count, day_unconfirmed = view.read(day)
            wait: int | None = None
            if day_count >= self._per_day:
                wait = retry_after(day.end, now)
            elif minute_count >= self._per_minute:
                wait = retry_after(minute.end, now)
            elif minute_unconfirmed >= self._minute_quantum or day_unconfirmed >= self._day_quantum:
                wait, awaiting = 1, True
            else:
                view.add(minute, 1, self._minute_quantum)
                view.add(day, 1, self._day_quantum)
                minute_count += 1
                day_count += 1
        return RateDecision(
            limit_minute=self._per_minute,
            remaining_minute=max(0, self._per_minute - minute_count),
            limit_day=self._per_day,
            remaining_day=max(0, self._per_day - day_count),
            retry_after=wait,
            awaiting_flush=awaiting,
        )


class RowQuota:
    """Rows per key per minute (the plan's appended-rows-per-minute limit), shared like :class:`RateLimiter`.

    One take may exceed the quantum when nothing of this process is unconfirmed, so the bound is
    ``limit + (P - 1) * (quantum + the largest take)``.
    """

    def __init__(
        self,
        per_minute: int,
        counts: SharedCounts | None = None,
        *,
        scope: str = "rows",
        local_share: float = 0.02,
    ) -> None:
        self._per_minute = per_minute
        self._counts = counts if counts is not None else SharedCounts()
        self._scope = scope
        self._quantum = quantum(per_minute, local_share, ROWS_MIN_QUANTUM)

    def take(self, key: str, rows: int, now: float) -> bool:
        current = window(self._scope, key, now, MINUTE)
        with self._counts.hold() as view:
            estimate, unconfirmed = view.read(current)
            if estimate + rows > self._per_minute:
                return False
            if unconfirmed and unconfirmed + rows > self._quantum:
                return False
            view.add(current, rows, self._quantum)
            return True
