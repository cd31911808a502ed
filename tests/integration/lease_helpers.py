"""For the lease tests with two workers: a recording handler that also notes which worker process made each
call (from the calling socket, through /proc), so a test knows which worker acts on an item and can kill
that one; and the pair of workers a module shares, on PostgreSQL. A module binds the pair's fixtures beside
its stack's (tests/fixtures/module_stack.py) and gives its workers' settings in a ``pair_env`` fixture
(module scope):

    stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES
    kafka_settings, pair = lease_helpers.PAIR_FIXTURES
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse

from schemas.settings import Settings
from tests.fixtures.handler import RecordingHandler, serving
from tests.fixtures.stack import Ingress
from tests.fixtures.two_workers import PostgresWorker, both_running, postgres_settings, running_pair

Pair = tuple[PostgresWorker, PostgresWorker]


def socket_owner(local_port: int, pids: Iterable[int]) -> int | None:
    """Which of ``pids`` holds the TCP socket bound to ``local_port`` on this machine, if any."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == local_port:
                inodes.add(fields[9])
    for pid in pids:
        try:
            descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for descriptor in descriptors:
            try:
                target = os.readlink(descriptor)
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                return pid
    return None


@dataclass
class CallerHandler(RecordingHandler):
    """``arrivals`` has one entry per call as it arrives (before the handler's delay): the item, its attempt,
    when, and which of ``workers`` (pid -> name) made it."""

    workers: dict[int, str] = field(default_factory=dict)
    arrivals: list[dict[str, Any]] = field(default_factory=list)
    answered: list[tuple[str, float]] = field(default_factory=list)  # item, when its answer was ready

    async def handle(self, request: Request) -> JSONResponse:
        body = await request.json()  # Starlette keeps it: the recording handler reads it again
        port = request.client.port if request.client is not None else 0
        pid = await asyncio.to_thread(socket_owner, port, list(self.workers))
        with self.lock:
            self.arrivals.append(
                {
                    "item": body.get("runId") or body["executionId"],
                    "attempt": body["attemptNumber"],
                    "at": time.time(),
                    "worker": self.workers.get(pid or 0),
                }
            )
        answer = await super().handle(request)
        with self.lock:
            self.answered.append((body.get("runId") or body["executionId"], time.time()))
        return answer

    def unanswered_at(self, moment: float) -> set[str]:
        """The items with a call still waiting for its answer at ``moment`` (a ``time.time()``): a worker
        killed then cannot have heard how the call went."""
        with self.lock:
            called = Counter(arrival["item"] for arrival in self.arrivals if arrival["at"] <= moment)
            done = Counter(item for item, at in self.answered if at <= moment)
        return {item for item, count in called.items() if count > done[item]}

    def calls_per_item(self) -> Counter[str]:
        with self.lock:
            return Counter(arrival["item"] for arrival in self.arrivals)

    def callers(self) -> dict[str, set[str | None]]:
        """Item -> the workers that called the handler for it."""
        found: dict[str, set[str | None]] = {}
        with self.lock:
            for arrival in self.arrivals:
                found.setdefault(arrival["item"], set()).add(arrival["worker"])
        return found


@pytest.fixture
def caller_handler(tmp_path: Path) -> Iterator[CallerHandler]:
    recorder = CallerHandler(log_path=tmp_path / "handler.log")
    with serving(recorder):
        yield recorder


def histogram(calls: Counter[str]) -> dict[int, int]:
    """Calls per item -> how many items got that many calls."""
    return dict(sorted(Counter(calls.values()).items()))


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    """Several workers need PostgreSQL: the module's stack runs on it whatever SVC_TEST_DATABASE says."""
    return postgres_settings(stack_dir / "data", kafka_bootstrap)


@pytest.fixture(scope="module")
def pair(
    kafka_settings: Settings, ingress: Ingress, stack_dir: Path, pair_env: dict[str, str]
) -> Iterator[Pair]:
    """The module's two workers (after the ingress, which makes the topics), each with ``pair_env``."""
    first, second = (
        PostgresWorker(kafka_settings, stack_dir / f"{name}.log", name, **pair_env)
        for name in ("first", "second")
    )
    with running_pair(first, second):
        yield first, second


PAIR_FIXTURES = (kafka_settings, pair)


def two_workers(pair: Pair, handler: CallerHandler) -> Pair:
    """The module's pair, both running, with ``handler`` told which process is which."""
    both_running(*pair)
    for worker in pair:
        assert worker.process is not None
        handler.workers[worker.process.pid] = worker.name
    return pair
