"""Alerts with a lifecycle (issue 44): rules of a company admin, each condition opening one alert that is
acknowledged and resolves by itself, notifications verified with ``standardwebhooks``, one notification for
500 failures, replay of an alert's deliveries, and another company that never sees or changes any of it.

Failures are seeded in the database as the workers write them; the leader's round runs at a moment the test
chooses (tests/fixtures/alerts.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update
from standardwebhooks import Webhook

from schemas.admin import ResourceSpec
from schemas.ids import new_id
from schemas.settings import Settings
from schemas.webhooks import ExecutionStatus
from sinks.db import resources
from sinks.db.models import (
    AlertNotification,
    AlertRule,
    AnalyticsTable,
    DestinationState,
    ScheduledEvent,
    ScheduledEventRun,
    TableMaintenance,
    TableWrite,
    WebhookExecution,
)
from sinks.db.webhooks import executions
from tests.fixtures.alerts import NotificationReceiver, evaluate
from tests.fixtures.handler import serving
from tests.integration.webhooks.conftest import World

pytestmark = pytest.mark.integration

RULES = "/svc_poweruser/alerts/rules"
ALERTS = "/svc_poweruser/alerts"


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[NotificationReceiver]:
    receiving = NotificationReceiver(log_path=tmp_path / "notifications.log")
    with serving(receiving):
        yield receiving


def call(world: World, key: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    answer = world.api.client.post(path, headers={"Authorization": key}, json=body)
    return answer.status_code, answer.json()


def ok(world: World, path: str, body: dict[str, Any], key: str | None = None) -> dict[str, Any]:
    status, answer = call(world, key or world.admin.key, path, body)
    assert status == 200, answer
    return answer


def notify_to(world: World, receiver: NotificationReceiver) -> str:
    with world.db.sessions.begin() as session:
        return resources.create_resource(
            session, world.company_id, ResourceSpec(type="TOOL", name="pager", endpoint=receiver.url)
        ).resource_id


def created_at(world: World, rule_id: str) -> datetime:
    with world.db.sessions() as session:
        moment = session.scalar(select(AlertRule.checked_until).where(AlertRule.id == rule_id))
    assert moment is not None
    return moment


def seed_failures(
    world: World, webhook_id: str, ended: list[datetime], *, company_id: str | None = None
) -> None:
    """Deliveries whose last attempt FAILED at each time of ``ended`` (two attempts each: the first FAILED
    and retried, so only the second counts)."""
    company = company_id or world.company_id
    with world.db.sessions.begin() as session:
        for number, moment in enumerate(ended):
            execution_id = new_id()
            payload = executions.store_payload(session, company, webhook_id, json.dumps({"n": number}), "{}")
            for attempt in (1, 2):
                entry = executions.add_entry(
                    session,
                    WebhookExecution(
                        execution_id=execution_id,
                        webhook_id=webhook_id,
                        company_id=company,
                        payload_id=payload,
                        attempt_number=attempt,
                        status=ExecutionStatus.QUEUED.value,
                        queued_at=moment - timedelta(seconds=3 - attempt),
                        webhook_name="orders",
                        http_method="POST",
                        transform_type="JSONPATH",
                    ),
                )
                executions.set_status(session, entry, ExecutionStatus.FAILED)
                entry.ended_at = moment - timedelta(seconds=2 - attempt)
                entry.error_message = "Handler answered HTTP 503"


def verified(receiver: NotificationReceiver, secret: str) -> list[dict[str, Any]]:
    """Every notification received, each checked as a receiver checks it."""
    return [Webhook(secret).verify(item.body, item.headers) for item in receiver.received]


def alerts_of(world: World, key: str | None = None, **query: Any) -> list[dict[str, Any]]:
    return list(ok(world, f"{ALERTS}/get-all", query, key)["alerts"])


def test_rules_are_a_company_admins_own_and_bad_input_changes_nothing(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    body = {
        "name": "orders failing",
        "condition": {"type": "WEBHOOK_FAILURES", "webhookId": webhook_id, "count": 3, "withinMinutes": 5},
        "resolveAfterSeconds": 60,
        "notify": world.tool_id,
    }
    created = ok(world, f"{RULES}/create", body)
    rule = created["rule"]
    assert created["secret"].startswith("whsec_")
    assert (
        rule["condition"] == body["condition"] and rule["enabled"] is True and rule["notify"] == world.tool_id
    )
    listed = ok(world, f"{RULES}/get-all", {})["rules"]
    assert listed == [rule]
    assert "secret" not in json.dumps(listed)

    bad_bodies: list[dict[str, Any]] = [
        {**body, "condition": {"type": "WEBHOOK_FAILURES", "count": 0, "withinMinutes": 5}},
        {**body, "condition": {"type": "SCHEDULED_RUN", "eventId": "nope"}},
        {**body, "notify": world.foreign_tool_id},
        {**body, "resolveAfterSeconds": 10**9},
        {"name": "x"},
    ]
    for bad in bad_bodies:
        status, answer = call(world, world.admin.key, f"{RULES}/create", bad)
        assert status == 400, bad
        assert answer["errors"] and all(isinstance(e, str) for e in answer["errors"]), answer
    status, answer = call(world, world.admin.key, f"{RULES}/update", {"ruleId": rule["ruleId"], "name": None})
    assert status == 400 and answer["errors"]
    status, answer = call(
        world, world.admin.key, f"{RULES}/update", {"ruleId": rule["ruleId"], "notify": world.foreign_tool_id}
    )
    assert status == 400 and answer["errors"]
    assert ok(world, f"{RULES}/get-all", {})["rules"] == [rule]

    # Another company, and a member who is no admin, neither see nor change it.
    outsider = world.outsider.key
    assert ok(world, f"{RULES}/get-all", {}, outsider)["rules"] == []
    for operation, extra in (("update", {"enabled": False}), ("delete", {})):
        status, answer = call(world, outsider, f"{RULES}/{operation}", {"ruleId": rule["ruleId"], **extra})
        assert (status, answer["errors"]) == (404, ["Alert rule not found"])
    status, answer = call(world, world.alice.key, f"{RULES}/get-all", {})
    assert status == 403 and answer["errors"]

    updated = ok(world, f"{RULES}/update", {"ruleId": rule["ruleId"], "enabled": False, "rotateSecret": True})
    assert updated["rule"]["enabled"] is False
    assert updated["secret"].startswith("whsec_") and updated["secret"] != created["secret"]
    assert ok(world, f"{RULES}/delete", {"ruleId": rule["ruleId"]})["deleted"] is True
    assert ok(world, f"{RULES}/get-all", {})["rules"] == []


def test_500_failures_in_a_minute_open_one_alert_and_one_notification_per_state(
    world: World, kafka_settings: Settings, receiver: NotificationReceiver
) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    created = ok(
        world,
        f"{RULES}/create",
        {
            "name": "orders failing",
            "condition": {"type": "WEBHOOK_FAILURES", "count": 5, "withinMinutes": 10},
            "resolveAfterSeconds": 120,
            "notify": notify_to(world, receiver),
        },
    )
    rule_id, secret = created["rule"]["ruleId"], created["secret"]
    start = created_at(world, rule_id)
    seed_failures(world, webhook_id, [start + timedelta(seconds=1, milliseconds=100 * n) for n in range(500)])
    # Another company's failures never reach this company's rule.
    theirs = world.api.ok(world.outsider, "create", {"webhookConfig": {"name": "theirs"}})["webhook"]
    seed_failures(world, theirs["id"], [start + timedelta(seconds=2)], company_id=theirs["companyId"])

    first = evaluate(kafka_settings, start + timedelta(seconds=60))
    assert (first.opened, first.sent) == (1, 1)
    for later in (61, 62, 70):  # evaluating again opens nothing and sends nothing
        again = evaluate(kafka_settings, start + timedelta(seconds=later))
        assert (again.opened, again.sent) == (0, 0)
    alerts = alerts_of(world)
    assert len(alerts) == 1
    alert = alerts[0]
    assert alert["state"] == "OPEN" and alert["count"] == 500
    assert alert["subject"] == {"kind": "WEBHOOK", "id": webhook_id}
    detail = ok(world, f"{ALERTS}/get", {"alertId": alert["alertId"]})["alert"]
    assert len(detail["items"]) == 500 and {item["kind"] for item in detail["items"]} == {"EXECUTION"}
    assert detail["items"][0]["detail"] == "Handler answered HTTP 503"

    acknowledged = ok(world, f"{ALERTS}/acknowledge", {"alertId": alert["alertId"]})["alert"]
    assert acknowledged["state"] == "ACKNOWLEDGED" and acknowledged["acknowledgedAt"]
    assert (
        ok(world, f"{ALERTS}/acknowledge", {"alertId": alert["alertId"]})["alert"]["state"] == "ACKNOWLEDGED"
    )
    evaluate(kafka_settings, start + timedelta(seconds=71))

    # Two more failures count into the same alert; then clear for 120 s, it resolves by itself.
    seed_failures(world, webhook_id, [start + timedelta(seconds=80), start + timedelta(seconds=81)])
    assert evaluate(kafka_settings, start + timedelta(seconds=90)).opened == 0
    assert alerts_of(world)[0]["count"] == 502
    assert evaluate(kafka_settings, start + timedelta(seconds=150)).resolved == 0
    assert evaluate(kafka_settings, start + timedelta(seconds=204)).resolved == 1
    resolved = alerts_of(world)[0]
    assert (resolved["state"], resolved["resolvedBy"]) == ("RESOLVED", "CLEAR")
    assert (
        evaluate(kafka_settings, start + timedelta(seconds=300)).opened == 0
    )  # counted failures stay counted

    payloads = verified(receiver, secret)
    assert [p["type"] for p in payloads] == ["alert.opened", "alert.acknowledged", "alert.resolved"]
    assert [p["data"]["count"] for p in payloads] == [500, 500, 502]
    assert {p["data"]["alertId"] for p in payloads} == {alert["alertId"]}
    assert len({item.headers["webhook-id"] for item in receiver.received}) == 3
    assert alerts_of(world, world.outsider.key) == []
    status, answer = call(world, world.outsider.key, f"{ALERTS}/resolve", {"alertId": alert["alertId"]})
    assert (status, answer["errors"]) == (404, ["Alert not found"])

    dry = ok(world, f"{ALERTS}/replay", {"alertId": alert["alertId"], "dryRun": True})
    assert dry["matched"] == 502 and dry["dryRun"] is True


def test_fewer_failures_than_the_rule_counts_open_nothing_and_a_resolved_alert_can_open_again(
    world: World, kafka_settings: Settings
) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    rule = ok(
        world,
        f"{RULES}/create",
        {
            "name": "three in a minute",
            "condition": {
                "type": "WEBHOOK_FAILURES",
                "webhookId": webhook_id,
                "count": 3,
                "withinMinutes": 1,
            },
        },
    )["rule"]
    start = created_at(world, rule["ruleId"])
    seed_failures(world, webhook_id, [start + timedelta(seconds=1), start + timedelta(seconds=2)])
    assert evaluate(kafka_settings, start + timedelta(seconds=10)).opened == 0
    # The third comes more than a minute after the first: still two within any minute.
    seed_failures(world, webhook_id, [start + timedelta(seconds=70)])
    assert evaluate(kafka_settings, start + timedelta(seconds=75)).opened == 0
    assert alerts_of(world) == []
    # Two more within the minute of the third: three in a minute open the alert, resolved by a call.
    seed_failures(world, webhook_id, [start + timedelta(seconds=80), start + timedelta(seconds=81)])
    assert evaluate(kafka_settings, start + timedelta(seconds=85)).opened == 1
    alert = alerts_of(world)[0]
    assert alert["count"] == 3
    resolved = ok(world, f"{ALERTS}/resolve", {"alertId": alert["alertId"]})["alert"]
    assert (resolved["state"], resolved["resolvedBy"]) == ("RESOLVED", "CALL")
    # Its failures stay counted; three new ones open a second alert.
    assert evaluate(kafka_settings, start + timedelta(seconds=90)).opened == 0
    seed_failures(world, webhook_id, [start + timedelta(seconds=91 + n) for n in range(3)])
    assert evaluate(kafka_settings, start + timedelta(seconds=100)).opened == 1
    assert [a["state"] for a in alerts_of(world)] == ["OPEN", "RESOLVED"]


def test_a_circuit_open_for_its_time_opens_an_alert_that_resolves_once_closed(
    world: World, kafka_settings: Settings, receiver: NotificationReceiver
) -> None:
    created = ok(
        world,
        f"{RULES}/create",
        {
            "name": "lookup down",
            "condition": {"type": "CIRCUIT_OPEN", "resourceId": world.tool_id, "forSeconds": 30},
            "resolveAfterSeconds": 60,
            "notify": notify_to(world, receiver),
        },
    )
    start = created_at(world, created["rule"]["ruleId"])
    with world.db.sessions.begin() as session:
        session.add(
            DestinationState(
                resource_id=world.tool_id,
                company_id=world.company_id,
                state="OPEN",
                since=start,
                last_error="Handler could not be reached: ClientConnectorError",
            )
        )
    assert evaluate(kafka_settings, start + timedelta(seconds=20)).opened == 0  # not open long enough
    assert evaluate(kafka_settings, start + timedelta(seconds=31)).opened == 1
    assert evaluate(kafka_settings, start + timedelta(seconds=40)).opened == 0
    alert = alerts_of(world)[0]
    assert alert["subject"] == {"kind": "DESTINATION", "id": world.tool_id}
    items = ok(world, f"{ALERTS}/get", {"alertId": alert["alertId"]})["alert"]["items"]
    assert [(i["kind"], i["id"]) for i in items] == [("DESTINATION", world.tool_id)]
    ok(world, f"{ALERTS}/acknowledge", {"alertId": alert["alertId"]})

    with world.db.sessions.begin() as session:
        session.execute(update(DestinationState).values(state="CLOSED", since=start + timedelta(seconds=45)))
    evaluate(kafka_settings, start + timedelta(seconds=50))  # seen closed: clear from now
    assert evaluate(kafka_settings, start + timedelta(seconds=100)).resolved == 0
    assert evaluate(kafka_settings, start + timedelta(seconds=111)).resolved == 1
    payloads = verified(receiver, created["secret"])
    assert [p["data"]["state"] for p in payloads] == ["OPEN", "ACKNOWLEDGED", "RESOLVED"]


def test_a_failed_or_missed_scheduled_run_opens_one_alert_per_event(
    world: World, kafka_settings: Settings
) -> None:
    rule = ok(
        world,
        f"{RULES}/create",
        {"name": "nightly", "condition": {"type": "SCHEDULED_RUN"}, "resolveAfterSeconds": 60},
    )["rule"]
    start = created_at(world, rule["ruleId"])
    with world.db.sessions.begin() as session:
        session.add(
            ScheduledEvent(
                id="e" * 32,
                company_id=world.company_id,
                owner_id=world.owner.user_id,
                name="nightly",
                spec_json="{}",
                action_type="WEBHOOK",
                config_json="{}",
                anchor_at=start,
                dead_letter_enabled=True,
            )
        )
        session.flush()
        for number, run_status in enumerate(("FAILED", "MISSED", "SUCCEEDED")):
            session.add(
                ScheduledEventRun(
                    id=f"{number}" * 32,
                    event_id="e" * 32,
                    company_id=world.company_id,
                    scheduled_for=start - timedelta(hours=number + 1),
                    status=run_status,
                    action_type="WEBHOOK",
                    queued_at=start,
                    ended_at=start + timedelta(seconds=1 + number),
                    error_message="HTTP 500" if run_status == "FAILED" else None,
                )
            )
    assert evaluate(kafka_settings, start + timedelta(seconds=10)).opened == 1
    alert = alerts_of(world)[0]
    assert (alert["subject"], alert["count"]) == ({"kind": "EVENT", "id": "e" * 32}, 2)
    items = ok(world, f"{ALERTS}/get", {"alertId": alert["alertId"]})["alert"]["items"]
    assert [(i["id"], i["detail"]) for i in items] == [
        ("0" * 32, "FAILED (dead-lettered): HTTP 500"),
        ("1" * 32, "MISSED"),
    ]
    status, answer = call(world, world.admin.key, f"{ALERTS}/replay", {"alertId": alert["alertId"]})
    assert status == 400 and answer["errors"]
    ok(world, f"{ALERTS}/acknowledge", {"alertId": alert["alertId"]})
    assert evaluate(kafka_settings, start + timedelta(seconds=70)).resolved == 1
    status, answer = call(world, world.admin.key, f"{ALERTS}/acknowledge", {"alertId": alert["alertId"]})
    assert status == 400 and answer["errors"]


def test_a_failed_table_write_or_maintenance_opens_one_alert_per_table(
    world: World, kafka_settings: Settings
) -> None:
    rule = ok(
        world,
        f"{RULES}/create",
        {"name": "tables", "condition": {"type": "TABLE_FAILURE"}, "resolveAfterSeconds": 30},
    )["rule"]
    start = created_at(world, rule["ruleId"])
    with world.db.sessions.begin() as session:
        session.add(
            AnalyticsTable(
                id="t" * 32,
                company_id=world.company_id,
                sql_name="orders",
                name="orders",
                columns_json="[]",
                created_by=world.owner.user_id,
            )
        )
        session.flush()
        session.add(
            TableWrite(
                id="w" * 32,
                table_id="t" * 32,
                company_id=world.company_id,
                kind="APPEND",
                payload_json="null",
                status="FAILED",
                error_message="schema mismatch",
                committed_at=start + timedelta(seconds=1),
            )
        )
        session.add(
            TableMaintenance(
                table_id="t" * 32,
                company_id=world.company_id,
                failed_at=start + timedelta(seconds=2),
                last_error="StorageUnavailable: s3 down",
            )
        )
    assert evaluate(kafka_settings, start + timedelta(seconds=10)).opened == 1
    alert = alerts_of(world)[0]
    assert (alert["subject"], alert["count"]) == ({"kind": "TABLE", "id": "t" * 32}, 2)
    items = ok(world, f"{ALERTS}/get", {"alertId": alert["alertId"]})["alert"]["items"]
    assert [i["kind"] for i in items] == ["TABLE_WRITE", "MAINTENANCE"]
    ok(world, f"{ALERTS}/acknowledge", {"alertId": alert["alertId"]})
    assert evaluate(kafka_settings, start + timedelta(seconds=40)).resolved == 1
    with world.db.sessions() as session:
        assert (
            session.scalar(select(func.count()).select_from(AlertNotification)) == 0
        )  # no notify: none owed


def test_alerts_page_and_a_bad_cursor_is_400(world: World, kafka_settings: Settings) -> None:
    rule = ok(world, f"{RULES}/create", {"name": "any", "condition": {"type": "SCHEDULED_RUN"}})["rule"]
    status, answer = call(world, world.admin.key, f"{ALERTS}/get-all", {"cursor": "not-one"})
    assert status == 400 and answer["errors"]
    status, answer = call(world, world.admin.key, f"{ALERTS}/get-all", {"limit": 1000})
    assert status == 400 and answer["errors"]
    assert ok(world, f"{ALERTS}/get-all", {"ruleId": rule["ruleId"], "limit": 1}) == {
        "alerts": [],
        "nextCursor": None,
        "errors": [],
    }
