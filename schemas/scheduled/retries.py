"""Wire models of retryPolicy and deadLetterConfig on a scheduled event (EventBridge Scheduler's names), and
the attempts of a run as /runs shows them.

Beside ``schemas/scheduled/events.py`` rather than in it (that module is at the size the project keeps its
modules to); it imports nothing from it, so that module can build its request models on
:class:`RetryFields`. Range errors name the field, through the location the error handler puts first:
``retryPolicy.maximumRetryAttempts: must be between 0 and 185``.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from schemas.base import RequestModel, WireModel

__all__ = [
    "MAX_EVENT_AGE_SECONDS",
    "MAX_RETRY_ATTEMPTS",
    "MIN_EVENT_AGE_SECONDS",
    "DeadLetterConfig",
    "RetryFields",
    "RetryPolicy",
    "RunAttempt",
]

MAX_RETRY_ATTEMPTS = 185
MIN_EVENT_AGE_SECONDS = 60
MAX_EVENT_AGE_SECONDS = 86400


class RetryPolicy(RequestModel):
    """Sent whole: a retryPolicy on /update replaces the stored one, a field left out takes its default."""

    maximum_retry_attempts: int = Field(0, strict=True)
    maximum_event_age_in_seconds: int = Field(MAX_EVENT_AGE_SECONDS, strict=True)

    @field_validator("maximum_retry_attempts")
    @classmethod
    def _attempts(cls, value: int) -> int:
        if not 0 <= value <= MAX_RETRY_ATTEMPTS:
            raise ValueError(f"must be between 0 and {MAX_RETRY_ATTEMPTS}")
        return value

    @field_validator("maximum_event_age_in_seconds")
    @classmethod
    def _age(cls, value: int) -> int:
        if not MIN_EVENT_AGE_SECONDS <= value <= MAX_EVENT_AGE_SECONDS:
            raise ValueError(f"must be between {MIN_EVENT_AGE_SECONDS} and {MAX_EVENT_AGE_SECONDS}")
        return value


class DeadLetterConfig(RequestModel):
    """EventBridge takes an SQS queue's arn; svc publishes to its own topic, so this is only a switch."""

    enabled: bool = Field(strict=True)


class RetryFields(RequestModel):
    """On /create and /update; left out (or null) on /update: the stored value stays."""

    retry_policy: RetryPolicy | None = None
    dead_letter_config: DeadLetterConfig | None = None


class RunAttempt(WireModel):
    """One attempt of a run in /runs. Every attempt has the run's runId and idempotency key."""

    attempt_number: int
    status: str
    started_at: str | None = None
    ended_at: str | None = None
    error_message: str | None = None
    # For an attempt that failed and was retried: when the next attempt was due.
    retry_at: str | None = None
