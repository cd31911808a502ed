"""retryPolicy's backoff schedule (core/schedules/retries.py) and the validation of retryPolicy and
deadLetterConfig on /create and /update (schemas/scheduled/retries.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from core.schedules.retries import (
    Backoff,
    RetryPolicy,
    attempts_cap,
    delay,
    next_attempt_at,
    planned_delay,
)
from ingress.errors import messages_of
from schemas.scheduled.events import CreateEventRequest, UpdateEventRequest

BACKOFF = Backoff(base_seconds=1.0, max_seconds=300.0)
NOW = datetime(2027, 1, 4, 8, 0, tzinfo=UTC)


def test_planned_delays_double_from_the_base_up_to_the_cap() -> None:
    assert [planned_delay(n, BACKOFF) for n in range(1, 11)] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300]
    assert planned_delay(185, BACKOFF) == 300


def test_jitter_stays_within_a_fifth_and_never_passes_the_cap() -> None:
    assert delay(1, BACKOFF, 0.0) == pytest.approx(0.8)
    assert delay(1, BACKOFF, 0.5) == pytest.approx(1.0)
    assert delay(1, BACKOFF, 0.999999) == pytest.approx(1.2, abs=1e-5)
    assert delay(9, BACKOFF, 0.999) == 300.0  # 256 x 1.2 is past the cap
    assert delay(20, BACKOFF, 0.0) == pytest.approx(240.0)


def test_no_retry_by_default() -> None:
    at = next_attempt_at(
        failed_attempt=1, policy=RetryPolicy(), scheduled_for=NOW, now=NOW, backoff=BACKOFF, draw=0.5
    )
    assert at is None


def test_retries_until_the_attempts_are_used_up() -> None:
    policy = RetryPolicy(maximum_retry_attempts=2)
    plan = [
        next_attempt_at(
            failed_attempt=n, policy=policy, scheduled_for=NOW, now=NOW, backoff=BACKOFF, draw=0.5
        )
        for n in (1, 2, 3)
    ]
    assert plan == [NOW + timedelta(seconds=1), NOW + timedelta(seconds=2), None]


def test_no_retry_past_the_maximum_event_age() -> None:
    policy = RetryPolicy(maximum_retry_attempts=185, maximum_event_age_seconds=60)
    late = NOW + timedelta(seconds=50)
    kwargs = {"policy": policy, "scheduled_for": NOW, "backoff": BACKOFF, "draw": 0.5}
    assert next_attempt_at(failed_attempt=3, now=late, **kwargs) == late + timedelta(seconds=4)  # type: ignore[arg-type]
    assert next_attempt_at(failed_attempt=5, now=late, **kwargs) is None  # type: ignore[arg-type]


def test_lost_workers_share_the_attempt_budget() -> None:
    assert attempts_cap(RetryPolicy(), 3) == 3
    assert attempts_cap(RetryPolicy(maximum_retry_attempts=5), 3) == 6


def create(**fields: object) -> dict[str, object]:
    return {
        "eventName": "e",
        "cronExpression": "cron(0 2 * * ? *)",
        "timezone": "UTC",
        "actionType": "INVOKE_TOOL",
        **fields,
    }


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"retryPolicy": {"maximumRetryAttempts": 186}},
            "retryPolicy.maximumRetryAttempts: must be between 0 and 185",
        ),
        (
            {"retryPolicy": {"maximumRetryAttempts": -1}},
            "retryPolicy.maximumRetryAttempts: must be between 0 and 185",
        ),
        (
            {"retryPolicy": {"maximumEventAgeInSeconds": 59}},
            "retryPolicy.maximumEventAgeInSeconds: must be between 60 and 86400",
        ),
        (
            {"retryPolicy": {"maximumEventAgeInSeconds": 86401}},
            "retryPolicy.maximumEventAgeInSeconds: must be between 60 and 86400",
        ),
        (
            {"retryPolicy": {"maximumRetryAttempts": "3"}},
            "retryPolicy.maximumRetryAttempts: Input should be a valid integer",
        ),
        (
            {"deadLetterConfig": {"enabled": "yes"}},
            "deadLetterConfig.enabled: Input should be a valid boolean",
        ),
        ({"deadLetterConfig": {}}, "deadLetterConfig.enabled: Field required"),
        (
            {"deadLetterConfig": {"enabled": True, "arn": "arn:aws:sqs:x"}},
            "deadLetterConfig.arn: Extra inputs are not permitted",
        ),
    ],
)
def test_bad_values_are_refused_naming_the_field(fields: dict[str, object], message: str) -> None:
    for model, body in (
        (CreateEventRequest, create(**fields)),
        (UpdateEventRequest, {"scheduledEventId": "x", **fields}),
    ):
        with pytest.raises(ValidationError) as caught:
            model.model_validate(body)
        assert messages_of(caught.value) == [message]


def test_good_values_and_defaults() -> None:
    body = CreateEventRequest.model_validate(
        create(retryPolicy={"maximumRetryAttempts": 185}, deadLetterConfig={"enabled": True})
    )
    assert body.retry_policy is not None and body.dead_letter_config is not None
    assert body.retry_policy.maximum_retry_attempts == 185
    assert body.retry_policy.maximum_event_age_in_seconds == 86400
    assert body.dead_letter_config.enabled is True
    assert CreateEventRequest.model_validate(create()).retry_policy is None
