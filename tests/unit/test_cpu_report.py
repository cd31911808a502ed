"""The test-CPU report (`make test-cpu`): per-test lines summed by module, and the CPU of a process tree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fixtures.cpu_report import by_module, tree_cpu_seconds

pytestmark = pytest.mark.unit


def test_lines_of_every_process_are_summed_by_module_most_cpu_first(tmp_path: Path) -> None:
    (tmp_path / "11.tsv").write_text("tests/a.py::t1\t1.5\t2.0\ntests/b.py::t1[x]\t4.0\t4.5\n")
    (tmp_path / "12.tsv").write_text("tests/a.py::T::t2\t1.0\t1.0\n")
    assert by_module(tmp_path) == [("tests/b.py", 4.0, 4.5, 1), ("tests/a.py", 2.5, 3.0, 2)]


def test_the_cpu_of_this_process_tree_grows_with_work() -> None:
    before = tree_cpu_seconds(os.getpid())
    total = 0
    while tree_cpu_seconds(os.getpid()) - before < 0.02:
        total += sum(range(10_000))
    assert total > 0
    assert tree_cpu_seconds(-1) == 0.0  # a process that is gone counts nothing
