"""At most one log line per interval for an event that can come thousands of times a second."""

from __future__ import annotations

import threading
import time


class LogThrottle:
    """``take()`` says whether to log now and how many occurrences went unlogged since the last line."""

    def __init__(self, every_seconds: float = 1.0) -> None:
        self._every = every_seconds
        self._lock = threading.Lock()
        self._last = float("-inf")
        self._unlogged = 0

    def take(self) -> int | None:
        """None within the interval (the occurrence is counted); else the count to report with this line."""
        with self._lock:
            moment = time.monotonic()
            if moment - self._last < self._every:
                self._unlogged += 1
                return None
            self._last, also, self._unlogged = moment, self._unlogged, 0
            return also
