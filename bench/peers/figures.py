"""The pure arithmetic of bench_peers.py: a ladder step's verdict, the rate a stack holds, the crash step's
counts and the three RESULT lines."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

STACKS = ("svc", "celery", "celery_reliable", "procrastinate")
TARGET_P99_MS = 50.0  # the 202's p99, from the request's scheduled send time
TARGET_LAG_P99_MS = 500.0  # the 202 to the handler's first sight of the delivery
# A step holds its rate when this share of the offered 202s per second came back inside the window
# (bench_webhook_load's SUSTAINED_SHARE).
SUSTAINED_SHARE = 0.99


@dataclass(frozen=True)
class StepFigures:
    rate: float
    achieved: float  # 202s per second inside the window
    p99_ms: float | None  # None: fewer than two 202s
    lag_p99_ms: float | None
    accepted: int
    delivered: int  # accepted deliveries that reached the handler within the grace
    failed: int  # answers other than 202 (statuses, time-outs, errors)


def misses(step: StepFigures) -> list[str]:
    """What a step missed: the issue's two bounds, and what would make them meaningless (a stack that
    answers fast by refusing, accepting less than offered, or not delivering what it accepted)."""
    found: list[str] = []
    if step.achieved < SUSTAINED_SHARE * step.rate:
        found.append("rate")
    if step.failed:
        found.append("errors")
    if step.p99_ms is None or step.p99_ms > TARGET_P99_MS:
        found.append("p99")
    if step.lag_p99_ms is None or step.lag_p99_ms > TARGET_LAG_P99_MS:
        found.append("lag")
    if step.delivered < step.accepted:
        found.append("delivery")
    return found


def verdict(step: StepFigures) -> str:
    found = misses(step)
    return "ok" if not found else "MISSED " + ",".join(found)


def held_rate(steps: Sequence[StepFigures]) -> float | None:
    """The highest rate of the ladder's unbroken run of passing steps from its lowest rate (steps in the
    order climbed): 0 when the first step missed, None when no step ran."""
    held: float | None = 0.0 if steps else None
    for step in steps:
        if misses(step):
            break
        held = step.rate
    return held


@dataclass(frozen=True)
class CrashCounts:
    accepted: int
    delivered: int  # accepted deliveries that reached the handler at least once
    lost: int  # accepted deliveries that never reached it
    doubled: int  # accepted deliveries that reached it more than once


def crash_counts(accepted: Iterable[str], arrivals: Iterable[str]) -> CrashCounts:
    """From the executionIds answered with a 202 and the executionId of every call the handler received
    (a repeat once per repeat); calls for ids never answered 202 (a request the client gave up on) are not
    counted."""
    wanted = set(accepted)
    seen = Counter(execution_id for execution_id in arrivals if execution_id in wanted)
    delivered = len(seen)
    return CrashCounts(
        accepted=len(wanted),
        delivered=delivered,
        lost=len(wanted) - delivered,
        doubled=sum(1 for count in seen.values() if count > 1),
    )


def _cells(values: Mapping[str, str]) -> str:
    return " ".join(f"{stack}={values.get(stack, '-')}" for stack in STACKS)


def result_lines(
    rate: Mapping[str, float | None], cpu_ms: Mapping[str, float | None], lost: Mapping[str, int | None]
) -> list[str]:
    """The bench's last three lines; a stack without a figure (skipped, or failed) prints ``-``."""
    return [
        "RESULT rate_per_s " + _cells({k: f"{v:.0f}" for k, v in rate.items() if v is not None}),
        "RESULT cpu_ms " + _cells({k: f"{v:.2f}" for k, v in cpu_ms.items() if v is not None}),
        "RESULT lost " + _cells({k: str(v) for k, v in lost.items() if v is not None}),
    ]
