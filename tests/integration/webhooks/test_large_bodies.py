"""Issue 43, large bodies by reference: a trigger's body over SVC_INLINE_BODY_BYTES is kept in the object
store (the local one here; S3 in test_large_bodies_s3.py) and its payload row keeps only the key, the size and
the SHA-256; the transform, the history and a replay read the full body back; a body whose object is gone or
damaged is reported as such (200 with the marker, never a 500) and is not replayed as an empty body; a small
body stays inline and costs no object. Real stack: ingress, embedded broker, worker, handler, database."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from core.webhooks.bodies import BODIES_PREFIX, DAMAGED, MISSING
from ingress.webhooks.trigger_failures import NOT_RECORDED
from schemas.settings import Settings
from sinks.db.models import WebhookExecution, WebhookPayload
from sinks.objectstore import ObjectStore, object_store
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Ingress
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import TRIGGER, history, register_handler, wait_for
from tests.integration.webhooks.test_trigger_db_failure import refused

pytestmark = pytest.mark.integration

ITEMS = 2_000  # about 130 KB of JSON: past the default 64 KiB
NO_RETRIES = {"timeoutSeconds": 5, "maxRetries": 0, "retryDelaySeconds": 0}


def large_body(order: str) -> bytes:
    items = [{"sku": f"sku-{n}", "note": "x" * 40} for n in range(ITEMS)]
    return json.dumps({"order": {"id": order, "items": items}}).encode()


def webhook(world: World, handler: RecordingHandler) -> tuple[str, str]:
    """A webhook whose variables come from both ends of the body, so a cut body cannot pass for it."""
    created = world.api.create(world.owner, {"name": "big orders"})
    webhook_id = created["webhook"]["id"]
    config = {
        "name": "big orders",
        "payloadTransformConfig": {
            "transformType": "JSONPATH",
            "jsonPathMappings": {"orderId": "$.order.id", "lastSku": f"$.order.items[{ITEMS - 1}].sku"},
        },
        "resourceExecutionConfig": {
            "resourceType": "TOOL",
            "resourceId": register_handler(world, handler),
            "variables": {"order": "@@{orderId}", "last": "@@{lastSku}"},
        },
        "executionSettings": NO_RETRIES,
    }
    world.api.ok(world.owner, "update", {"webhookId": webhook_id, "webhookConfig": config})
    return webhook_id, str(created["apiKey"])


def fire(ingress: Ingress, webhook_id: str, key: str, body: bytes) -> httpx.Response:
    return ingress.client.post(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers={"Authorization": key, "Content-Type": "application/json"},
        content=body,
    )


def accepted(ingress: Ingress, webhook_id: str, key: str, body: bytes) -> str:
    answer = fire(ingress, webhook_id, key, body)
    assert answer.status_code == 202, answer.text
    return str(answer.json()["executionId"])


def payload_of(world: World, execution_id: str) -> WebhookPayload:
    with world.db.sessions() as session:
        row = session.scalars(
            select(WebhookPayload)
            .join(WebhookExecution, WebhookExecution.payload_id == WebhookPayload.id)
            .where(WebhookExecution.execution_id == execution_id, WebhookExecution.attempt_number == 1)
        ).one()
        session.expunge(row)
        return row


def bodies_of(store: ObjectStore, world: World, webhook_id: str) -> list[str]:
    """Every body object of the webhook, by key."""
    prefix = f"{BODIES_PREFIX}/{world.company_id}/{webhook_id}/"
    return store.list_older(prefix, datetime.now(UTC) + timedelta(days=1), 1_000)


def details(entries: list[dict[str, Any]], execution_id: str) -> dict[str, Any]:
    [entry] = [e for e in entries if e["executionId"] == execution_id]
    found: dict[str, Any] = entry["executionDetails"]
    return found


def test_a_large_body_is_kept_by_reference_and_read_back_by_the_history_a_transform_and_a_replay(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler, kafka_settings: Settings
) -> None:
    store = object_store(kafka_settings)
    webhook_id, key = webhook(world, handler)
    body = large_body("BIG-1")
    assert len(body) > kafka_settings.inline_body_bytes
    execution_id = accepted(ingress, webhook_id, key, body)

    row = payload_of(world, execution_id)
    assert row.request_payload == ""
    assert row.body_key == f"{BODIES_PREFIX}/{world.company_id}/{webhook_id}/{row.id}"
    assert (row.body_bytes, row.body_sha256) == (len(body), hashlib.sha256(body).hexdigest())
    assert store.get_bytes(row.body_key) == body

    entries = wait_for(world, webhook_id, lambda es: [e["status"] for e in es] == ["SUCCESS"])
    shown = details(entries, execution_id)
    assert shown["requestPayload"] == body.decode()
    assert shown["requestPayloadError"] is None
    assert json.loads(shown["transformedVariables"]) == {"orderId": "BIG-1", "lastSku": f"sku-{ITEMS - 1}"}
    [call] = handler.calls
    assert call["body"]["variables"] == {"order": "BIG-1", "last": f"sku-{ITEMS - 1}"}

    answer = world.api.ok(world.owner, "replay", {"webhookId": webhook_id, "executionIds": [execution_id]})
    assert answer["replayed"] == 1, answer
    replay_id = answer["executions"][0]["executionId"]
    entries = wait_for(world, webhook_id, lambda es: [e["status"] for e in es] == ["SUCCESS", "SUCCESS"])
    replayed = details(entries, replay_id)
    assert replayed["replayOf"] == execution_id
    assert replayed["requestPayload"] == body.decode()
    assert replayed["transformedVariables"] == shown["transformedVariables"]
    sent = {c["body"]["executionId"]: c["body"]["variables"] for c in handler.calls}
    assert sent[replay_id] == sent[execution_id]
    # The replay shares the original's payload row: no second object.
    assert payload_of(world, replay_id).id == row.id
    assert bodies_of(store, world, webhook_id) == [row.body_key]


def test_a_body_whose_object_is_gone_or_damaged_is_reported_and_not_replayed(
    world: World, ingress: Ingress, handler: RecordingHandler, kafka_settings: Settings
) -> None:
    store = object_store(kafka_settings)
    webhook_id, key = webhook(world, handler)
    gone, damaged, small = (
        accepted(ingress, webhook_id, key, large_body("GONE")),
        accepted(ingress, webhook_id, key, large_body("DAMAGED")),
        accepted(ingress, webhook_id, key, b'{"order": {"id": "SMALL"}}'),
    )
    gone_key, damaged_key = payload_of(world, gone).body_key, payload_of(world, damaged).body_key
    assert gone_key is not None and damaged_key is not None
    store.delete(gone_key)
    store.put_bytes(damaged_key, large_body("DAMAGEX"))  # same size, other bytes

    entries = history(world, webhook_id)["history"]  # 200: ok() checks it
    for execution_id, problem in ((gone, MISSING), (damaged, DAMAGED)):
        shown = details(entries, execution_id)
        assert (shown["requestPayload"], shown["requestPayloadError"]) == ("", problem)
    assert details(entries, small)["requestPayloadError"] is None
    assert json.loads(details(entries, small)["requestPayload"]) == {"order": {"id": "SMALL"}}

    answer = world.api.ok(
        world.owner, "replay", {"webhookId": webhook_id, "executionIds": [gone, damaged, small]}
    )
    outcomes = {e["originalExecutionId"]: e for e in answer["executions"]}
    assert answer["replayed"] == 1
    for execution_id, problem in ((gone, MISSING), (damaged, DAMAGED)):
        outcome = outcomes[execution_id]
        assert (outcome["executionId"], outcome["error"]) == (None, f"Not replayed: {problem}")
    assert outcomes[small]["status"] == "QUEUED"
    assert history(world, webhook_id)["totalElements"] == 4


def test_a_small_body_stays_inline_and_a_body_just_past_the_limit_does_not(
    world: World, ingress: Ingress, handler: RecordingHandler, kafka_settings: Settings
) -> None:
    store = object_store(kafka_settings)
    webhook_id, key = webhook(world, handler)
    limit = kafka_settings.inline_body_bytes
    at_limit = json.dumps({"order": {"id": "EDGE", "pad": ""}}).encode()
    at_limit = at_limit.replace(b'"pad": ""', b'"pad": "' + b"p" * (limit - len(at_limit)) + b'"')
    assert len(at_limit) == limit
    inline = accepted(ingress, webhook_id, key, at_limit)
    row = payload_of(world, inline)
    assert (row.request_payload, row.body_key, row.body_bytes, row.body_sha256) == (
        at_limit.decode(),
        None,
        None,
        None,
    )
    assert bodies_of(store, world, webhook_id) == []

    past = at_limit.replace(b'"pad": "', b'"pad": "q')
    offloaded = accepted(ingress, webhook_id, key, past)
    assert payload_of(world, offloaded).request_payload == ""
    assert len(bodies_of(store, world, webhook_id)) == 1


def test_a_record_that_fails_after_the_put_leaves_no_object_and_a_deleted_webhook_takes_its_bodies(
    world: World, ingress: Ingress, handler: RecordingHandler, kafka_settings: Settings
) -> None:
    store = object_store(kafka_settings)
    webhook_id, key = webhook(world, handler)
    with refused(world.db, "INSERT", webhook_id):
        answer = fire(ingress, webhook_id, key, large_body("REFUSED"))
    assert answer.status_code == 500, answer.text
    assert answer.json()["message"] == NOT_RECORDED
    assert bodies_of(store, world, webhook_id) == []

    accepted(ingress, webhook_id, key, large_body("KEPT"))
    assert len(bodies_of(store, world, webhook_id)) == 1
    world.api.ok(world.owner, "delete", {"webhookId": webhook_id})
    assert bodies_of(store, world, webhook_id) == []
