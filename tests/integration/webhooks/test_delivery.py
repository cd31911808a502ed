"""Deliveries end to end through a real worker. The module's tests share one stack (ingress, worker, topics);
each has its own company, handler and webhook."""

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from schemas.admin import ResourceSpec
from schemas.envelopes import Envelope
from schemas.settings import Settings
from schemas.topics import WEBHOOK_RESULTS
from sinks.db import resources
from sinks.kafka_admin import ensure_topics
from tests.fixtures import module_stack
from tests.fixtures.broker import reading
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Ingress, make_settings
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import TRIGGER, register_handler, tool_webhook, wait_for

pytestmark = pytest.mark.integration

# The module's one stack (tests/fixtures/module_stack.py); kafka_settings below is this module's own.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(stack_dir / "data", kafka_bootstrap=kafka_bootstrap)


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


def test_retries_are_new_entries_with_attempt_numbers(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, key = tool_webhook(world, register_handler(world, handler))
    handler.fail_first["*"] = 2
    answer = ingress.client.post(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers={"Authorization": key},
        json={"order": {"id": "R1"}},
    )
    execution_id = answer.json()["executionId"]
    entries = wait_for(world, webhook_id, lambda es: any(e["status"] == "SUCCESS" for e in es))
    attempts = sorted((e["attemptNumber"], e["status"]) for e in entries)
    assert attempts == [(1, "FAILED"), (2, "FAILED"), (3, "SUCCESS")]
    assert {e["executionId"] for e in entries} == {execution_id}
    failed = next(e for e in entries if e["attemptNumber"] == 1)
    assert failed["executionDetails"]["errorMessage"] == "Handler answered HTTP 503"
    assert json.loads(failed["executionDetails"]["resourceResponseJson"])["status"] == 503
    third = next(e for e in entries if e["attemptNumber"] == 3)
    second = next(e for e in entries if e["attemptNumber"] == 2)
    # retryDelaySeconds is 1: the next attempt waits at least that long after the previous one ended.
    assert third["startedAt"] >= second["endedAt"]
    assert handler.successes() == [(execution_id, 3)]


def test_retries_stop_after_max_retries(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, key = tool_webhook(world, register_handler(world, handler))
    handler.fail_first["*"] = 99
    ingress.client.post(TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": key}, json={})
    entries = wait_for(
        world, webhook_id, lambda es: len(es) == 3 and all(e["status"] == "FAILED" for e in es)
    )
    assert sorted(e["attemptNumber"] for e in entries) == [1, 2, 3]  # maxRetries 2: three attempts in all


def test_a_permanent_failure_is_not_retried(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, key = tool_webhook(world, register_handler(world, handler))
    handler.fail_first["*"] = 99
    handler.status_on_failure = 422
    ingress.client.post(TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": key}, json={})
    entries = wait_for(world, webhook_id, lambda es: es and es[0]["status"] == "FAILED")
    assert [e["attemptNumber"] for e in entries] == [1]
    assert entries[0]["executionDetails"]["errorMessage"] == "Handler answered HTTP 422"


def test_a_slow_handler_times_out_and_is_retried(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, key = tool_webhook(
        world,
        register_handler(world, handler),
        executionSettings={"timeoutSeconds": 1, "maxRetries": 1, "retryDelaySeconds": 0},
    )
    handler.delay = 2.0
    ingress.client.post(TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": key}, json={})
    entries = wait_for(
        world, webhook_id, lambda es: len(es) == 2 and all(e["status"] == "FAILED" for e in es)
    )
    assert {e["executionDetails"]["errorMessage"] for e in entries} == {"Handler did not answer within 1 s"}


def test_every_finished_attempt_is_published_to_the_result_topic(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, key = tool_webhook(world, register_handler(world, handler))
    handler.fail_first["*"] = 1
    answer = ingress.client.post(
        TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": key}, json={}
    )
    execution_id = answer.json()["executionId"]
    wait_for(world, webhook_id, lambda es: any(e["status"] == "SUCCESS" for e in es))
    results = asyncio.run(read_results(ingress.settings, execution_id, 2))
    assert [(r["executionId"], r["attemptNumber"], r["status"], r["willRetry"]) for r in results] == [
        (execution_id, 1, "FAILED", True),
        (execution_id, 2, "SUCCESS", False),
    ]


async def read_results(settings: Settings, execution_id: str, count: int) -> list[dict[str, Any]]:
    """The first ``count`` results of ``execution_id`` (the topic also holds the module's other tests')."""
    found: list[dict[str, Any]] = []
    topic, group = settings.topic(WEBHOOK_RESULTS), f"{settings.worker_id}-results-reader"
    async with reading(settings, topic, group) as consumer:
        while len(found) < count:
            record = await asyncio.wait_for(consumer.getone(), timeout=30)
            envelope = Envelope.from_bytes(record.value)
            assert envelope.type == "webhook.result"
            if envelope.payload["executionId"] == execution_id:
                found.append(envelope.payload)
    return sorted(found, key=lambda r: r["attemptNumber"])


def test_kafka_endpoint_handlers_get_a_record(world: World, ingress: Ingress, worker: Worker) -> None:
    topic = f"{ingress.settings.topic_prefix}agent-requests"
    asyncio.run(ensure_topics(ingress.settings.model_copy(update={"topic_prefix": ""}), [topic]))
    with world.db.sessions.begin() as session:
        agent = resources.create_resource(
            session, world.company_id, ResourceSpec(type="AGENT", name="a", endpoint=f"kafka://{topic}")
        )
    config = {
        "name": "to-agent",
        "payloadTransformConfig": {"jsonPathMappings": {"who": "$.user"}},
        "resourceExecutionConfig": {
            "resourceType": "AGENT",
            "resourceId": agent.resource_id,
            "userMessage": "Greet @@{who}",
            "promptTemplateVariables": {"tone": "warm"},
        },
    }
    created = world.api.create(world.admin, config)
    answer = ingress.client.post(
        TRIGGER,
        params={"resourceId": created["webhook"]["id"]},
        headers={"Authorization": created["apiKey"]},
        json={"user": "Ada"},
    )
    entries = wait_for(
        world_admin(world), created["webhook"]["id"], lambda es: es and es[0]["status"] == "SUCCESS"
    )
    assert json.loads(entries[0]["executionDetails"]["resourceResponseJson"])["topic"] == topic
    record = asyncio.run(read_one(ingress.settings, topic))
    assert record["payload"]["userMessage"] == "Greet Ada"
    assert record["payload"]["executionId"] == answer.json()["executionId"]


def world_admin(world: World) -> World:
    return replace(world, owner=world.admin)


async def read_one(settings: Settings, topic: str) -> dict[str, Any]:
    async with reading(settings, topic, f"{topic}-reader") as consumer:
        record = await asyncio.wait_for(consumer.getone(), timeout=30)
    result: dict[str, Any] = json.loads(record.value)
    return result
