"""When ``svc up`` starts a dead child again: exponential backoff, forgiven once the child has run a while."""

from __future__ import annotations

import signal
from dataclasses import dataclass

from core.backoff import capped_doubling


@dataclass(frozen=True)
class RestartPolicy:
    """Attempt 1 waits ``first_seconds``, each next one twice as long, up to ``cap_seconds``. A child that ran
    ``reset_after_seconds`` before it died starts over at attempt 1: a crash an hour after the last one is not
    part of a crash loop."""

    first_seconds: float = 0.5
    cap_seconds: float = 10.0
    reset_after_seconds: float = 60.0

    def next_attempt(self, previous_attempt: int, ran_seconds: float) -> int:
        if ran_seconds >= self.reset_after_seconds:
            return 1
        return previous_attempt + 1

    def delay(self, attempt: int) -> float:
        return capped_doubling(self.first_seconds, self.cap_seconds, attempt)


def exit_description(returncode: int) -> dict[str, int | str]:
    """``{"exit_code": n}``, or ``{"signal": "SIGKILL"}`` when a signal ended the child (a negative code)."""
    if returncode >= 0:
        return {"exit_code": returncode}
    try:
        return {"signal": signal.Signals(-returncode).name}
    except ValueError:
        return {"signal": str(-returncode)}
