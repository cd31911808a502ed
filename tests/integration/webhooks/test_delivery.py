import json

import pytest

from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Ingress
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import TRIGGER, register_handler, tool_webhook, wait_for

pytestmark = pytest.mark.integration


def test_a_delivery_runs_its_handler(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, key = tool_webhook(world, register_handler(world, handler))
    answer = ingress.client.post(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers={"Authorization": key},
        json={"order": {"id": "A-17"}},
    )
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert body["success"] is True
    assert body["webhookId"] == webhook_id
    assert answer.headers["X-Request-Id"] != body["executionId"]
    entries = wait_for(world, webhook_id, lambda es: es and es[0]["status"] == "SUCCESS")
    entry = entries[0]
    assert entry["executionId"] == body["executionId"]
    assert entry["attemptNumber"] == 1
    assert entry["startedAt"] and entry["endedAt"] and entry["durationMs"] is not None
    details = entry["executionDetails"]
    sent = json.loads(details["resourceRequestJson"])
    assert sent["variables"] == {"order": "A-17", "note": "order A-17 arrived"}
    assert sent["privateVariables"] == {"token": "[REDACTED]"}
    assert json.loads(details["transformedVariables"]) == {"orderId": "A-17"}
    assert key not in details["requestHeaders"]
    call = handler.calls[0]["body"]
    assert call["privateVariables"] == {"token": "tok-A-17"}
    assert call["idempotencyKey"] == f"{body['executionId']}:1"
