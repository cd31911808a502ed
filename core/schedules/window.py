"""The window a schedule may fire in: ``startDate``, ``endDate`` and a pause (``pausedUntil``), and the
``flexibleTimeWindow`` that moves each fire later by a deterministic offset.

A plain value the next-fire function takes (core/schedules/spec.py ``next_fire(..., window=...)``), so the
scheduler, an event's ``nextFireAt`` and ``/preview`` all read the window the same way: no fire before
``startDate`` or before ``pausedUntil``, none after ``endDate``, each bound inclusive (on the moved time).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

__all__ = ["NO_WINDOW", "FireWindow"]


@dataclass(frozen=True)
class FireWindow:
    """Aware instants, each optional; a pause is just another lower bound, so a schedule resumes at its end
    without anyone acting."""

    start_date: datetime | None = None
    end_date: datetime | None = None
    paused_until: datetime | None = None
    # flexibleTimeWindow FLEXIBLE: each fire moves later by an offset in [0, flex_seconds) that a hash of
    # (flex_key, the fire's time) fixes, so the same event and time always get the same offset. 0: OFF.
    flex_seconds: int = 0
    flex_key: str = ""

    def offset(self, nominal: datetime) -> timedelta:
        """Whole seconds, so a fire stays on the second."""
        if self.flex_seconds <= 0:
            return timedelta(0)
        seed = f"{self.flex_key}|{nominal.astimezone(UTC).isoformat()}".encode()
        digest = hashlib.sha256(seed).digest()
        return timedelta(seconds=int.from_bytes(digest[:8], "big") % self.flex_seconds)

    def opens(self) -> datetime | None:
        """The earliest instant a fire may have: the later of startDate and the pause's end."""
        bounds = [bound for bound in (self.start_date, self.paused_until) if bound is not None]
        return max(bounds) if bounds else None

    def admits(self, moment: datetime) -> bool:
        opens = self.opens()
        if opens is not None and moment < opens:
            return False
        return self.end_date is None or moment <= self.end_date


NO_WINDOW = FireWindow()
