"""A child of ``svc up`` exits within the shutdown timeout once ``svc up`` is gone (svc/orphans.py)."""

from __future__ import annotations

import os
import threading
from typing import Any

import pytest

from svc import orphans

pytestmark = pytest.mark.unit


class Clock:
    """The parent's pid over time, and what the watch slept and did."""

    def __init__(self, parents: list[int]) -> None:
        self.parents = parents
        self.slept: list[float] = []
        self.left: list[int] = []

    def parent(self) -> int:
        return self.parents.pop(0) if len(self.parents) > 1 else self.parents[0]

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)

    def leave(self, code: int) -> None:
        self.left.append(code)


def test_the_watch_leaves_after_the_grace_once_the_parent_is_gone() -> None:
    clock = Clock([42, 42, 42, 1])
    orphans.watch(42, 7.5, parent=clock.parent, sleep=clock.sleep, leave=clock.leave)
    assert clock.slept == [orphans.POLL_SECONDS] * 3 + [7.5]
    assert clock.left == [1]


def test_a_process_svc_up_did_not_start_watches_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(orphans.SUPERVISOR_PID, raising=False)
    started: list[object] = []
    monkeypatch.setattr(threading, "Thread", lambda **kwargs: started.append(kwargs))
    orphans.exit_when_orphaned(30.0)
    monkeypatch.setenv(orphans.SUPERVISOR_PID, "not a pid")
    orphans.exit_when_orphaned(30.0)
    assert started == []


def test_a_child_of_svc_up_starts_the_watch_on_its_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    class Thread:
        def __init__(self, **kwargs: object) -> None:
            started.append(kwargs)

        def start(self) -> None:
            started.append("started")

    started: list[Any] = []
    monkeypatch.setenv(orphans.SUPERVISOR_PID, str(os.getppid()))
    monkeypatch.setattr(threading, "Thread", Thread)
    orphans.exit_when_orphaned(30.0)
    assert started[0]["args"] == (os.getppid(), 30.0)
    assert started[0]["daemon"] is True
    assert started[1] == "started"
