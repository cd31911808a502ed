"""Leases on work in flight (scheduled runs, webhook delivery attempts): the pure rules. No I/O.

The worker that claims an item writes its lease (claim time + the lease length) with the claim and renews
it while it acts, every third of the lease, for all its items in one statement. A reconciler hands an item
to another attempt only once its lease has run out: a worker that stopped renewing is dead or stuck, one
that is merely slow (a rebalance, a loaded machine, a handler near its timeout, a busy database) keeps its
item, however long it has run. An item without a lease (claimed before leases existed) keeps the old rule:
lost once it has run longer than its grace.

A worker stops renewing an item it has held longer than its cap (a multiple of the item's handler timeout),
so a worker that is wedged but alive cannot hold an item forever: its lease runs out at most one lease
length after the cap, and the item goes to another attempt.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
# Renewals per lease: two renewals in a row may be late or lost before a live worker's lease runs out.
RENEWALS_PER_LEASE = 3


def renewal_interval(lease_seconds: float) -> float:
    """How often an acting worker renews its leases."""
    return lease_seconds / RENEWALS_PER_LEASE


def abandoned(
    now: datetime, started_at: datetime | None, lease_until: datetime | None, legacy_grace: timedelta
) -> bool:
    """Whether an in-flight item lost its worker: its lease has run out or, for an item without a lease,
    it has run longer than ``legacy_grace``. How long a leased item has run does not matter."""
    if lease_until is not None:
        return lease_until < now
    return started_at is not None and started_at < now - legacy_grace


def hold_cap(handler_timeout_seconds: float, cap_factor: float) -> timedelta:
    """How long after its claim a worker may keep renewing an item's lease."""
    return timedelta(seconds=handler_timeout_seconds * cap_factor)


@dataclass
class Holdings(Generic[K]):
    """The items this process acts on, each with the moment its cap is reached (past it, no renewal)."""

    _caps: dict[K, datetime] = field(default_factory=dict)
    _reported: set[K] = field(default_factory=set)

    def hold(self, key: K, claimed_at: datetime, cap: timedelta) -> None:
        self._caps[key] = claimed_at + cap

    def release(self, key: K) -> None:
        self._caps.pop(key, None)
        self._reported.discard(key)

    def __len__(self) -> int:
        return len(self._caps)

    def renewable(self, now: datetime) -> list[K]:
        """The items whose lease this process renews now: those held within their cap."""
        return [key for key, cap in self._caps.items() if now < cap]

    def past_cap(self, now: datetime) -> list[K]:
        """Items that reached their cap since the last call (each is named once, for a log line)."""
        late = [key for key, cap in self._caps.items() if now >= cap and key not in self._reported]
        self._reported.update(late)
        return late
