"""The unit tier starts nothing: no subprocess, no broker, no server. A test that needs one belongs in
tests/integration."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

# croniter asks `file` about the interpreter when it is first imported (platform.architecture): a library's
# import, not a test's process. Imported here, before the guard below, so a test that happens to import it
# first (through faust or mode) is not refused.
import croniter  # noqa: F401  # isort: skip


class SubprocessInUnitTest(AssertionError):
    pass


@pytest.fixture(autouse=True)
def _no_subprocesses(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise SubprocessInUnitTest("unit tests start no process: move this test to tests/integration")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
