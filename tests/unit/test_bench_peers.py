"""bench/bench_peers.py's arithmetic: a ladder step's verdict, the rate a stack holds, the crash step's counts
and the RESULT lines (bench/peers/figures.py), and the peers' key check (bench/peers/shared.py)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

# The benchmarks import each other as scripts run from bench/ do.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from peers.figures import (
    CrashCounts,
    StepFigures,
    crash_counts,
    held_rate,
    misses,
    result_lines,
    verdict,
)
from peers.shared import key_matches


def passing(rate: float, **changes: Any) -> StepFigures:
    """A step that met every bound at ``rate``, with ``changes`` on top."""
    accepted = int(rate * 30)
    step = StepFigures(
        rate=rate,
        achieved=rate,
        p99_ms=20.0,
        lag_p99_ms=100.0,
        accepted=accepted,
        delivered=accepted,
        failed=0,
    )
    return dataclasses.replace(step, **changes)


def test_a_step_within_both_bounds_passes() -> None:
    assert misses(passing(500)) == []
    assert verdict(passing(500)) == "ok"


def test_the_bounds_are_inclusive() -> None:
    assert misses(passing(500, p99_ms=50.0, lag_p99_ms=500.0)) == []


def test_each_bound_missed_is_named() -> None:
    assert misses(passing(500, p99_ms=50.1)) == ["p99"]
    assert misses(passing(500, lag_p99_ms=501.0)) == ["lag"]
    assert verdict(passing(500, p99_ms=80.0, lag_p99_ms=900.0)) == "MISSED p99,lag"


def test_a_step_without_latencies_misses_them() -> None:
    assert misses(passing(500, p99_ms=None, lag_p99_ms=None)) == ["p99", "lag"]


def test_refusing_or_falling_behind_or_not_delivering_is_a_miss() -> None:
    assert misses(passing(500, achieved=490.0)) == ["rate"]
    assert misses(passing(500, achieved=495.0)) == []
    assert misses(passing(500, failed=1)) == ["errors"]
    assert misses(passing(500, delivered=14_999)) == ["delivery"]


def test_the_held_rate_is_the_last_step_of_the_unbroken_run_from_the_bottom() -> None:
    steps = [passing(250), passing(500), passing(1000, p99_ms=70.0), passing(1500)]
    assert held_rate(steps) == 500
    assert held_rate([passing(250), passing(500)]) == 500


def test_a_stack_that_misses_its_first_step_holds_zero_and_one_that_never_ran_none() -> None:
    assert held_rate([passing(250, lag_p99_ms=2000.0)]) == 0
    assert held_rate([]) is None


def test_crash_counts_lost_and_doubled_deliveries_of_accepted_ids_only() -> None:
    counts = crash_counts(
        accepted=["a", "b", "c", "d"],
        arrivals=["a", "b", "b", "c", "c", "c", "x", "x"],  # "x": a request the client gave up on
    )
    assert counts == CrashCounts(accepted=4, delivered=3, lost=1, doubled=2)


def test_crash_counts_of_a_clean_crash() -> None:
    assert crash_counts(["a", "b"], ["b", "a"]) == CrashCounts(accepted=2, delivered=2, lost=0, doubled=0)


def test_result_lines_name_every_stack_in_order_with_a_dash_for_the_missing() -> None:
    lines = result_lines(
        rate={"svc": 1500.0, "celery": 500.0, "celery_reliable": 0.0, "procrastinate": None},
        cpu_ms={"svc": 1.234, "celery": 6.5},
        lost={"svc": 0, "celery": 8, "celery_reliable": 2, "procrastinate": 0},
    )
    assert lines == [
        "RESULT rate_per_s svc=1500 celery=500 celery_reliable=0 procrastinate=-",
        "RESULT cpu_ms svc=1.23 celery=6.50 celery_reliable=- procrastinate=-",
        "RESULT lost svc=0 celery=8 celery_reliable=2 procrastinate=0",
    ]


def test_the_peers_check_the_webhook_key_by_its_id() -> None:
    keys = {"wh1": "secret"}
    assert key_matches(keys, "wh1", "secret")
    assert not key_matches(keys, "wh1", "other")
    assert not key_matches(keys, "wh2", "secret")
    assert not key_matches(keys, "wh1", None)
