"""When a failed scheduled run is tried again (retryPolicy, EventBridge Scheduler's names).

Pure: the caller passes the time, the settings and the jitter draw, so the schedule is testable exactly.
Retries back off exponentially (base, doubling, capped) with a jitter of ±20% so that runs that failed
together do not all come back in the same instant; the jittered delay never goes past the cap.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from core.backoff import capped_doubling
from schemas.scheduled.retries import MAX_EVENT_AGE_SECONDS

# Each delay is its planned value times a factor in [1 - JITTER, 1 + JITTER).
JITTER = 0.2


@dataclass(frozen=True)
class Backoff:
    """SVC_SCHEDULER_RETRY_BASE_SECONDS and SVC_SCHEDULER_RETRY_MAX_SECONDS."""

    base_seconds: float
    max_seconds: float


@dataclass(frozen=True)
class RetryPolicy:
    maximum_retry_attempts: int = 0
    maximum_event_age_seconds: int = MAX_EVENT_AGE_SECONDS


def planned_delay(retry: int, backoff: Backoff) -> float:
    """Seconds before retry ``retry`` (1 is the first retry), without jitter: base, doubling, capped."""
    if retry < 1:
        raise ValueError("retry numbers start at 1")
    return capped_doubling(backoff.base_seconds, backoff.max_seconds, retry)


def delay(retry: int, backoff: Backoff, draw: float) -> float:
    """The jittered delay for a uniform ``draw`` in [0, 1); never past the cap."""
    factor = 1.0 - JITTER + 2 * JITTER * min(max(draw, 0.0), 1.0)
    return min(backoff.max_seconds, planned_delay(retry, backoff) * factor)


def next_attempt_at(
    *,
    failed_attempt: int,
    policy: RetryPolicy,
    scheduled_for: datetime,
    now: datetime,
    backoff: Backoff,
    draw: float,
) -> datetime | None:
    """When attempt ``failed_attempt + 1`` runs, or None: the retries are used up, or the retry would come
    later than maximumEventAgeInSeconds after the scheduled time (the run is then FAILED)."""
    if failed_attempt - 1 >= policy.maximum_retry_attempts:
        return None
    at = now + timedelta(seconds=delay(failed_attempt, backoff, draw))
    if at > scheduled_for + timedelta(seconds=policy.maximum_event_age_seconds):
        return None
    return at


def attempts_cap(policy: RetryPolicy, lost_worker_attempts: int) -> int:
    """Attempts in all a run may have, counting those whose worker died: a lost worker's attempt uses the
    same budget as a retry, and every event keeps at least the attempts it had before retries existed."""
    return max(lost_worker_attempts, 1 + policy.maximum_retry_attempts)
