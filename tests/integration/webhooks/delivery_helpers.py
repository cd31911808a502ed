"""Set-up shared by the delivery tests: a webhook wired to the recording handler, and waiting on history."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from schemas.admin import GrantSpec, ResourceSpec
from schemas.deliveries import DeliveryTask
from schemas.enums import AccessLevel
from sinks.db import resources
from sinks.db.models import WebhookExecution
from sinks.db.webhooks import definitions, deliveries, executions
from sinks.db.webhooks.deliveries import Delivery, TriggerTarget
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db
from tests.integration.webhooks.conftest import World

TRIGGER = "/clients/custom-webhooks"


def register_handler(world: World, handler: RecordingHandler, kind: str = "TOOL") -> str:
    with world.db.sessions.begin() as session:
        created = resources.create_resource(
            session, world.company_id, ResourceSpec(type=kind, name="recorder", endpoint=handler.url)
        )
        resources.grant(
            session,
            GrantSpec(user_id=world.owner.user_id, resource_id=created.resource_id, level=AccessLevel.READ),
        )
    return created.resource_id


def tool_webhook(world: World, tool_id: str, **overrides: Any) -> tuple[str, str]:
    config: dict[str, Any] = {
        "name": "orders",
        "payloadTransformConfig": {
            "transformType": "JSONPATH",
            "jsonPathMappings": {"orderId": "$.order.id"},
        },
        "resourceExecutionConfig": {
            "resourceType": "TOOL",
            "resourceId": tool_id,
            "variables": {"order": "@@{orderId}", "note": "order @@{orderId} arrived"},
            "privateVariables": {"token": "tok-@@{orderId}"},
        },
        "executionSettings": {"timeoutSeconds": 5, "maxRetries": 2, "retryDelaySeconds": 1},
    }
    config.update(overrides)
    created = world.api.create(world.owner, {"name": "orders"})
    webhook_id = created["webhook"]["id"]
    world.api.ok(world.owner, "update", {"webhookId": webhook_id, "webhookConfig": config})
    return webhook_id, str(created["apiKey"])


def history(world: World, webhook_id: str, **query: Any) -> dict[str, Any]:
    return world.api.ok(world.owner, "get-execution-history", {"webhookId": webhook_id, "size": 100, **query})


def wait_for(world: World, webhook_id: str, done: Any, timeout: float = 60) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    entries: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        entries = history(world, webhook_id)["history"]
        if done(entries):
            return entries
        time.sleep(0.2)
    raise AssertionError(f"history did not settle: {[(e['attemptNumber'], e['status']) for e in entries]}")


def tool_delivery(
    target: TriggerTarget, tool_id: str, execution_id: str, variables_json: str = "{}"
) -> Delivery:
    """A delivery as the trigger records it (a POST with an empty JSON body) for a webhook calling a tool."""
    return Delivery(
        execution_id=execution_id,
        target=target,
        http_method="POST",
        source_ip=None,
        headers_json="{}",
        query_json="{}",
        payload="{}",
        transform_type="JSONPATH",
        variables_json=variables_json,
        transform_error=None,
        resource_type="TOOL",
        resource_id=tool_id,
        received_at=datetime.now(UTC),
    )


def limited_deliveries(db: Db, limit: int, count: int) -> list[DeliveryTask]:
    """``count`` QUEUED deliveries of a new company to one TOOL destination that takes ``limit`` calls at
    once, oldest first."""
    company = db.create_company()
    with db.sessions.begin() as session:
        tool = resources.create_resource(
            session,
            company.company_id,
            ResourceSpec(type="TOOL", name="t", endpoint="http://127.0.0.1:9/t", max_concurrency=limit),
        )
        config = {
            "name": "hand-over",
            "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": tool.resource_id},
            "executionSettings": {"timeoutSeconds": 1, "maxRetries": 0, "retryDelaySeconds": 1},
        }
        viewer = definitions.Viewer(company.company_id, company.user_id, True)
        webhook_id = definitions.create(session, viewer, config)[0].id
        target = deliveries.load_target(session, webhook_id)
    assert target is not None
    template = tool_delivery(target, tool.resource_id, execution_id="", variables_json='{"n": "1"}')
    tasks = []
    for _ in range(count):
        with db.sessions.begin() as session:
            tasks.append(
                deliveries.record_delivery(session, replace(template, execution_id=uuid.uuid4().hex))
            )
    return tasks


def add_history_entry(
    world: World,
    webhook_id: str,
    n: int,
    *,
    queued_at: datetime,
    status: str,
    body: str = "{}",
    attempt: int = 1,
    duration_ms: int | None = None,
) -> None:
    """One history entry of execution ``n`` (its id ``n`` in hex), with its stored body, written directly."""
    with world.db.sessions.begin() as session:
        payload_id = executions.store_payload(
            session, world.company_id, webhook_id, body, json.dumps({"content-type": "application/json"})
        )
        executions.add_entry(
            session,
            WebhookExecution(
                execution_id=f"{n:032x}",
                webhook_id=webhook_id,
                company_id=world.company_id,
                payload_id=payload_id,
                attempt_number=attempt,
                status=status,
                queued_at=queued_at,
                duration_ms=duration_ms,
                webhook_name="orders",
                http_method="POST",
                source_ip="127.0.0.1",
                transform_type="JSONPATH",
            ),
        )
