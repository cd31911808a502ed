"""The per-company CPU allowance of the sandbox (core/cpu_allowance.py): a token bucket in CPU ms."""

from __future__ import annotations

import pytest

from core.cpu_allowance import CpuAllowance, retry_after_seconds

pytestmark = pytest.mark.unit


def test_a_fresh_company_starts_with_its_whole_burst() -> None:
    allowance = CpuAllowance(rate_ms_per_second=500, burst_ms=3000)
    assert allowance.wait_seconds("acme", now=0.0) == 0.0
    allowance.charge("acme", 2999, now=0.0)
    assert allowance.wait_seconds("acme", now=0.0) == 0.0


def test_a_call_that_overspends_puts_the_company_in_debt_until_the_refill_pays_it() -> None:
    allowance = CpuAllowance(rate_ms_per_second=500, burst_ms=3000)
    allowance.charge("hostile", 4000, now=10.0)  # one call ran past what was left
    assert allowance.wait_seconds("hostile", now=10.0) == pytest.approx(2.0)
    assert allowance.wait_seconds("hostile", now=11.0) == pytest.approx(1.0)
    assert allowance.wait_seconds("hostile", now=12.0) == 0.0


def test_companies_have_separate_buckets() -> None:
    allowance = CpuAllowance(rate_ms_per_second=500, burst_ms=1000)
    allowance.charge("hostile", 5000, now=0.0)
    assert allowance.wait_seconds("hostile", now=0.0) > 0
    assert allowance.wait_seconds("victim", now=0.0) == 0.0


def test_the_refill_never_exceeds_the_burst() -> None:
    allowance = CpuAllowance(rate_ms_per_second=1000, burst_ms=1000)
    allowance.wait_seconds("acme", now=0.0)
    allowance.charge("acme", 1500, now=3600.0)  # an hour idle refills to the burst, not beyond
    assert allowance.wait_seconds("acme", now=3600.0) == pytest.approx(0.5)


def test_a_zero_rate_turns_the_allowance_off() -> None:
    allowance = CpuAllowance(rate_ms_per_second=0, burst_ms=1000)
    allowance.charge("acme", 10**9, now=0.0)
    assert not allowance.enabled
    assert allowance.wait_seconds("acme", now=0.0) == 0.0


def test_full_buckets_are_forgotten_when_many_companies_were_seen() -> None:
    allowance = CpuAllowance(rate_ms_per_second=1000, burst_ms=100)
    for index in range(1100):
        allowance.charge(f"c{index}", 50, now=0.0)
    allowance.charge("late", 50, now=10.0)  # everyone else refilled long ago
    assert len(allowance._buckets) == 1


@pytest.mark.parametrize(("wait", "header"), [(0.01, 1), (1.0, 1), (1.2, 2), (7.9, 8)])
def test_retry_after_is_whole_seconds_at_least_one(wait: float, header: int) -> None:
    assert retry_after_seconds(wait) == header
