"""A destination's admission rules (docs/webhooks.md#destinations): how many of the deliveries that want a
destination may call it now, and how its outcomes move its circuit, its Retry-After and its rate bucket.

Pure functions over a snapshot of the destination's state; the database keeps the state and serialises the
workers' turns (``sinks/db/webhooks/destinations.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from enum import StrEnum

from schemas.settings import Settings

ERROR_CHARS = 500


class Circuit(StrEnum):
    CLOSED = "CLOSED"
    OPEN = "OPEN"
    HALF_OPEN = "HALF_OPEN"


@dataclass(frozen=True)
class Limits:
    """A destination's own limits: calls in flight across every worker, calls started per second."""

    max_concurrency: int
    max_per_second: float | None = None


@dataclass(frozen=True)
class Breaker:
    """When a circuit opens, and how it is probed: ``failures`` failed attempts in a row, or a failure ratio
    over ``ratio`` among at least ``min_attempts`` attempts of the last ``window_seconds``; one probe every
    ``probe_seconds`` while open. A Retry-After holds calls back at most ``retry_after_max_seconds``."""

    failures: int = 10
    ratio: float = 0.5
    min_attempts: int = 20
    window_seconds: float = 60.0
    probe_seconds: float = 30.0
    retry_after_max_seconds: float = 300.0


def breaker_of(settings: Settings) -> Breaker:
    return Breaker(
        failures=settings.circuit_failures,
        ratio=settings.circuit_failure_ratio,
        min_attempts=settings.circuit_min_attempts,
        window_seconds=settings.circuit_window_seconds,
        probe_seconds=settings.circuit_probe_seconds,
        retry_after_max_seconds=settings.retry_after_max_seconds,
    )


@dataclass(frozen=True)
class State:
    circuit: Circuit
    since: datetime
    probe_at: datetime | None = None
    consecutive_failures: int = 0
    window_start: datetime | None = None
    window_attempts: int = 0
    window_failures: int = 0
    last_error: str | None = None
    last_error_at: datetime | None = None
    blocked_until: datetime | None = None
    tokens: float = 0.0
    tokens_at: datetime | None = None


@dataclass(frozen=True)
class Outcome:
    """One finished call: whether it succeeded, its error, and the Retry-After the destination asked for."""

    ok: bool
    error: str | None = None
    retry_after_seconds: float | None = None


def fresh(now: datetime) -> State:
    return State(circuit=Circuit.CLOSED, since=now)


def _bucket(state: State, limits: Limits, now: datetime) -> float:
    """The rate bucket's tokens now: refilled at the rate, holding at most one second's worth (at least 1)."""
    rate = limits.max_per_second
    if rate is None:
        return math.inf
    burst = max(1.0, rate)
    if state.tokens_at is None:
        return burst
    elapsed = max(0.0, (now - state.tokens_at).total_seconds())
    return min(burst, state.tokens + elapsed * rate)


def capacity(state: State, limits: Limits, in_flight: int, now: datetime) -> int:
    """How many calls may start now, without changing the state (the sweep that wakes waiting deliveries)."""
    if state.blocked_until is not None and state.blocked_until > now:
        return 0
    if state.circuit is not Circuit.CLOSED:
        probe_due = state.probe_at is None or state.probe_at <= now
        return 1 if probe_due and in_flight == 0 else 0
    free = max(0, limits.max_concurrency - in_flight)
    tokens = _bucket(state, limits, now)
    return free if math.isinf(tokens) else min(free, int(tokens))


def admit(
    state: State, limits: Limits, in_flight: int, wanting: int, now: datetime, breaker: Breaker
) -> tuple[int, State]:
    """How many of ``wanting`` deliveries may call now, and the state once they have started: their rate
    tokens taken, and an open circuit's probe marked (HALF_OPEN, the next probe not before an interval)."""
    admitted = min(wanting, capacity(state, limits, in_flight, now))
    if admitted == 0:
        return 0, state
    if state.circuit is not Circuit.CLOSED:
        probe = now + timedelta(seconds=breaker.probe_seconds)
        return 1, replace(state, circuit=Circuit.HALF_OPEN, probe_at=probe)
    if limits.max_per_second is None:
        return admitted, state
    tokens = _bucket(state, limits, now) - admitted
    return admitted, replace(state, tokens=tokens, tokens_at=now)


def _opened(state: State, now: datetime, breaker: Breaker) -> State:
    return replace(
        state,
        circuit=Circuit.OPEN,
        since=now if state.circuit is Circuit.CLOSED else state.since,
        probe_at=now + timedelta(seconds=breaker.probe_seconds),
    )


def _windowed(state: State, now: datetime, breaker: Breaker) -> State:
    """The ratio's window restarted once it is older than ``window_seconds``."""
    start = state.window_start
    if start is None or (now - start).total_seconds() > breaker.window_seconds:
        return replace(state, window_start=now, window_attempts=0, window_failures=0)
    return state


def after(state: State, outcomes: list[Outcome], now: datetime, breaker: Breaker) -> State:
    """The state once these calls have ended, in order."""
    for outcome in outcomes:
        state = _windowed(state, now, breaker)
        attempts = state.window_attempts + 1
        if outcome.ok:
            state = replace(state, consecutive_failures=0, window_attempts=attempts)
            if state.circuit is not Circuit.CLOSED:
                state = replace(state, circuit=Circuit.CLOSED, since=now, probe_at=None)
            continue
        failures = state.window_failures + 1
        state = replace(
            state,
            consecutive_failures=state.consecutive_failures + 1,
            window_attempts=attempts,
            window_failures=failures,
            last_error=(outcome.error or "failed")[:ERROR_CHARS],
            last_error_at=now,
        )
        if outcome.retry_after_seconds is not None:
            wait = min(max(0.0, outcome.retry_after_seconds), breaker.retry_after_max_seconds)
            until = now + timedelta(seconds=wait)
            if state.blocked_until is None or until > state.blocked_until:
                state = replace(state, blocked_until=until)
        if state.circuit is Circuit.HALF_OPEN:
            state = _opened(state, now, breaker)  # the probe failed: open again, the next probe later
        elif state.circuit is Circuit.CLOSED and (
            state.consecutive_failures >= breaker.failures
            or (attempts >= breaker.min_attempts and failures / attempts > breaker.ratio)
        ):
            state = _opened(state, now, breaker)
    return state


def retry_after_seconds(value: str | None, now: datetime) -> float | None:
    """A Retry-After header's wait in seconds, from delta-seconds or an HTTP date; None if absent or bad."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - now).total_seconds())
