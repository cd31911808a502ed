"""The thread-safe LRU map the query path keeps its tables, snapshots, estimates and sandboxed analyses in."""

from __future__ import annotations

import threading

import pytest

from core.lru import Lru


def test_a_kept_value_is_returned_without_making_it_again() -> None:
    lru: Lru[str, int] = Lru(2)
    made: list[str] = []

    def make(key: str, value: int) -> int:
        made.append(key)
        return value

    assert lru.get_or_make("a", lambda: make("a", 1)) == 1
    assert lru.get_or_make("a", lambda: make("a", 99)) == 1
    assert made == ["a"]


def test_the_least_recently_used_value_goes_first() -> None:
    lru: Lru[str, int] = Lru(2)
    lru.get_or_make("a", lambda: 1)
    lru.get_or_make("b", lambda: 2)
    lru.get_or_make("a", lambda: 0)  # "a" is now the most recently used
    lru.get_or_make("c", lambda: 3)  # "b" goes
    assert len(lru) == 2
    assert lru.get_or_make("a", lambda: -1) == 1
    assert lru.get_or_make("b", lambda: -2) == -2  # made again


def test_clear_forgets_everything_and_the_size_must_be_positive() -> None:
    lru: Lru[str, int] = Lru(4)
    lru.get_or_make("a", lambda: 1)
    lru.clear()
    assert len(lru) == 0
    assert lru.get_or_make("a", lambda: 2) == 2
    with pytest.raises(ValueError, match="at least one"):
        Lru(0)


def test_a_value_is_made_outside_the_lock() -> None:
    """A slow ``make`` of one key does not hold up the lookups of others."""
    lru: Lru[str, int] = Lru(4)
    lru.get_or_make("kept", lambda: 1)
    started, release = threading.Event(), threading.Event()

    def slow() -> int:
        started.set()
        release.wait(10)
        return 2

    thread = threading.Thread(target=lambda: lru.get_or_make("slow", slow))
    thread.start()
    assert started.wait(10)
    assert lru.get_or_make("kept", lambda: -1) == 1  # answered while "slow" is being made
    release.set()
    thread.join(10)
    assert lru.get_or_make("slow", lambda: -1) == 2
