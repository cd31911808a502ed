"""The lease rules (core/leases.py): an in-flight item is lost only once its lease has run out, however long
it has run; an item without a lease keeps the old grace rule; a worker renews an item only within its cap."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.leases import Holdings, abandoned, hold_cap, renewal_interval

pytestmark = pytest.mark.unit

NOW = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)
GRACE = timedelta(seconds=20)  # the old rule: timeout 10 s + processing grace 10 s


def ago(seconds: float) -> datetime:
    return NOW - timedelta(seconds=seconds)


@pytest.mark.parametrize(
    ("started", "lease_until", "lost"),
    [
        # A live worker renewing its lease keeps the item whatever its age (the case the old rule got wrong).
        (ago(25), NOW + timedelta(seconds=10), False),
        (ago(3600), NOW + timedelta(seconds=1), False),
        # The lease runs out exactly now: not yet lost; a moment later it is.
        (ago(25), NOW, False),
        (ago(25), ago(0.001), True),
        # A young item whose worker died right after the claim: lost once the lease ran out, before the grace.
        (ago(16), ago(1), True),
        # No lease (claimed before leases existed): the old rule, started longer ago than the grace.
        (ago(19), None, False),
        (ago(20), None, False),
        (ago(21), None, True),
        (None, None, False),
    ],
)
def test_an_item_is_lost_only_once_its_lease_ran_out(
    started: datetime | None, lease_until: datetime | None, lost: bool
) -> None:
    assert abandoned(NOW, started, lease_until, GRACE) is lost


def test_renewals_come_three_times_a_lease_and_the_cap_is_a_multiple_of_the_timeout() -> None:
    assert renewal_interval(15) == 5
    assert hold_cap(300, 3) == timedelta(seconds=900)


def test_holdings_renew_within_the_cap_and_name_an_item_past_it_once() -> None:
    held: Holdings[str] = Holdings()
    assert held.renewable(NOW) == [] and len(held) == 0
    held.hold("slow", ago(29), timedelta(seconds=30))
    held.hold("wedged", ago(31), timedelta(seconds=30))
    held.hold("fresh", NOW, timedelta(seconds=30))
    assert held.renewable(NOW) == ["slow", "fresh"]
    assert held.past_cap(NOW) == ["wedged"]
    assert held.past_cap(NOW) == []  # said once
    later = NOW + timedelta(seconds=2)
    assert held.renewable(later) == ["fresh"]
    assert held.past_cap(later) == ["slow"]
    held.release("wedged")
    held.release("slow")
    held.release("never held")
    assert len(held) == 1 and held.renewable(later) == ["fresh"]
    # Released and held again (another claim of the same key): its cap counts from the new claim.
    held.hold("slow", later, timedelta(seconds=30))
    assert held.renewable(later) == ["fresh", "slow"]
