"""Rate limits shared by ingress processes through the metadata DB: two limiters on one SQLite file, then
two real ingress servers on one DB."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from ingress.ratelimit import REQUEST_MIN_QUANTUM, RateLimiter
from ingress.shared_counts import SharedCounts
from schemas.settings import Settings
from sinks.db import counters
from sinks.db.counters import SharedCounterStore
from sinks.db.engine import make_engine, make_sessions
from sinks.embedded_broker import process as broker
from sinks.kafka_admin import ensure_topics
from tests.fixtures.stack import Db, Ingress
from tests.fixtures.windows import with_window_left

pytestmark = pytest.mark.integration


@pytest.fixture
def two_processes(settings: Settings, db: Db) -> Iterator[tuple[SharedCounts, SharedCounts]]:
    """Two processes' shared counts: each its own engine on the one SQLite file, each its own flusher."""
    engines = [make_engine(settings.resolved_database_url) for _ in range(2)]
    counts = [SharedCounts(SharedCounterStore(make_sessions(e)), flush_seconds=0.005) for e in engines]
    for shared in counts:
        shared.start()
    try:
        yield counts[0], counts[1]
    finally:
        for shared in counts:
            shared.stop()
        for engine in engines:
            engine.dispose()


def test_two_limiters_on_one_sqlite_file_stay_within_the_bound(
    two_processes: tuple[SharedCounts, SharedCounts], db: Db
) -> None:
    limit = 300
    limiters = [RateLimiter(limit, 10**9, shared) for shared in two_processes]
    admitted = [0, 0]
    with_window_left()  # the flushes forget a window the real clock has left, whatever ``now`` says
    now = time.time()

    def hammer(index: int) -> None:
        # Hits as fast as one thread goes, until the limit itself refuses (not a share awaiting its flush).
        for _ in range(100_000):
            decision = limiters[index].hit("shared-key", now)
            if decision.allowed:
                admitted[index] += 1
            elif not decision.awaiting_flush:
                return
            else:
                time.sleep(0.0005)

    threads = [threading.Thread(target=hammer, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # The documented bound: limit + (P - 1) * quantum, here quantum = max(16, 2% of 300) = 16.
    assert limit <= sum(admitted) <= limit + REQUEST_MIN_QUANTUM
    assert all(admitted), admitted  # both processes took part
    for shared in two_processes:
        assert shared.flush()
    with db.sessions() as session:
        stored = counters.read(session, "requests:m:shared-key", int(now // 60) * 60)
    assert stored == sum(admitted)
    for limiter in limiters:
        refused = limiter.hit("shared-key", now)
        assert not refused.allowed and refused.remaining_minute == 0


def test_ended_windows_are_deleted(db: Db) -> None:
    store = SharedCounterStore(db.sessions)
    old = counters.CounterDelta("requests:m:k", 0, 60, 5)
    current = counters.CounterDelta("requests:m:k", 10**10, 10**10 + 60, 2)
    assert store.add_and_read([old, current], now=10.0) == [5, 2]  # the first flush also cleans up
    store = SharedCounterStore(db.sessions)
    store.add_and_read([current], now=61.0)
    with db.sessions() as session:
        assert counters.read(session, "requests:m:k", 0) == 0
        assert counters.read(session, "requests:m:k", 10**10) == 4


@pytest.fixture
def two_ingresses(kafka_settings: Settings, ingress_db: Db) -> Iterator[tuple[Ingress, Ingress]]:
    """Two ingress servers on different ports over one metadata DB, as two processes of a deployment."""
    asyncio.run(ensure_topics(kafka_settings))
    limits = {"rate_limit_per_minute": 100, "rate_limit_flush_ms": 20}
    servers = [
        Ingress(kafka_settings.model_copy(update={**limits, "port": broker.free_port()})) for _ in range(2)
    ]
    for server in servers:
        server.start()
    try:
        yield servers[0], servers[1]
    finally:
        for server in servers:
            server.stop()


def test_two_ingress_servers_share_a_keys_rate_limit(
    two_ingresses: tuple[Ingress, Ingress], ingress_db: Db
) -> None:
    hostile = {"Authorization": ingress_db.create_company("Hostile", "a@hostile.test").client_api_key}
    victim = {"Authorization": ingress_db.create_company("Victim", "a@victim.test").client_api_key}
    answers: list[httpx.Response] = []
    with_window_left()  # the 200 calls in one fixed window
    for turn in range(200):  # twice the limit, half to each server (each would allow 100 on its own)
        server = two_ingresses[turn % 2]
        answers.append(server.client.post("/clients/whoami", headers=hostile, json={}))
    admitted = sum(answer.status_code == 200 for answer in answers)
    assert {answer.status_code for answer in answers} == {200, 429}
    # Bound: limit + (2 - 1) * quantum, quantum = max(16, 2% of 100) = 16.
    assert 100 <= admitted <= 100 + REQUEST_MIN_QUANTUM
    refused = answers[-1]
    assert refused.status_code == 429
    assert refused.json()["errors"][0].startswith("Rate limit exceeded")
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.headers["X-RateLimit-Limit-Minute"] == "100"
    assert refused.headers["X-RateLimit-Remaining-Minute"] == "0"
    # Another company's key is its own count on both servers.
    for server in two_ingresses:
        answer = server.client.post("/clients/whoami", headers=victim, json={})
        assert answer.status_code == 200 and answer.headers["X-RateLimit-Limit-Minute"] == "100"
