"""The console's deliveries view measured over HTTP with a signed-in session (issue 45's target: p95 of the
server's answer <= 100 ms at 1,000,000 executions): the first page, a status filter, a time range, a body
text, an inspector page, the charts of the last hour and day. Each request is a full page (the console
calls the API in process)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
from _common import Percentiles, percentiles, progress, timed

CONSOLE_TARGET_P95_MS = 100.0
CHARTS_EMPTY = "No attempts in this window."


@dataclass(frozen=True)
class PageCase:
    name: str
    paths: list[str]  # the i-th request's path, cycled
    expect: str  # text the page must hold, so a refused or empty page is not timed as a fast one
    reject: str = "No deliveries"

    def path(self, i: int) -> str:
        return self.paths[i % len(self.paths)]


@dataclass(frozen=True)
class PageResult:
    case: PageCase
    timing: Percentiles


def signed_in_client(base_url: str, poweruser_key: str) -> httpx.Client:
    """A client holding the console's session cookie, signed in through the form as a browser is."""
    client = httpx.Client(base_url=base_url, timeout=60)
    answer = client.post("/console/sign-in", data={"key": poweruser_key}, headers={"Origin": base_url})
    if answer.status_code != 303 or "svc_console" not in client.cookies:
        raise RuntimeError(f"console sign-in answered {answer.status_code}: {answer.text[:300]}")
    return client


def iso(stored: str) -> str:
    """A stored datetime (naive UTC, ``YYYY-MM-DD HH:MM:SS.ffffff``) as the console's inputs take it."""
    return datetime.fromisoformat(stored).isoformat(timespec="milliseconds") + "Z"


def cases(
    webhook_id: str, newest_queued_at: str, order_text: str, execution_ids: list[str]
) -> list[PageCase]:
    view = f"/console/webhooks/{webhook_id}"
    newest = datetime.fromisoformat(newest_queued_at)
    day = f"from={iso(str(newest - timedelta(days=1)))}&to={iso(str(newest + timedelta(seconds=1)))}"
    return [
        PageCase("console first page", [view], "Deliveries ("),
        PageCase("console status FAILED", [f"{view}?status=FAILED"], "FAILED"),
        PageCase("console last day", [f"{view}?{day}"], "Deliveries ("),
        PageCase("console body text", [f"{view}?body={order_text}"], "Deliveries ("),
        PageCase("console inspector", [f"{view}/deliveries/{e}" for e in execution_ids], "Attempts ("),
        # The charts: /get-delivery-stats over the last hour and the last day (each attempt of the window read
        # from the history index's range, at most 100,000).
        PageCase("console charts hour", [f"{view}/charts?window=HOUR"], "attempts since", CHARTS_EMPTY),
        PageCase("console charts day", [f"{view}/charts?window=DAY"], "attempts since", CHARTS_EMPTY),
    ]


def measure(client: httpx.Client, case: PageCase, repetitions: int) -> PageResult:
    def fetch(i: int) -> None:
        answer = client.get(case.path(i))
        if answer.status_code != 200 or case.expect not in answer.text or case.reject in answer.text:
            raise RuntimeError(
                f"{case.name}: {case.path(i)} answered {answer.status_code}: {answer.text[:300]}"
            )

    progress(f"measuring {case.name}: {repetitions} page requests")
    return PageResult(case, percentiles(timed(fetch, repetitions, max(5, repetitions // 10))))


def report(results: list[PageResult]) -> None:
    header = f"{'console page':<28}{'p50/p95/p99 ms':>26}  target (p95 <= {CONSOLE_TARGET_P95_MS:.0f} ms)"
    print()
    print(header)
    print("-" * len(header))
    for result in results:
        verdict = "met" if result.timing.p95 <= CONSOLE_TARGET_P95_MS else "MISSED"
        print(f"{result.case.name:<28}{result.timing!s:>26}  {verdict}")


def execution_ids_of(history: dict[str, Any]) -> list[str]:
    return list(dict.fromkeys(entry["executionId"] for entry in history["history"]))
