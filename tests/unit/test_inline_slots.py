"""Which /query calls the ingress runs itself (ingress/analytics/inline_queries.Slots): only calls that wait,
within the scan estimate, while a slot is free and the company has no other query running there."""

from __future__ import annotations

import pytest

from ingress.analytics.inline_queries import Slots

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
