"""What the browser tests set up through the API and the admin functions: a company, a recording handler,
a webhook with deliveries."""

from __future__ import annotations

import time
from typing import Any

import httpx

from schemas.admin import GrantSpec, ResourceSpec
from schemas.enums import AccessLevel
from sinks.db import resources
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db

HOSTILE = '<script>alert("x")</script>"><img src=x onerror=alert(1)>'
WEBHOOKS = "/svc_poweruser/custom-webhooks"


def tool_for(db: Db, company_id: str, user_id: str, handler: RecordingHandler) -> str:
    with db.sessions.begin() as session:
        created = resources.create_resource(
            session, company_id, ResourceSpec(type="TOOL", name="recorder", endpoint=handler.url)
        )
        resources.grant(
            session, GrantSpec(user_id=user_id, resource_id=created.resource_id, level=AccessLevel.READ)
        )
    return created.resource_id


def hostile_webhook(client: httpx.Client, poweruser_key: str, tool_id: str) -> tuple[str, str]:
    config: dict[str, Any] = {
        "name": f"orders {HOSTILE}",
        "payloadTransformConfig": {
            "transformType": "JSONPATH",
            "jsonPathMappings": {"orderId": "$.order.id"},
        },
        "resourceExecutionConfig": {
            "resourceType": "TOOL",
            "resourceId": tool_id,
            "variables": {"o": "@@{orderId}"},
        },
        "executionSettings": {"timeoutSeconds": 5, "maxRetries": 0, "retryDelaySeconds": 1},
    }
    answer = client.post(
        f"{WEBHOOKS}/create", headers={"Authorization": poweruser_key}, json={"webhookConfig": config}
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["webhook"]["id"], answer.json()["apiKey"]


def trigger(client: httpx.Client, webhook_id: str, key: str, body: dict[str, Any]) -> str:
    answer = client.post(
        "/clients/custom-webhooks",
        params={"resourceId": webhook_id},
        headers={"Authorization": key},
        json=body,
    )
    assert answer.status_code == 202, answer.text
    return str(answer.json()["executionId"])


def settled(client: httpx.Client, poweruser_key: str, webhook_id: str, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 60
    entries: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        answer = client.post(
            f"{WEBHOOKS}/get-execution-history",
            headers={"Authorization": poweruser_key},
            json={"webhookId": webhook_id, "size": 100},
        )
        entries = answer.json()["history"]
        if len(entries) >= count and all(e["status"] in ("SUCCESS", "FAILED") for e in entries):
            return entries
        time.sleep(0.2)
    raise AssertionError(f"deliveries did not settle: {[e['status'] for e in entries]}")
