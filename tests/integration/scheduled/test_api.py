"""Every scheduled-events endpoint over real HTTP: shapes, statuses and the spec's messages."""

from __future__ import annotations

import pytest

from tests.integration.scheduled.conftest import Scene, tool_event

pytestmark = pytest.mark.integration


def test_create_get_list_update_toggle_delete(scene: Scene) -> None:
    created = scene.ok("create", tool_event(scene.tool_id, description="noon in Berlin"))
    event = created["scheduledEvent"]
    assert created["eventId"] == event["eventId"]
    assert created["scheduleArn"] == event["scheduleArn"] and event["eventId"] in created["scheduleArn"]
    assert event["enabled"] is True
    assert (event["sharingLevel"], event["companyPermissionLevel"], event["userPermission"]) == (
        "COMPANY",
        "ADMIN",
        "ADMIN",
    )
    assert event["scheduleSpec"] == {
        "pattern": "CRON",
        "cron": {"expression": "0 12 * * ? *", "timezone": "Europe/Berlin"},
    }
    assert event["cronExpression"] == "cron(0 12 * * ? *)"
    assert event["toolConfig"]["toolExecutionRequest"]["variables"] == {"kind": "daily"}
    assert event["nextFireAt"]
    event_id = event["eventId"]

    got = scene.ok("get", {"scheduledEventId": event_id}, key=scene.member_key)
    assert got["permission"] == "ADMIN" and got["scheduledEvent"]["eventName"] == "nightly report"

    listed = scene.ok("all", {}, key=scene.member_key)
    assert [e["eventId"] for e in listed["ownedEvents"]] == [event_id]
    assert listed["companySharedEvents"] == [] and listed["sharedWithMeEvents"] == []

    updated = scene.ok("update", {"scheduledEventId": event_id, "cronExpression": "rate(5 minutes)"})
    after = updated["scheduledEvent"]
    assert after["scheduleSpec"] == {"pattern": "EVERY", "every": {"value": 5, "unit": "MINUTES"}}
    assert after["eventName"] == "nightly report" and after["description"] == "noon in Berlin"

    toggled = scene.ok("toggle", {"scheduledEventId": event_id, "enabled": False})
    assert toggled == {"eventId": event_id, "enabled": False, "errors": []}
    assert scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]["enabled"] is False

    deleted = scene.ok("delete", {"scheduledEventId": event_id})
    assert deleted["eventId"] == event_id and deleted["deletedAt"]
    assert scene.ok("all", {})["ownedEvents"] == []
    gone = scene.call("get", {"scheduledEventId": event_id})
    assert gone.status_code == 404 and gone.json()["errors"] == ["Scheduled event not found"]

    runs = scene.call("runs", {"scheduledEventId": event_id})
    assert runs.status_code == 404


def test_flat_form_and_disabled_create(scene: Scene) -> None:
    body = tool_event(
        scene.tool_id, enabled=False, cronExpression="cron(0 9 ? * MON-FRI *)", timezone="Asia/Kolkata"
    )
    del body["scheduleSpec"]
    event = scene.ok("create", body)["scheduledEvent"]
    assert event["enabled"] is False
    assert event["scheduleSpec"]["cron"] == {"expression": "0 9 ? * MON-FRI *", "timezone": "Asia/Kolkata"}
    assert "nextFireAt" not in event
    runs = scene.ok("runs", {"scheduledEventId": event["eventId"]})
    assert runs["runs"] == [] and runs["totalElements"] == 0 and runs["totalPages"] == 0


def test_update_timezone_alone_and_action_change(scene: Scene) -> None:
    event_id = scene.ok("create", tool_event(scene.tool_id))["eventId"]
    moved = scene.ok("update", {"scheduledEventId": event_id, "timezone": "America/New_York"})[
        "scheduledEvent"
    ]
    assert moved["scheduleSpec"]["cron"]["timezone"] == "America/New_York"
    agent_config = {
        "agentExecutionRequest": {
            "agentId": scene.agent_id,
            "input": [{"inputType": "TEXT", "content": "hi"}],
        }
    }
    changed = scene.ok(
        "update", {"scheduledEventId": event_id, "actionType": "INVOKE_AGENT", "agentConfig": agent_config}
    )["scheduledEvent"]
    assert changed["actionType"] == "INVOKE_AGENT" and "toolConfig" not in changed
    assert changed["agentConfig"]["agentExecutionRequest"]["agentId"] == scene.agent_id
    mismatch = scene.call(
        "update", {"scheduledEventId": event_id, "toolConfig": {"toolExecutionRequest": {}}}
    )
    assert mismatch.status_code == 400


@pytest.mark.parametrize(
    ("change", "status", "message"),
    [
        ({"eventName": ""}, 400, "Event name is required"),
        ({"eventName": None}, 400, "Event name is required"),
        ({"toolConfig": {"toolExecutionRequest": {}}}, 400, "Tool ID is required for INVOKE_TOOL action"),
        ({"toolConfig": None}, 400, "Tool ID is required for INVOKE_TOOL action"),
        (
            {"scheduleSpec": {"pattern": "ONCE", "once": {"at": "2020-01-01T09:00:00", "timezone": "UTC"}}},
            400,
            "Scheduled time must be in the future: 2020-01-01T09:00:00 in UTC has already passed",
        ),
        (
            {"scheduleSpec": {"pattern": "CRON", "cron": {"expression": "0 12 * * *", "timezone": "UTC"}}},
            400,
            None,
        ),
    ],
)
def test_create_validation(scene: Scene, change: dict[str, object], status: int, message: str | None) -> None:
    body = tool_event(scene.tool_id)
    body.update(change)
    if change.get("toolConfig", 1) is None:
        del body["toolConfig"]
    answer = scene.call("create", body)
    assert answer.status_code == status, answer.text
    if message is not None:
        assert answer.json()["errors"] == [message]


def test_target_permissions(scene: Scene) -> None:
    foreign = scene.call("create", tool_event(scene.foreign_tool_id))
    assert foreign.status_code == 400
    assert foreign.json()["errors"] == ["Target resource does not belong to your company"]
    denied = scene.call("create", tool_event(scene.tool_id), key=scene.member_key)
    assert denied.status_code == 403
    assert denied.json()["errors"] == [
        f"API key does not have permission to access the target tool (ID: {scene.tool_id})"
    ]
    table = tool_event(scene.tool_id, actionType="UPDATE_SVCDB")
    del table["toolConfig"]
    table["svcDbConfig"] = {
        "operation": "INSERT",
        "targetTableId": "missing",
        "values": {"note": {"columnType": "SHORT_TEXT", "textValue": "x"}},
    }
    assert scene.call("create", table).json()["errors"] == ["Target resource does not belong to your company"]
    del table["svcDbConfig"]["targetTableId"]
    assert scene.call("create", table).json()["errors"] == ["Table ID is required for UPDATE_SVCDB action"]


def test_other_company_and_auth(scene: Scene) -> None:
    event_id = scene.ok("create", tool_event(scene.tool_id))["eventId"]
    for operation, body in [
        ("get", {"scheduledEventId": event_id}),
        ("toggle", {"scheduledEventId": event_id, "enabled": False}),
        ("delete", {"scheduledEventId": event_id}),
        ("update", {"scheduledEventId": event_id, "eventName": "x"}),
        ("runs", {"scheduledEventId": event_id}),
    ]:
        answer = scene.call(operation, body, key=scene.other_key)
        assert answer.status_code == 404, operation
        assert answer.json()["errors"] == ["Scheduled event not found"]
    assert scene.ok("all", {}, key=scene.other_key)["ownedEvents"] == []
    assert scene.client.post("/clients/scheduled-events/all", json={}).status_code == 401
    assert scene.call("toggle", {"scheduledEventId": event_id, "enabled": "no"}).status_code == 400
