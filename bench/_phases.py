"""Open-loop phases of webhook triggers, shared by bench_dedup.py and bench_replay.py.

A phase is bench_webhook_load's ``Generator``: its raw keep-alive HTTP/1.1 client in a process of its own (so
it shares no GIL with the benchmark and stays far from saturation), sending on a fixed schedule whatever the
answers do, latency counted from each request's scheduled send time (no coordinated omission). A phase runs
in the foreground (``run_phase``) or in the background (``Stream``) while the benchmark does something
else; a run's samples are then cut into windows by wall time (``window``).
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from _common import Percentiles, percentiles
from bench_webhook_load import Generator, trigger_histogram


@dataclass
class Window:
    """The requests of a run scheduled inside one window, with the answers' statuses."""

    name: str
    expected: int
    offered: int = 0
    latencies_ms: list[float] = field(default_factory=list)  # answers with the expected status
    statuses: Counter[str] = field(default_factory=Counter)  # every answer: a status, "timeout" or an error
    execution_ids: dict[int, str] = field(default_factory=dict)  # request index -> executionId answered
    server_mean_ms: float | None = None  # the ingress's own mean time per trigger (its metrics)

    @property
    def latency(self) -> Percentiles | None:
        return percentiles(self.latencies_ms) if len(self.latencies_ms) >= 2 else None

    @property
    def unexpected(self) -> Counter[str]:
        return Counter({status: n for status, n in self.statuses.items() if status != str(self.expected)})

    def merged(self, other: Window, name: str | None = None) -> Window:
        """Both windows' requests as one (for kinds measured in several phases of one run)."""
        both = Window(name or self.name, self.expected, self.offered + other.offered)
        both.latencies_ms = self.latencies_ms + other.latencies_ms
        both.statuses = self.statuses + other.statuses
        sent = [(part.server_mean_ms, part.offered) for part in (self, other) if part.offered]
        if sent and all(mean is not None for mean, _ in sent):
            both.server_mean_ms = sum(float(mean or 0) * n for mean, n in sent) / sum(n for _, n in sent)
        return both


def window(
    name: str,
    result: dict[str, Any],
    *,
    expected: int = 202,
    begin: float | None = None,
    end: float | None = None,
) -> Window:
    """The requests of a generator run scheduled at wall times in [begin, end); by default from the end of
    its warm-up to its end."""
    start_wall = float(result["startWall"])
    low = begin - start_wall if begin is not None else float(result["warmup"])
    high = end - start_wall if end is not None else float("inf")
    found = Window(name, expected)
    for index, sample in enumerate(result["samples"]):
        if not sample:  # never sent (the run was cut short)
            continue
        scheduled, done, outcome, execution_id, _done_wall = sample
        if not low <= scheduled < high:
            continue
        found.offered += 1
        found.statuses[str(outcome)] += 1
        if outcome == expected:
            found.latencies_ms.append((done - scheduled) * 1000)
        if execution_id:
            found.execution_ids[index] = str(execution_id)
    return found


def latency_at(result: dict[str, Any]) -> list[tuple[float, float, str]]:
    """(scheduled wall time, latency in ms, outcome) of every request of a run that was answered."""
    start_wall = float(result["startWall"])
    return [
        (start_wall + sample[0], (sample[1] - sample[0]) * 1000, str(sample[2]))
        for sample in result["samples"]
        if sample
    ]


def _server_mean_ms(before: dict[str, float], after: dict[str, float]) -> float | None:
    count = after.get("count", 0.0) - before.get("count", 0.0)
    if count <= 0:
        return None
    return (after.get("sum", 0.0) - before.get("sum", 0.0)) / count * 1000


def run_phase(
    generator: Generator,
    url: str,
    path: str,
    auth: str,
    *,
    name: str,
    rate: float,
    warmup: float,
    seconds: float,
    key_prefix: str | None = None,
    expected: int = 202,
    metrics_url: str | None = None,
) -> tuple[Window, dict[str, Any]]:
    """One open-loop phase in the foreground: its window after the warm-up, and the raw run. With
    ``metrics_url``, the window also carries the ingress's own mean time per trigger over the phase
    (warm-up included: the metrics are cumulative)."""
    before = trigger_histogram(metrics_url) if metrics_url else {}
    result = generator.run(
        url, path, auth, rate=rate, warmup=warmup, seconds=seconds, closed=False, key_prefix=key_prefix
    )
    found = window(name, result, expected=expected)
    if metrics_url:
        found.server_mean_ms = _server_mean_ms(before, trigger_histogram(metrics_url))
    return found, result


class Stream:
    """An open-loop phase in the background: ``run`` (a generator's call, its arguments bound) in a thread
    that waits for the generator's process."""

    def __init__(self, run: Callable[[], dict[str, Any]]) -> None:
        self._result: dict[str, Any] = {}
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(run,), name="open-loop-stream", daemon=True)
        self._thread.start()

    def _run(self, run: Callable[[], dict[str, Any]]) -> None:
        try:
            self._result = run()
        except BaseException as exc:
            self._failure = exc

    def join(self) -> dict[str, Any]:
        self._thread.join()
        if self._failure is not None:
            raise self._failure
        return self._result


def wait_first_request(metrics_url: str, before: float, timeout: float = 60) -> float:
    """The wall time a stream's first request reached the ingress (its trigger count moved past ``before``):
    the generator's process takes a moment to start, longer on a busy machine."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if trigger_histogram(metrics_url).get("count", 0.0) > before:
            return time.time()
        time.sleep(0.05)
    raise RuntimeError(f"the load generator sent nothing within {timeout:.0f} s")


def load_average() -> float:
    return os.getloadavg()[0]


def describe_statuses(statuses: Counter[str]) -> str:
    return ", ".join(f"{status}: {count}" for status, count in sorted(statuses.items())) or "none"


def table(windows: Iterable[Window]) -> list[str]:
    """One line per window: requests, p50/p95/p99/max of the expected answers, the others by status."""
    header = (
        f"{'phase':<24} | {'sent':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} "
        f"{'ingress':>8} | unexpected answers"
    )
    lines = [header, "-" * len(header)]
    for found in windows:
        latency = found.latency
        cells = f"{latency.p50:>8.2f} {latency.p95:>8.2f} {latency.p99:>8.2f}" if latency else f"{'-':>26}"
        peak = f"{max(found.latencies_ms):>8.1f}" if found.latencies_ms else f"{'-':>8}"
        server = f"{found.server_mean_ms:>8.2f}" if found.server_mean_ms is not None else f"{'-':>8}"
        lines.append(
            f"{found.name:<24} | {found.offered:>6} {cells} {peak} {server} | "
            f"{describe_statuses(found.unexpected) if found.unexpected else '0'}"
        )
    return lines
