"""When the embedded broker is renewed: the decision, apart from reading the broker.

The embedded broker keeps every record until its topic is deleted, and each fetch from a partition with
records the consumer has not read yet lists every batch stored in that partition; past a few thousand
batches that listing outlasts a short fetch wait and the fetch comes back empty (docs/decisions/0001). The
end offset of a partition counts its records, which bounds its batches from above: that is the first bound.
Its memory grows with every record, read or not: that is the second.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RenewalLimits:
    # Records in any one partition the workers read; 0: no limit.
    records_per_partition: int
    # Resident memory of the broker process in MiB; 0: no limit.
    resident_mib: int
    # At least this long between two renewals, however fast the partitions grow.
    min_interval_seconds: float

    @property
    def enabled(self) -> bool:
        return self.records_per_partition > 0 or self.resident_mib > 0


def renewal_reason(
    end_offsets: Mapping[tuple[str, int], int], resident_mib: float | None, limits: RenewalLimits
) -> str | None:
    """Why the broker should be renewed now, or None. ``end_offsets`` are the partitions the workers read,
    by ``(topic, partition)``."""
    if limits.records_per_partition > 0 and end_offsets:
        (topic, partition), longest = max(end_offsets.items(), key=lambda item: (item[1], item[0]))
        if longest >= limits.records_per_partition:
            return f"partition {partition} of {topic} holds {longest} records"
    if limits.resident_mib > 0 and resident_mib is not None and resident_mib >= limits.resident_mib:
        return f"the broker holds {resident_mib:.0f} MiB"
    return None


def may_renew(last_renewal: float | None, moment: float, limits: RenewalLimits) -> bool:
    """Whether enough time has passed since the last renewal (monotonic seconds; None: never renewed)."""
    return last_renewal is None or moment - last_renewal >= limits.min_interval_seconds
