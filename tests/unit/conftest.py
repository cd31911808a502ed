"""The unit tier starts nothing: no subprocess, no broker, no server. A test that needs one belongs in
tests/integration."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest


class SubprocessInUnitTest(AssertionError):
    pass


@pytest.fixture(autouse=True)
def _no_subprocesses(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise SubprocessInUnitTest("unit tests start no process: move this test to tests/integration")

    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)
