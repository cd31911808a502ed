import asyncio
import random
import threading
import time
from collections.abc import Sequence

import pytest

from ingress.auth_throttle import FAILURE_MIN_QUANTUM, AuthThrottle, address_key
from ingress.ratelimit import RateLimiter, RowQuota
from ingress.shared_counts import SharedCounts
from sinks.db.counters import CounterDelta

pytestmark = pytest.mark.unit


def test_minute_window_counts_down_then_refuses() -> None:
    limiter = RateLimiter(per_minute=3, per_day=100)
    now = 1_000_040.0  # minute window [1_000_020, 1_000_080)
    remaining = [limiter.hit("k", now).remaining_minute for _ in range(3)]
    assert remaining == [2, 1, 0]
    refused = limiter.hit("k", now)
    assert not refused.allowed
    assert refused.retry_after == 40
    assert refused.headers()["Retry-After"] == "40"
    assert limiter.hit("k", 1_000_080.0).allowed


def test_keys_are_independent() -> None:
    limiter = RateLimiter(per_minute=1, per_day=100)
    assert limiter.hit("a", 0.0).allowed
    assert not limiter.hit("a", 1.0).allowed
    assert limiter.hit("b", 1.0).allowed


def test_day_limit_and_headers() -> None:
    limiter = RateLimiter(per_minute=100, per_day=2)
    limiter.hit("k", 10.0)
    decision = limiter.hit("k", 70.0)
    assert decision.headers() == {
        "X-RateLimit-Limit-Minute": "100",
        "X-RateLimit-Remaining-Minute": "99",
        "X-RateLimit-Limit-Day": "2",
        "X-RateLimit-Remaining-Day": "0",
    }
    refused = limiter.hit("k", 130.0)
    assert not refused.allowed
    assert refused.retry_after == 86_400 - 130


def test_refused_hits_are_not_counted() -> None:
    limiter = RateLimiter(per_minute=1, per_day=10)
    limiter.hit("k", 0.0)
    for _ in range(5):
        limiter.hit("k", 1.0)
    assert limiter.hit("k", 61.0).remaining_day == 8


# Shared counts: several processes, each with its own SharedCounts, flushing into one store.


class MemoryStore:
    """Stands in for the rate_counters table: totals per (name, window start)."""

    def __init__(self) -> None:
        self.totals: dict[tuple[str, int], int] = {}
        self.failures = 0

    def add_and_read(self, deltas: Sequence[CounterDelta], now: float) -> list[int]:
        if self.failures:
            self.failures -= 1
            raise OSError("database unavailable")
        answer = []
        for delta in deltas:
            key = (delta.name, delta.window_start)
            self.totals[key] = self.totals.get(key, 0) + delta.hits
            answer.append(self.totals[key])
        return answer


def _processes(store: MemoryStore, count: int) -> list[SharedCounts]:
    return [SharedCounts(store, clock=lambda: 1_000_000.0) for _ in range(count)]


def test_a_process_sees_the_others_hits_after_a_flush() -> None:
    store = MemoryStore()
    first, second = _processes(store, 2)
    a, b = RateLimiter(100, 10_000, first), RateLimiter(100, 10_000, second)
    for _ in range(10):
        assert a.hit("k", 1_000_000.0).allowed
    assert b.hit("k", 1_000_000.0).remaining_minute == 99
    first.flush()
    second.flush()
    # The second process's flush read back both processes' hits.
    assert b.hit("k", 1_000_000.0).remaining_minute == 100 - 12


@pytest.mark.parametrize("processes", [2, 3, 5])
def test_processes_together_overshoot_by_at_most_the_documented_bound(processes: int) -> None:
    limit = 200
    rng = random.Random(processes)  # noqa: S311 - a reproducible interleaving, not a secret
    for _ in range(10):
        store = MemoryStore()
        counts = _processes(store, processes)
        limiters = [RateLimiter(limit, 10**9, c, local_share=0.05) for c in counts]
        quantum_size = 16  # max(16, 5% of 200)
        admitted = 0
        for _ in range(1_000):
            chosen = rng.randrange(processes)
            if rng.random() < 0.8:
                admitted += limiters[chosen].hit("k", 1_000_000.0).allowed
            else:
                counts[chosen].flush()
        assert admitted <= limit + (processes - 1) * quantum_size
        for shared in counts:
            shared.flush()
        assert admitted >= limit  # every refusal came from the limit, not from a stale view
        assert all(not limiter.hit("k", 1_000_000.0).allowed for limiter in limiters)


def test_a_used_up_share_refuses_for_a_second_until_a_flush() -> None:
    store = MemoryStore()
    (shared,) = _processes(store, 1)
    limiter = RateLimiter(1_000, 10**6, shared)  # quantum 20 (2% of 1,000)
    assert all(limiter.hit("k", 1_000_000.0).allowed for _ in range(20))
    refused = limiter.hit("k", 1_000_000.0)
    assert refused.retry_after == 1 and refused.awaiting_flush
    assert refused.remaining_minute == 980
    shared.flush()
    assert limiter.hit("k", 1_000_000.0).allowed


def test_a_failed_flush_loses_no_hit() -> None:
    store = MemoryStore()
    (first,) = _processes(store, 1)
    limiter = RateLimiter(50, 10**6, first)
    for _ in range(5):
        limiter.hit("k", 1_000_000.0)
    store.failures = 1
    assert not first.flush()
    assert first.flush()
    assert sum(store.totals.values()) == 5 + 5  # the minute's and the day's count


def test_a_waiting_hit_is_admitted_after_the_background_flush() -> None:
    store = MemoryStore()
    shared = SharedCounts(store, flush_seconds=60)  # only an early flush can free the share in time
    shared.start()
    try:
        limiter = RateLimiter(1_000, 10**6, shared)
        now = time.time()
        assert all(limiter.hit("k", now, wait_seconds=5).allowed for _ in range(100))
    finally:
        shared.stop()
    assert store.totals[("requests:m:k", int(now // 60) * 60)] == 100


def test_row_quota_is_shared() -> None:
    store = MemoryStore()
    first, second = _processes(store, 2)
    a, b = RowQuota(1_000, first), RowQuota(1_000, second)
    assert a.take("c", 600, 1_000_000.0)
    assert b.take("c", 1, 1_000_000.0)
    first.flush()
    second.flush()
    assert not b.take("c", 600, 1_000_000.0)
    assert b.take("c", 399, 1_000_000.0)


# Failed-authentication lockouts.


def test_an_address_is_locked_out_after_its_failures_and_others_are_not() -> None:
    throttle = AuthThrottle(per_address=3, per_key=100)
    now = 999_970.0  # minute window [999_960, 1_000_020)
    for _ in range(3):
        assert throttle.lockout("203.0.113.7", None, now) is None
        throttle.failed("203.0.113.7", None, now)
    assert throttle.lockout("203.0.113.7", None, now) == 50  # until the minute ends
    assert throttle.lockout("198.51.100.1", None, now) is None
    assert throttle.lockout("203.0.113.7", None, 1_000_020.0) is None


def test_a_key_id_is_locked_out_from_every_address() -> None:
    throttle = AuthThrottle(per_address=100, per_key=2)
    throttle.failed("203.0.113.7", "key-a", 0.0)
    throttle.failed("198.51.100.1", "key-a", 1.0)
    assert throttle.lockout("192.0.2.9", "key-a", 2.0) == 58
    assert throttle.lockout("192.0.2.9", "key-b", 2.0) is None


def test_ipv6_addresses_count_per_64() -> None:
    throttle = AuthThrottle(per_address=2, per_key=100)
    throttle.failed("2001:db8:1:2::1", None, 0.0)
    throttle.failed("2001:db8:1:2:ffff::9", None, 0.0)
    assert throttle.lockout("2001:db8:1:2::abcd", None, 0.0) is not None
    assert throttle.lockout("2001:db8:1:3::1", None, 0.0) is None


@pytest.mark.parametrize(
    ("host", "counted_as"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8::1", "2001:db8::/64"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("testclient", "testclient"),
        (None, None),
        ("", None),
    ],
)
def test_address_keys(host: str | None, counted_as: str | None) -> None:
    assert address_key(host) == counted_as


def test_failures_are_shared_between_processes() -> None:
    store = MemoryStore()
    first, second = _processes(store, 2)
    a = AuthThrottle(first, per_address=5, per_key=5)
    b = AuthThrottle(second, per_address=5, per_key=5)
    for _ in range(3):
        a.failed("203.0.113.7", None, 1_000_000.0)
        b.failed("203.0.113.7", None, 1_000_000.0)
    assert a.lockout("203.0.113.7", None, 1_000_000.0) is None  # each process saw 3 of 5
    first.flush()
    second.flush()
    assert b.lockout("203.0.113.7", None, 1_000_000.0) is not None
    # The first process sent its 3 before the second's arrived; the flush after its next check reads all 6.
    assert a.lockout("203.0.113.7", None, 1_000_000.0) is None
    first.flush()
    assert a.lockout("203.0.113.7", None, 1_000_000.0) is not None


def test_a_process_that_sees_failures_late_still_locks_out_within_its_quantum() -> None:
    store = MemoryStore()
    first, second = _processes(store, 2)
    a = AuthThrottle(first, per_address=20, per_key=20)
    b = AuthThrottle(second, per_address=20, per_key=20)
    for _ in range(20):
        a.failed(None, "key-a", 1_000_000.0)
    first.flush()
    assert a.lockout(None, "key-a", 1_000_000.0) is not None
    # The second process has counted nothing of this key yet: it checks, and counts what fails.
    checked = 0
    while b.lockout(None, "key-a", 1_000_000.0) is None:
        b.failed(None, "key-a", 1_000_000.0)
        checked += 1
    assert checked == FAILURE_MIN_QUANTUM  # then its unconfirmed share is used up
    assert b.lockout(None, "key-a", 1_000_000.0) == 1
    second.flush()
    assert b.lockout(None, "key-a", 1_000_000.0) == 20  # the minute's end (window [999_960, 1_000_020))


class GatedStore(MemoryStore):
    """A store whose flushes wait until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def add_and_read(self, deltas: Sequence[CounterDelta], now: float) -> list[int]:
        self.gate.wait(30)
        return super().add_and_read(deltas, now)


async def test_an_attempt_beyond_the_share_awaits_the_flush_instead_of_a_refusal() -> None:
    store = GatedStore()
    shared = SharedCounts(store, flush_seconds=60)  # only the early flush can come in time
    shared.start()
    try:
        throttle = AuthThrottle(shared, per_address=20, per_key=20)
        now = time.time()
        for _ in range(FAILURE_MIN_QUANTUM):
            throttle.failed("203.0.113.7", None, now)
        waiting = asyncio.ensure_future(throttle.lockout_async("203.0.113.7", None, now, wait_seconds=30))
        await asyncio.sleep(0.05)
        assert not waiting.done()  # the share is used up and no flush could end yet
        store.gate.set()
        assert await waiting is None  # 4 of 20: not locked out, once the shared table confirms them
    finally:
        store.gate.set()
        shared.stop()
