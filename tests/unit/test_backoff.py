"""The one capped doubling backoff (core/backoff.py) that restarts, retries and database waits use."""

from __future__ import annotations

import pytest

from core.backoff import capped_doubling

pytestmark = pytest.mark.unit


def test_it_doubles_from_the_first_pause_up_to_the_longest() -> None:
    assert [capped_doubling(0.5, 10.0, n) for n in range(1, 8)] == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_a_count_below_one_is_the_first_pause() -> None:
    assert capped_doubling(0.5, 10.0, 0) == capped_doubling(0.5, 10.0, -3) == 0.5


def test_a_long_run_of_failures_stays_at_the_cap_without_overflowing() -> None:
    assert capped_doubling(0.05, 2.0, 10_000) == 2.0
    assert capped_doubling(1e300, 1e308, 10_000) == 1e308
