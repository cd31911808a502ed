"""`svc up` can lower its worker's CPU priority; every thread of the child inherits it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from schemas.settings import Settings
from svc import children

PROBE = """
import os, threading
seen = []
thread = threading.Thread(target=lambda: seen.append(os.nice(0)))
thread.start(); thread.join()
print(os.nice(0), seen[0])
"""


def _niceness_of_child(tmp_path: Path, niceness: int) -> list[int]:
    log = tmp_path / "child.log"
    process = children.spawn([sys.executable, "-c", PROBE], log_path=log, niceness=niceness)
    assert process.wait(timeout=30) == 0
    return [int(value) for value in log.read_text().split()]


def test_a_child_and_its_threads_run_at_the_niceness_asked_for(tmp_path: Path) -> None:
    base = os.nice(0)
    assert _niceness_of_child(tmp_path, 5) == [base + 5, base + 5]


def test_children_keep_the_parents_niceness_by_default(tmp_path: Path) -> None:
    base = os.nice(0)
    assert _niceness_of_child(tmp_path, 0) == [base, base]


def test_svc_up_keeps_the_workers_priority_by_default() -> None:
    assert Settings().worker_niceness == 0


@pytest.mark.parametrize("bad", [-1, 20])
def test_the_worker_niceness_setting_only_lowers_priority(bad: int) -> None:
    with pytest.raises(ValidationError):
        Settings(worker_niceness=bad)
