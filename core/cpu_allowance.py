"""Per-company CPU allowance for the sandbox: a token bucket counted in CPU milliseconds.

Each company's bucket refills at ``rate_ms_per_second`` up to ``burst_ms``. A sandbox call may start while
the bucket is not in debt; when it ends, the CPU it actually used is taken out, so one expensive call can
put the bucket into debt, and the company's next calls wait (or are refused) until the refill pays it back.
Counting the CPU after the fact is what makes the allowance exact: nobody knows in advance what a script or
a JSONPath will cost. Pure logic; the caller passes the clock."""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(slots=True)
class _Bucket:
    level_ms: float
    at: float


@dataclass(slots=True)
class CpuAllowance:
    """Token buckets keyed by company. ``rate_ms_per_second`` <= 0 turns the allowance off."""

    rate_ms_per_second: float
    burst_ms: float
    _buckets: dict[str, _Bucket] = field(default_factory=dict)

    @property
    def enabled(self) -> bool:
        return self.rate_ms_per_second > 0

    def _refilled(self, tenant: str, now: float) -> _Bucket:
        bucket = self._buckets.get(tenant)
        if bucket is None:
            bucket = self._buckets[tenant] = _Bucket(self.burst_ms, now)
        elapsed = max(0.0, now - bucket.at)
        bucket.level_ms = min(self.burst_ms, bucket.level_ms + elapsed * self.rate_ms_per_second)
        bucket.at = now
        return bucket

    def wait_seconds(self, tenant: str, now: float) -> float:
        """How long until `tenant` may start a call (0: now)."""
        if not self.enabled:
            return 0.0
        level = self._refilled(tenant, now).level_ms
        return 0.0 if level >= 0 else -level / self.rate_ms_per_second

    def charge(self, tenant: str, cpu_ms: float, now: float) -> None:
        """Take the CPU a finished call used out of `tenant`'s bucket."""
        if not self.enabled or cpu_ms <= 0:
            return
        self._refilled(tenant, now).level_ms -= cpu_ms
        self._forget_full(now)

    def _forget_full(self, now: float) -> None:
        # Companies whose bucket has refilled completely need no entry: a missing bucket starts full.
        if len(self._buckets) < 1024:
            return
        for tenant in [
            t for t, b in self._buckets.items() if self._refilled(t, now).level_ms >= self.burst_ms
        ]:
            del self._buckets[tenant]


def retry_after_seconds(wait_seconds: float) -> int:
    """The Retry-After to answer for a wait: whole seconds, at least 1."""
    return max(1, math.ceil(wait_seconds))
