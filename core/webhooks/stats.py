"""Delivery attempts counted into time buckets by status, with nearest-rank latency percentiles: the numbers
behind ``/custom-webhooks/get-delivery-stats`` and the console's charts. The database counts the attempts per
bucket and status (``AttemptGroup``); these rules lay the groups out over the window."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta


@dataclass(frozen=True)
class AttemptGroup:
    """The attempts of one bucket and one status as the database counted them: the bucket's number (its
    start's seconds since 1970 over the bucket's length), how many, and the handler durations of those that
    have one."""

    bucket: int
    status: str
    count: int
    durations: list[int]


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


def buckets(
    groups: list[AttemptGroup], since: datetime, until: datetime, bucket_seconds: int
) -> list[Bucket]:
    """Every bucket from the one holding ``since`` to the one holding ``until``, empty ones included, with the
    groups counted in each; groups outside that span are left out."""
    first = bucket_start(since, bucket_seconds)
    first_number = int(first.timestamp()) // bucket_seconds
    step = timedelta(seconds=bucket_seconds)
    count = int((bucket_start(until, bucket_seconds) - first) / step) + 1
    found = [Bucket(first + step * index) for index in range(count)]
    for group in groups:
        index = group.bucket - first_number
        if not 0 <= index < count:
            continue
        found[index].counts[group.status] += group.count
        found[index].durations.extend(group.durations)
    return found
