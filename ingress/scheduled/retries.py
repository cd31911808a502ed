"""retryPolicy and deadLetterConfig on a stored event, and a run's attempts, for the scheduled-events routes
(ingress/scheduled/events.py): set them from a request, show them on the record and in /runs."""

from __future__ import annotations

from typing import Any

from schemas.base import iso_utc
from schemas.scheduled.events import RunStatus
from schemas.scheduled.retries import DeadLetterConfig, RetryFields, RetryPolicy, RunAttempt
from sinks.db.models import ScheduledEvent as EventRow
from sinks.db.models import ScheduledEventRun as RunRow
from sinks.db.scheduled.retries import earlier_attempts

__all__ = ["retries_wire", "run_attempts", "set_retries"]


def set_retries(row: EventRow, body: RetryFields) -> None:
    """A retryPolicy sent replaces the stored one whole (its fields left out take their defaults, as in
    EventBridge Scheduler); left out, the stored one stays (on /create: no retry, no dead letter). A new
    policy applies to the attempts that follow, including the next one of a run waiting for its retry."""
    if body.retry_policy is not None:
        row.max_retry_attempts = body.retry_policy.maximum_retry_attempts
        row.max_event_age_seconds = body.retry_policy.maximum_event_age_in_seconds
    elif row.max_retry_attempts is None:
        row.max_retry_attempts, row.max_event_age_seconds = 0, RetryPolicy().maximum_event_age_in_seconds
    if body.dead_letter_config is not None:
        row.dead_letter_enabled = body.dead_letter_config.enabled
    elif row.dead_letter_enabled is None:
        row.dead_letter_enabled = False


def retries_wire(row: EventRow) -> dict[str, Any]:
    return {
        "retry_policy": RetryPolicy(
            maximum_retry_attempts=row.max_retry_attempts or 0,
            maximum_event_age_in_seconds=row.max_event_age_seconds
            or RetryPolicy().maximum_event_age_in_seconds,
        ),
        "dead_letter_config": DeadLetterConfig(enabled=bool(row.dead_letter_enabled)),
    }


def run_attempts(run: RunRow) -> list[RunAttempt]:
    """The run's earlier attempts and its current one, oldest first."""
    earlier = [RunAttempt.model_validate(entry) for entry in earlier_attempts(run)]
    current = RunAttempt(
        attempt_number=run.attempt,
        status=RunStatus(run.status).value,
        started_at=iso_utc(run.started_at),
        ended_at=iso_utc(run.ended_at),
        error_message=run.error_message,
        retry_at=iso_utc(run.retry_at),
    )
    return [*earlier, current]
