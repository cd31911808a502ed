"""Which /query calls the ingress runs itself (ingress/analytics/inline_queries.Slots): only calls that wait,
within the scan estimate, while a slot is free and the company has no other query running there."""

from __future__ import annotations

import pytest

from ingress.analytics.inline_queries import HandedOff, Slots, plan_digest

MAX = 1000


@pytest.mark.parametrize(
    ("size", "running", "company", "estimate", "wait_ms", "admitted"),
    [
        (2, set(), "a", 10, 5000, True),
        (2, set(), "a", MAX, 100, True),  # at both limits
        (2, set(), "a", 10, 99, False),  # a wait shorter than a run's start
        (2, set(), "a", MAX + 1, 5000, False),  # estimated over it
        (2, set(), "a", 10, 0, False),  # the caller does not wait: a worker's job
        (2, {"a"}, "a", 10, 5000, False),  # one per company
        (2, {"b"}, "a", 10, 5000, True),
        (2, {"b", "c"}, "a", 10, 5000, False),  # every slot taken
        (0, set(), "a", 10, 5000, False),  # off
    ],
)
def test_admits(
    size: int, running: set[str], company: str, estimate: int, wait_ms: int, admitted: bool
) -> None:
    assert Slots(size, running).admits(company, estimate, MAX, wait_ms) is admitted


def test_a_plan_handed_off_goes_straight_to_a_worker_for_a_while() -> None:
    handed_off = HandedOff(seconds=600, entries=2)
    handed_off.remember("a", "plan-1", now=1000.0)
    assert handed_off.recent("a", "plan-1", now=1599.0)
    assert not handed_off.recent("b", "plan-1", now=1001.0)  # another company's same plan: its own
    assert not handed_off.recent("a", "plan-2", now=1001.0)
    assert not handed_off.recent("a", "plan-1", now=1600.0)  # its while is over: tried in the call again
    assert not handed_off.recent("a", "plan-1", now=1001.0)  # and forgotten


def test_the_plans_remembered_are_bounded() -> None:
    handed_off = HandedOff(seconds=600, entries=2)
    for digest in ("p1", "p2", "p3"):
        handed_off.remember("a", digest, now=0.0)
    assert [handed_off.recent("a", d, now=1.0) for d in ("p1", "p2", "p3")] == [False, True, True]


def test_a_plan_digest_tells_plans_apart() -> None:
    assert plan_digest('{"sql": "SELECT 1"}') == plan_digest('{"sql": "SELECT 1"}')
    assert plan_digest('{"sql": "SELECT 1"}') != plan_digest('{"sql": "SELECT 2"}')
