import pytest

from ingress.ratelimit import RateLimiter

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
