"""When ``svc up`` starts the embedded broker afresh: the decision, apart from reading the broker.

The embedded broker keeps every record for its lifetime, and each fetch from a partition with records the
consumer has not read yet lists every batch stored in that partition: about a microsecond per batch on our
machines. Past a few thousand batches that listing outlasts a short fetch wait, and the broker then answers
such a fetch with nothing at all (a consumer 2 ms behind a partition of 5,000 single-record batches receives
nothing, fetch after fetch). So the stack starts it afresh before its partitions grow that long: the end
offset of a partition counts its records, which bounds its batches from above. Its memory grows with every
record, read or not (the result topic, which only outside consumers read, included): that is the second
bound.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RecycleLimits:
    # Records in any one partition the workers read; 0: no limit.
    records_per_partition: int
    # Resident memory of the broker process in MiB; 0: no limit.
    resident_mib: int
    # At least this long between two recycles, however fast the partitions grow.
    min_interval_seconds: float


def recycle_reason(
    end_offsets: Mapping[tuple[str, int], int], resident_mib: float | None, limits: RecycleLimits
) -> str | None:
    """Why the broker should be started afresh now, or None. ``end_offsets`` are the partitions the workers
    read, by ``(topic, partition)``."""
    if limits.records_per_partition > 0 and end_offsets:
        (topic, partition), longest = max(end_offsets.items(), key=lambda item: (item[1], item[0]))
        if longest >= limits.records_per_partition:
            return f"partition {partition} of {topic} holds {longest} records"
    if limits.resident_mib > 0 and resident_mib is not None and resident_mib >= limits.resident_mib:
        return f"the broker holds {resident_mib:.0f} MiB"
    return None


def may_recycle(last_recycle: float | None, moment: float, limits: RecycleLimits) -> bool:
    """Whether enough time has passed since the last recycle (monotonic seconds; None: never recycled)."""
    return last_recycle is None or moment - last_recycle >= limits.min_interval_seconds
