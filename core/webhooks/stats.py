"""Delivery attempts counted into time buckets by status, with nearest-rank latency percentiles: the numbers
behind ``/custom-webhooks/get-delivery-stats`` and the console's charts."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta


@dataclass(frozen=True)
class Attempt:
    queued_at: datetime
    status: str
    duration_ms: int | None


@dataclass
class Bucket:
    start: datetime
    counts: Counter[str] = field(default_factory=Counter)
    durations: list[int] = field(default_factory=list)


def percentile(values: list[int], fraction: float) -> int | None:
    """The nearest-rank percentile (``fraction`` 0.5 for p50, 0.99 for p99) of ``values``; None for none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def bucket_start(moment: datetime, bucket_seconds: int) -> datetime:
    """The start of the bucket holding ``moment``: buckets align on the epoch (minutes, half hours)."""
    seconds = int(moment.timestamp())
    return datetime.fromtimestamp(seconds - seconds % bucket_seconds, tz=moment.tzinfo)


def buckets(attempts: list[Attempt], since: datetime, until: datetime, bucket_seconds: int) -> list[Bucket]:
    """Every bucket from the one holding ``since`` to the one holding ``until``, empty ones included, with the
    attempts queued in each; attempts outside that span are left out."""
    first = bucket_start(since, bucket_seconds)
    step = timedelta(seconds=bucket_seconds)
    count = int((bucket_start(until, bucket_seconds) - first) / step) + 1
    found = [Bucket(first + step * index) for index in range(count)]
    for attempt in attempts:
        index = int((attempt.queued_at - first) / step)
        if attempt.queued_at < first or index >= count:
            continue
        found[index].counts[attempt.status] += 1
        if attempt.duration_ms is not None:
            found[index].durations.append(attempt.duration_ms)
    return found
