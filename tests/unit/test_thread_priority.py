"""Which threads a database's open started (sinks/thread_priority.py): the new ones Python did not start."""

from __future__ import annotations

from sinks.thread_priority import new_threads


def test_the_new_threads_are_those_that_appeared_and_python_does_not_own() -> None:
    before = frozenset({1, 2, 3})
    after = frozenset({1, 2, 3, 7, 8, 9})
    assert new_threads(before, after, python=frozenset({1, 9})) == {7, 8}


def test_a_thread_that_ended_meanwhile_is_not_new() -> None:
    assert new_threads(frozenset({1, 2}), frozenset({1}), python=frozenset({1})) == frozenset()
