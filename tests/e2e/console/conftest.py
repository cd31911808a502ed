"""The browser tier: skipped, with its reason, where the operating system has no Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.console.browser import CHROMIUM, chromium


@pytest.fixture
def browser() -> Iterator[Any]:
    """Playwright's sync API runs an event loop of its own on this thread: a test names this fixture
    after the stack's fixtures, which start theirs with asyncio.run."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium)")
    with chromium() as running:
        yield running
