"""The map of values kept for a while (core/expiring.py): a value is found until its seconds from its read
have passed, a kept None is found as such, and the least recently used goes when it is full."""

from __future__ import annotations

import pytest

from core.expiring import Expiring

pytestmark = pytest.mark.unit


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_value_is_found_until_its_seconds_from_the_read_have_passed() -> None:
    clock = Clock()
    kept: Expiring[str, str] = Expiring(1.0, 10, clock=clock)
    kept.put("a", "A", read_at=clock.now - 0.5)  # read began half a second ago
    assert kept.get("a") == "A"
    clock.now += 0.49
    assert kept.get("a") == "A"
    clock.now += 0.01
    assert kept.get("a") is None and kept.get("a", "gone") == "gone"


def test_a_kept_none_is_told_from_a_value_not_kept() -> None:
    kept: Expiring[str, str | None] = Expiring(1.0, 10, clock=Clock())
    kept.put("gone", None, read_at=100.0)
    assert kept.get("gone", "not kept") is None
    assert kept.get("other", "not kept") == "not kept"


def test_when_full_the_least_recently_used_goes_and_discard_and_clear_forget() -> None:
    clock = Clock()
    kept: Expiring[str, int] = Expiring(60.0, 2, clock=clock)
    kept.put("a", 1, clock.now)
    kept.put("b", 2, clock.now)
    assert kept.get("a") == 1
    kept.put("c", 3, clock.now)
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == (1, None, 3)
    kept.discard("a")
    assert kept.get("a") is None and len(kept) == 1
    kept.clear()
    assert len(kept) == 0
