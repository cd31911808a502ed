"""The console's forms for editing a schedule, an alert rule and a transform's sample, and the table listing's
view of a column: the bodies they send and the fields they show, without I/O."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ingress.analytics.table_listing import listed_column
from ingress.webhooks.transform_trial import screens_of
from schemas.console import AlertRuleForm, ScheduleEditForm, TransformSampleForm, WebhookEditForm
from sinks.db.analytics.tables import ADMIN_ACCESS, TableAccess
from sinks.db.webhooks.deliveries import TriggerTarget

pytestmark = pytest.mark.unit

EVENT = {
    "eventId": "e1",
    "eventName": "Daily digest",
    "scheduleSpec": {"pattern": "CRON", "cron": {"expression": "0 7 * * ? *", "timezone": "Europe/Paris"}},
    "timezone": "Europe/Paris",
    "actionType": "INVOKE_TOOL",
    "toolConfig": {"toolExecutionRequest": {"toolId": "t1"}, "continueOnError": False},
}


def test_a_schedule_edit_shows_the_event_and_sends_it_back_whole() -> None:
    shown = ScheduleEditForm.shown(EVENT)
    assert shown["expression"] == "0 7 * * ? *" and shown["timezone"] == "Europe/Paris"
    assert shown["action_type"] == "INVOKE_TOOL" and '"toolId": "t1"' in shown["action_config"]
    body = ScheduleEditForm.model_validate({**shown, "expression": "0 9 1 * ? *"}).update_body("e1")
    assert body == {
        "scheduledEventId": "e1",
        "eventName": "Daily digest",
        "scheduleSpec": {
            "pattern": "CRON",
            "cron": {"expression": "0 9 1 * ? *", "timezone": "Europe/Paris"},
        },
        "actionType": "INVOKE_TOOL",
        "toolConfig": {"toolExecutionRequest": {"toolId": "t1"}, "continueOnError": False},
    }


def test_a_schedule_edit_changes_pattern_and_action_and_refuses_a_config_that_is_not_an_object() -> None:
    every = {"pattern": "EVERY", "every": {"value": 15, "unit": "MINUTES"}}
    shown = ScheduleEditForm.shown({**EVENT, "scheduleSpec": every, "timezone": None})
    assert shown["every_value"] == "15" and shown["timezone"] == "UTC"
    form = ScheduleEditForm.model_validate(
        {
            **shown,
            "action_type": "INVOKE_AGENT",
            "action_config": '{"agentExecutionRequest": {"agentId": "a"}}',
        }
    )
    body = form.update_body("e1")
    assert body["scheduleSpec"] == every and body["agentConfig"] == {
        "agentExecutionRequest": {"agentId": "a"}
    }
    assert "toolConfig" not in body
    for bad, message in (("{nope", "not JSON"), ("[1]", "JSON object")):
        with pytest.raises(ValueError, match=message):
            ScheduleEditForm.model_validate({**shown, "action_config": bad}).update_body("e1")


RULE = {
    "ruleId": "r1",
    "name": "down",
    "condition": {"type": "CIRCUIT_OPEN", "resourceId": "t1", "forSeconds": 60},
    "resolveAfterSeconds": 600,
    "notify": None,
    "enabled": True,
}


def test_an_alert_rule_form_round_trips_a_rule() -> None:
    shown = AlertRuleForm.shown(RULE)
    assert shown["condition_type"] == "CIRCUIT_OPEN" and shown["subject_id"] == "t1"
    assert shown["for_seconds"] == 60 and shown["notify"] == "" and shown["enabled"]
    fields = {key: "" if value is None else str(value) for key, value in shown.items()}
    fields["enabled"] = "on"
    del fields["rotate_secret"]
    body = AlertRuleForm.model_validate(fields).update_body("r1")
    assert body == {
        "ruleId": "r1",
        "name": "down",
        "condition": {"type": "CIRCUIT_OPEN", "resourceId": "t1", "forSeconds": 60},
        "resolveAfterSeconds": 600,
        "notify": None,
        "enabled": True,
        "rotateSecret": False,
    }


def test_an_alert_rule_form_sends_only_its_conditions_fields() -> None:
    form = AlertRuleForm.model_validate(
        {"name": "any failing", "condition_type": "WEBHOOK_FAILURES", "count": "3", "within_minutes": "5"}
    )
    assert form.condition() == {"type": "WEBHOOK_FAILURES", "count": 3, "withinMinutes": 5}
    assert not form.create_body()["enabled"]  # an unticked checkbox is absent from the form
    runs = AlertRuleForm.model_validate(
        {"name": "r", "condition_type": "SCHEDULED_RUN", "subject_id": "e1", "count": "3"}
    )
    assert runs.condition() == {"type": "SCHEDULED_RUN", "eventId": "e1"}
    new = AlertRuleForm.shown(None)
    assert new["enabled"] and new["count"] == 5 and new["within_minutes"] == 10
    with pytest.raises(ValidationError):
        AlertRuleForm.model_validate({"name": "x", "condition_type": "NOPE"})


def test_a_transform_sample_names_its_content_type() -> None:
    sample = TransformSampleForm.model_validate(
        {"sample_body": '{"a": 1}', "sample_content_type": "text/plain"}
    )
    assert sample.request_body("w1", {"name": "x"}) == {
        "webhookId": "w1",
        "webhookConfig": {"name": "x"},
        "body": '{"a": 1}',
        "headers": {"content-type": "text/plain"},
    }
    assert (
        TransformSampleForm.model_validate({"sample_content_type": ""}).request_body("w1", {})["headers"]
        == {}
    )


def _target(config: dict[str, object]) -> TriggerTarget:
    return TriggerTarget("w1", "c1", "x", True, config, None, None, False)


def test_a_transform_test_screens_by_the_filter_alone() -> None:
    assert screens_of(_target({"name": "x"})).filter is None
    screens = screens_of(_target({"name": "x", "filterConfig": {"body": {"type": "paid"}}}))
    assert screens.filter is not None and screens.verification is None


def test_a_listed_column_is_marked_masked_and_revealable_by_the_grant() -> None:
    email = {"name": "email", "type": "STRING", "nullable": True, "masked": True, "maskStrategy": "LAST4"}
    assert listed_column(email, ADMIN_ACCESS).model_dump(by_alias=True) == {
        "name": "email",
        "type": "STRING",
        "nullable": True,
        "description": None,
        "masked": True,
        "maskStrategy": "LAST4",
        "revealable": True,
    }
    reader = TableAccess(level="READ")
    assert not listed_column(email, reader).revealable
    plain = listed_column({"name": "id", "type": "LONG", "nullable": False, "masked": False}, ADMIN_ACCESS)
    assert plain.mask_strategy is None and not plain.revealable


def test_a_webhook_edit_carries_its_scripts_and_drops_neither_unasked() -> None:
    current = {
        "name": "orders",
        "payloadTransformConfig": {"transformType": "SVC_SCRIPT", "transformScript": "return {a: 1};"},
        "validationConfig": {"enableValidation": True, "validationScript": "return true;"},
    }
    shown = WebhookEditForm.shown(current)
    assert shown["transform_type"] == "SVC_SCRIPT" and shown["transform_script"] == "return {a: 1};"
    assert shown["enable_validation"] == "true" and shown["validation_script"] == "return true;"
    typed = {**shown, "transform_script": "const a = 1;\r\nreturn {a};", "enable_validation": "false"}
    edited = WebhookEditForm.model_validate(typed).edited(current)
    assert edited["payloadTransformConfig"] == {
        "transformType": "SVC_SCRIPT",
        "transformScript": "const a = 1;\nreturn {a};",
    }
    assert edited["validationConfig"] == {"enableValidation": False, "validationScript": "return true;"}
    with pytest.raises(ValueError, match="mappings go only with a JSONPATH"):
        WebhookEditForm.model_validate({**shown, "mappings": "a = $.a"}).edited(current)
    with pytest.raises(ValueError, match="script goes only with SVC_SCRIPT"):
        WebhookEditForm.model_validate({**shown, "transform_type": "JSONPATH"}).edited(current)
    plain = WebhookEditForm.shown({"name": "plain"})
    assert plain["transform_type"] == "JSONPATH" and plain["enable_validation"] == "false"
    edited = WebhookEditForm.model_validate(plain).edited({"name": "plain"})
    assert edited["validationConfig"] == {"enableValidation": False, "validationScript": None}
