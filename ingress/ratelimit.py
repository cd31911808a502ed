"""Per-key fixed-window rate limits (minute and day), kept in this process's memory."""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class RateDecision:
    limit_minute: int
    remaining_minute: int
    limit_day: int
    remaining_day: int
    retry_after: int | None

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

    def __init__(self, per_minute: int, per_day: int) -> None:
        self._per_minute = per_minute
        self._per_day = per_day
        self._lock = threading.Lock()
        self._minute: dict[str, tuple[int, int]] = {}
        self._day: dict[str, tuple[int, int]] = {}

    def hit(self, key: str, now: float) -> RateDecision:
        minute_window, day_window = int(now // 60), int(now // 86_400)
        with self._lock:
            minute_count = self._count(self._minute, key, minute_window)
            day_count = self._count(self._day, key, day_window)
            retry_after: int | None = None
            if day_count >= self._per_day:
                retry_after = max(1, int((day_window + 1) * 86_400 - now + 0.999))
            elif minute_count >= self._per_minute:
                retry_after = max(1, int((minute_window + 1) * 60 - now + 0.999))
            else:
                minute_count += 1
                day_count += 1
                self._minute[key] = (minute_window, minute_count)
                self._day[key] = (day_window, day_count)
            if len(self._minute) > 100_000:
                self._minute = {k: v for k, v in self._minute.items() if v[0] == minute_window}
        return RateDecision(
            limit_minute=self._per_minute,
            remaining_minute=max(0, self._per_minute - minute_count),
            limit_day=self._per_day,
            remaining_day=max(0, self._per_day - day_count),
            retry_after=retry_after,
        )

    @staticmethod
    def _count(windows: dict[str, tuple[int, int]], key: str, window: int) -> int:
        current = windows.get(key)
        return current[1] if current is not None and current[0] == window else 0


class RowQuota:
    """Rows per key per minute (the plan's appended-rows-per-minute limit), counted in this process."""

    def __init__(self, per_minute: int) -> None:
        self._per_minute = per_minute
        self._lock = threading.Lock()
        self._used: dict[str, tuple[int, int]] = {}

    def take(self, key: str, rows: int, now: float) -> bool:
        window = int(now // 60)
        with self._lock:
            current_window, used = self._used.get(key, (window, 0))
            if current_window != window:
                used = 0
            if used + rows > self._per_minute:
                return False
            self._used[key] = (window, used + rows)
            return True
