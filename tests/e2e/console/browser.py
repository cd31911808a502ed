"""The OS's Chromium driven by Playwright for Python (no browser download), shared by the console's browser
tests and ``make screenshots``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class Watched:
    """A page and every console error or uncaught exception it showed."""

    page: Any
    problems: list[str] = field(default_factory=list)

    def clean(self) -> None:
        assert self.problems == [], self.problems

    def refused(self, status: int) -> None:
        """A page the test expected to answer ``status`` (a form the API refused, shown again with its
        errors): Chromium logs that status as a console error, which is taken back once."""
        logged = f"Failed to load resource: the server responded with a status of {status}"
        found = next((problem for problem in self.problems if problem.startswith(logged)), None)
        assert found is not None, (status, self.problems)
        self.problems.remove(found)


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def watched_page(browser: Any, width: int = 1280, height: int = 900, zone: str = "Europe/Paris") -> Watched:
    context = browser.new_context(viewport={"width": width, "height": height}, timezone_id=zone)
    context.set_default_timeout(10_000)
    page = context.new_page()
    watched = Watched(page)

    def on_console(message: Any) -> None:
        if message.type == "error":
            watched.problems.append(message.text)

    def on_error(error: Any) -> None:
        watched.problems.append(str(error))

    page.on("console", on_console)
    page.on("pageerror", on_error)
    return watched


def shot(page: Any, name: str) -> None:
    """With ``SVC_CONSOLE_SCREENSHOTS`` set (``make screenshots``), the page as ``<that dir>/<name>.png``."""
    folder = os.environ.get("SVC_CONSOLE_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)
