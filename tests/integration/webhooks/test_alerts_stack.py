"""An alert through the real stack: a handler that refuses deliveries (422, not retried), a worker that
records them FAILED, the leader's round opening one alert, and its notification as a record of a kafka://
handler carrying the signed body and the Standard Webhooks headers."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from standardwebhooks import Webhook

from schemas.admin import ResourceSpec
from schemas.settings import Settings
from sinks.db import resources
from sinks.kafka_admin import ensure_topics
from tests.fixtures import module_stack
from tests.fixtures.alerts import evaluate
from tests.fixtures.broker import reading
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Ingress, make_settings
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import TRIGGER, register_handler, tool_webhook, wait_for

pytestmark = pytest.mark.integration

stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(stack_dir / "data", kafka_bootstrap=kafka_bootstrap)


async def read_record(settings: Settings, topic: str) -> tuple[str, dict[str, str]]:
    async with reading(settings, topic, f"{topic}-reader") as consumer:
        record = await asyncio.wait_for(consumer.getone(), timeout=30)
    return record.value.decode(), {name: value.decode() for name, value in record.headers}


def test_refused_deliveries_open_an_alert_notified_to_a_kafka_handler(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler, kafka_settings: Settings
) -> None:
    topic = f"{ingress.settings.topic_prefix}alert-notifications"
    asyncio.run(ensure_topics(ingress.settings.model_copy(update={"topic_prefix": ""}), [topic]))
    with world.db.sessions.begin() as session:
        pager = resources.create_resource(
            session, world.company_id, ResourceSpec(type="AGENT", name="pager", endpoint=f"kafka://{topic}")
        )
    webhook_id, key = tool_webhook(world, register_handler(world, handler))
    handler.fail_first["*"] = 99
    handler.status_on_failure = 422
    answer = world.api.client.post(
        "/svc_poweruser/alerts/rules/create",
        headers={"Authorization": world.admin.key},
        json={
            "name": "orders refused",
            "condition": {
                "type": "WEBHOOK_FAILURES",
                "webhookId": webhook_id,
                "count": 3,
                "withinMinutes": 5,
            },
            "notify": pager.resource_id,
        },
    )
    assert answer.status_code == 200, answer.text
    secret = answer.json()["secret"]
    for number in range(3):
        ingress.client.post(
            TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": key}, json={"n": number}
        )
    wait_for(world, webhook_id, lambda es: len(es) == 3 and all(e["status"] == "FAILED" for e in es))

    done = evaluate(kafka_settings, datetime.now(UTC) + timedelta(seconds=5), broker=True)
    assert (done.opened, done.sent) == (1, 1)
    body, headers = asyncio.run(read_record(kafka_settings, topic))
    payload: dict[str, Any] = Webhook(secret).verify(body, headers)
    assert payload["type"] == "alert.opened"
    assert payload["data"]["count"] == 3
    assert payload["data"]["subject"] == {"kind": "WEBHOOK", "id": webhook_id}
    assert json.loads(body) == payload
