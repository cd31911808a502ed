"""A destination's admission and circuit (core/webhooks/destinations.py): limits, rate bucket, Retry-After,
the circuit opening on failures in a row or a failure ratio, probes, closing on a probe's success."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.webhooks.destinations import (
    Breaker,
    Circuit,
    Limits,
    Outcome,
    admit,
    after,
    capacity,
    fresh,
    retry_after_seconds,
)

pytestmark = pytest.mark.unit

NOW = datetime(2026, 12, 2, 12, tzinfo=UTC)
BREAKER = Breaker(failures=3, ratio=0.5, min_attempts=6, window_seconds=60, probe_seconds=30)
FAIL = Outcome(ok=False, error="Handler answered HTTP 500")
OK = Outcome(ok=True)


def test_concurrency_admits_up_to_the_free_slots() -> None:
    limits = Limits(max_concurrency=4)
    admitted, state = admit(fresh(NOW), limits, in_flight=1, wanting=10, now=NOW, breaker=BREAKER)
    assert admitted == 3 and state == fresh(NOW)
    assert admit(fresh(NOW), limits, in_flight=4, wanting=10, now=NOW, breaker=BREAKER)[0] == 0


def test_the_rate_bucket_holds_a_second_and_refills_at_the_rate() -> None:
    limits = Limits(max_concurrency=100, max_per_second=10)
    admitted, state = admit(fresh(NOW), limits, 0, 50, NOW, BREAKER)
    assert admitted == 10  # a full bucket: one second's worth
    assert admit(state, limits, 0, 50, NOW, BREAKER)[0] == 0
    later = NOW + timedelta(milliseconds=350)
    assert capacity(state, limits, 0, later) == 3
    assert admit(state, limits, 0, 50, later, BREAKER)[0] == 3
    assert capacity(state, limits, 0, NOW + timedelta(seconds=30)) == 10  # never more than a second's worth
    slow = Limits(max_concurrency=100, max_per_second=0.5)
    assert admit(fresh(NOW), slow, 0, 5, NOW, BREAKER)[0] == 1  # at least one call's worth


def test_failures_in_a_row_open_the_circuit_and_a_success_resets_the_count() -> None:
    state = after(fresh(NOW), [FAIL, FAIL, OK, FAIL, FAIL], NOW, BREAKER)
    assert state.circuit is Circuit.CLOSED and state.consecutive_failures == 2
    state = after(state, [FAIL], NOW, BREAKER)
    assert state.circuit is Circuit.OPEN and state.since == NOW
    assert state.probe_at == NOW + timedelta(seconds=30)
    assert state.last_error == "Handler answered HTTP 500"


def test_a_failure_ratio_over_the_window_opens_the_circuit() -> None:
    breaker = Breaker(failures=100, ratio=0.5, min_attempts=6, window_seconds=60)
    state = after(fresh(NOW), [FAIL, OK, FAIL, OK, FAIL], NOW, breaker)
    assert state.circuit is Circuit.CLOSED  # under min_attempts
    assert after(state, [FAIL], NOW, breaker).circuit is Circuit.OPEN  # 4 of 6
    # A window that ended starts over.
    assert after(state, [FAIL], NOW + timedelta(seconds=61), breaker).circuit is Circuit.CLOSED


def test_an_open_circuit_lets_one_probe_through_per_interval_and_closes_on_its_success() -> None:
    limits = Limits(max_concurrency=16)
    opened = after(fresh(NOW), [FAIL] * 3, NOW, BREAKER)
    assert admit(opened, limits, 0, 5, NOW + timedelta(seconds=29), BREAKER)[0] == 0
    probe_time = NOW + timedelta(seconds=30)
    admitted, probing = admit(opened, limits, 0, 5, probe_time, BREAKER)
    assert admitted == 1 and probing.circuit is Circuit.HALF_OPEN
    assert admit(probing, limits, 1, 5, probe_time, BREAKER)[0] == 0  # one probe at a time
    failed = after(probing, [FAIL], probe_time, BREAKER)
    assert failed.circuit is Circuit.OPEN and failed.since == NOW  # open since it first opened
    assert failed.probe_at == probe_time + timedelta(seconds=30)
    closed = after(probing, [OK], probe_time, BREAKER)
    assert closed.circuit is Circuit.CLOSED and closed.since == probe_time
    assert capacity(closed, limits, 0, probe_time) == 16


def test_retry_after_holds_every_call_back_capped() -> None:
    limits = Limits(max_concurrency=16)
    state = after(fresh(NOW), [Outcome(ok=False, error="429", retry_after_seconds=5)], NOW, BREAKER)
    assert state.blocked_until == NOW + timedelta(seconds=5)
    assert capacity(state, limits, 0, NOW + timedelta(seconds=4)) == 0
    assert capacity(state, limits, 0, NOW + timedelta(seconds=5)) == 16
    capped = after(fresh(NOW), [Outcome(ok=False, retry_after_seconds=10**6)], NOW, BREAKER)
    assert capped.blocked_until == NOW + timedelta(seconds=BREAKER.retry_after_max_seconds)


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after_seconds("120", NOW) == 120
    assert retry_after_seconds("Wed, 02 Dec 2026 12:00:30 GMT", NOW) == 30
    assert retry_after_seconds("Wed, 02 Dec 2026 11:00:00 GMT", NOW) == 0
    assert retry_after_seconds(None, NOW) is None
    assert retry_after_seconds("soon", NOW) is None
    assert retry_after_seconds("-5", NOW) is None
