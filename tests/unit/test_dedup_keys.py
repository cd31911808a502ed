"""Trigger deduplication's rules (core/webhooks/dedup.py): which key names a delivery, which Idempotency-Key
is acceptable, and the window a webhook's configuration gives."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from core.webhooks import dedup
from schemas.examples.webhooks import DEDUPLICATION
from schemas.webhooks import DeduplicationConfig, WebhookConfig

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("key", ["a", "x" * 255, "order 17 / retry", "~!#$%&'()*+,-./:;<=>?@[]^_`{|}", " "])
def test_printable_ascii_keys_of_1_to_255_characters_are_accepted(key: str) -> None:
    assert dedup.checked_key([key]) == key


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ([""], "1-255 printable ASCII characters (got 0 characters)"),
        (["x" * 256], "(got 256 characters)"),
        (["caf\u00e9"], "some outside printable ASCII"),
        (["tab\there"], "some outside printable ASCII"),
        (["a\x00b"], "some outside printable ASCII"),
        (["a", "b"], "sent more than once"),
        (["a", "a"], "sent more than once"),
    ],
)
def test_unusable_keys_are_refused_with_a_message_that_never_repeats_the_key(
    values: list[str], problem: str
) -> None:
    with pytest.raises(dedup.InvalidIdempotencyKey) as refused:
        dedup.checked_key(values)
    assert problem in str(refused.value)
    assert "caf" not in str(refused.value)


def test_the_idempotency_key_wins_over_the_provider_delivery_id() -> None:
    def provider() -> str:
        raise AssertionError("the provider id is not looked for when the caller named the delivery")

    assert dedup.delivery_key(["mine"], provider) == "mine"
    assert dedup.delivery_key([], lambda: "evt_1") == "evt_1"
    assert dedup.delivery_key([], lambda: None) is None
    assert dedup.delivery_key([], None) is None


def test_the_window_defaults_to_24_hours_and_off_means_none() -> None:
    assert dedup.window_seconds({"name": "x"}) == 86_400
    assert dedup.window_seconds({"deduplication": {"enabled": True, "windowSeconds": 60}}) == 60
    assert dedup.window_seconds({"deduplication": {"windowSeconds": 600}}) == 600
    assert dedup.window_seconds({"deduplication": {"enabled": False, "windowSeconds": 600}}) is None


def test_expiry_is_the_window_after_the_first_sight() -> None:
    seen = datetime(2026, 3, 1, 12, tzinfo=UTC)
    assert dedup.expires_at(seen, 3600) == seen + timedelta(hours=1)
    with pytest.raises(ValueError, match="naive"):
        dedup.expires_at(datetime(2026, 3, 1, 12), 3600)  # noqa: DTZ001 - the refusal under test


@pytest.mark.parametrize("window", [59, 604_801, 0, -1])
def test_the_configured_window_is_60_seconds_to_7_days(window: int) -> None:
    with pytest.raises(ValidationError):
        WebhookConfig.model_validate({"name": "x", "deduplication": {"windowSeconds": window}})


def test_the_stored_configuration_fills_in_the_defaults() -> None:
    config = WebhookConfig.model_validate({"name": "x", "deduplication": {}})
    dumped = config.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert dumped["deduplication"] == {"enabled": True, "windowSeconds": 86_400}
    assert "deduplication" not in WebhookConfig.model_validate({"name": "x"}).model_dump(exclude_none=True)
    with pytest.raises(ValidationError):
        WebhookConfig.model_validate({"name": "x", "deduplication": {"window": 60}})


def test_the_openapi_example_is_a_valid_deduplication_config() -> None:
    for example in DEDUPLICATION["examples"]:  # type: ignore[union-attr]
        DeduplicationConfig.model_validate(example)
