"""The rules of an alert's life (core/alerts.py), its notification's body and signature, and the rule
models' refusals."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError
from standardwebhooks import Webhook

from core.alerts import (
    NOTIFY_ATTEMPTS,
    SETTLE,
    AlertFacts,
    circuit_episode_is_new,
    known_until,
    notification_body,
    notify_pause,
    opens,
    resolve_due,
    window_start,
)
from core.signatures.standard_signing import secret_of, signed_headers
from schemas.alerts import (
    AlertState,
    ConditionType,
    CreateRuleRequest,
    ResolvedBy,
    Subject,
    SubjectKind,
    UpdateRuleRequest,
)

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_a_window_starts_within_minutes_back_but_never_before_what_the_last_alert_counted() -> None:
    assert window_start(NOW, 10, None) == NOW - timedelta(minutes=10)
    assert window_start(NOW, 10, NOW - timedelta(minutes=3)) == NOW - timedelta(minutes=3)
    assert window_start(NOW, 10, NOW - timedelta(hours=3)) == NOW - timedelta(minutes=10)
    assert known_until(NOW) == NOW - SETTLE


def test_only_webhook_failures_need_more_than_one_failure() -> None:
    assert not opens(ConditionType.WEBHOOK_FAILURES, 4, 5)
    assert opens(ConditionType.WEBHOOK_FAILURES, 5, 5)
    assert opens(ConditionType.SCHEDULED_RUN, 1, 5)
    assert opens(ConditionType.TABLE_FAILURE, 1, 1)


def test_an_alert_resolves_once_clear_for_the_rules_time() -> None:
    assert not resolve_due(None, 60, NOW)
    assert not resolve_due(NOW - timedelta(seconds=59), 60, NOW)
    assert resolve_due(NOW - timedelta(seconds=60), 60, NOW)


def test_a_circuit_opening_an_alert_counted_already_opens_nothing() -> None:
    assert circuit_episode_is_new(NOW, None)
    assert circuit_episode_is_new(NOW, NOW - timedelta(seconds=1))
    assert not circuit_episode_is_new(NOW, NOW)


def test_notification_retries_back_off_to_a_cap() -> None:
    pauses = [notify_pause(n) for n in range(1, NOTIFY_ATTEMPTS + 3)]
    assert pauses == sorted(pauses)
    assert pauses[0] == 5.0
    assert pauses[-1] == 300.0


def _facts(state: AlertState) -> AlertFacts:
    return AlertFacts(
        alert_id="a1",
        rule_id="r1",
        rule_name="orders failing",
        condition=ConditionType.WEBHOOK_FAILURES,
        subject=Subject(kind=SubjectKind.WEBHOOK, id="w1"),
        state=state,
        count=500,
        first_item_at=NOW - timedelta(minutes=1),
        last_item_at=NOW,
        opened_at=NOW,
        acknowledged_at=None,
        resolved_at=NOW if state is AlertState.RESOLVED else None,
        resolved_by=ResolvedBy.CLEAR if state is AlertState.RESOLVED else None,
    )


def test_the_body_says_what_changed_without_links_and_verifies_with_standardwebhooks() -> None:
    body = notification_body(_facts(AlertState.RESOLVED), NOW)
    payload = json.loads(body)
    assert payload["type"] == "alert.resolved"
    assert payload["timestamp"] == "2026-03-01T12:00:00.000"
    data = payload["data"]
    assert data["alertId"] == "a1" and data["ruleId"] == "r1" and data["count"] == 500
    assert data["subject"] == {"kind": "WEBHOOK", "id": "w1"}
    assert data["resolvedBy"] == "CLEAR"
    assert data["summary"] == "Alert 'orders failing' resolved: 500 final delivery failures of webhook w1"
    assert "http" not in data["summary"]

    secret = secret_of(bytes(range(32)))
    stamp = int(datetime.now(UTC).timestamp())
    headers = signed_headers(secret, "msg_1", stamp, body.encode())
    assert set(headers) == {"webhook-id", "webhook-timestamp", "webhook-signature"}
    assert Webhook(secret).verify(body, headers) == payload
    tampered = body.replace("500", "501")
    with pytest.raises(Exception, match="signature"):
        Webhook(secret).verify(tampered, headers)


@pytest.mark.parametrize(
    "body",
    [
        {"name": "x", "condition": {"type": "WEBHOOK_FAILURES", "count": 0, "withinMinutes": 5}},
        {"name": "x", "condition": {"type": "WEBHOOK_FAILURES", "count": 5}},
        {"name": "x", "condition": {"type": "NOPE"}},
        {"name": "", "condition": {"type": "SCHEDULED_RUN"}},
        {"name": "x", "condition": {"type": "CIRCUIT_OPEN", "forSeconds": -1}},
        {"name": "x", "condition": {"type": "TABLE_FAILURE"}, "resolveAfterSeconds": 0},
        {"name": "x", "condition": {"type": "TABLE_FAILURE"}, "colour": "red"},
    ],
)
def test_bad_rules_are_refused(body: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        CreateRuleRequest.model_validate(body)


def test_an_update_changes_something_and_never_nulls_a_required_field() -> None:
    with pytest.raises(ValidationError, match="at least one"):
        UpdateRuleRequest.model_validate({"ruleId": "r"})
    with pytest.raises(ValidationError, match="cannot be null"):
        UpdateRuleRequest.model_validate({"ruleId": "r", "name": None})
    assert UpdateRuleRequest.model_validate({"ruleId": "r", "notify": None}).model_fields_set == {
        "rule_id",
        "notify",
    }
