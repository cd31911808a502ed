"""Trigger deduplication through the real stack: a delivery whose Idempotency-Key (or verified provider
delivery id) its webhook saw within the window answers 200 ``duplicate: true`` with the first executionId and
records or queues nothing; concurrent duplicates reach the handler once; keys are per webhook and company."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select, update

from ingress.webhooks.trigger_dedup import DUPLICATE_MESSAGE
from sinks.db.models import WebhookDedup
from tests.fixtures import signatures as signed
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Ingress
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import (
    TRIGGER,
    history,
    register_handler,
    tool_webhook,
    wait_for,
)

pytestmark = pytest.mark.integration

BODY = {"order": {"id": "A-17"}}


def webhook(world: World, **config: Any) -> tuple[str, str]:
    """A webhook without a handler: what it queues stays QUEUED (no worker needed)."""
    created = world.api.create(world.owner, {"name": "orders", **config})
    return created["webhook"]["id"], str(created["apiKey"])


def send(
    client: httpx.Client, webhook_id: str, key: str, headers: dict[str, str] | None = None, **content: Any
) -> httpx.Response:
    if not content:
        content = {"json": BODY}
    return client.post(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers={"Authorization": key, **(headers or {})},
        **content,
    )


def assert_duplicate(answer: httpx.Response, webhook_id: str, first: str) -> None:
    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "success": True,
        "duplicate": True,
        "message": DUPLICATE_MESSAGE,
        "executionId": first,
        "webhookId": webhook_id,
        "errors": [],
    }


def queued(answer: httpx.Response) -> str:
    assert answer.status_code == 202, answer.text
    assert "duplicate" not in answer.json()
    return str(answer.json()["executionId"])


def executions(world: World, webhook_id: str) -> list[str]:
    return [entry["executionId"] for entry in history(world, webhook_id)["history"]]


def test_a_duplicate_answers_200_with_the_first_execution_and_records_nothing(
    world: World, ingress: Ingress
) -> None:
    webhook_id, key = webhook(world)
    first = queued(send(ingress.client, webhook_id, key, {"Idempotency-Key": "order-A-17"}))
    # Another body, method or header does not matter: the key names the delivery.
    assert_duplicate(
        send(ingress.client, webhook_id, key, {"Idempotency-Key": "order-A-17"}), webhook_id, first
    )
    again = ingress.client.put(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers={"Authorization": key, "idempotency-key": "order-A-17"},
        content=b"other",
    )
    assert_duplicate(again, webhook_id, first)
    other = queued(send(ingress.client, webhook_id, key, {"Idempotency-Key": "order-A-18"}))
    plain = [queued(send(ingress.client, webhook_id, key)) for _ in range(2)]  # no key: never deduped
    assert sorted(executions(world, webhook_id)) == sorted([first, other, *plain])
    assert history(world, webhook_id)["totalElements"] == 4


def test_concurrent_duplicates_reach_the_handler_once(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, key = tool_webhook(world, register_handler(world, handler))

    def fire(_: int) -> httpx.Response:
        return send(ingress.client, webhook_id, key, {"Idempotency-Key": "evt-concurrent"})

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(fire, range(8)))
    accepted = [queued(answer) for answer in answers if answer.status_code == 202]
    assert len(accepted) == 1, [answer.text for answer in answers]
    for answer in answers:
        if answer.status_code != 202:
            assert_duplicate(answer, webhook_id, accepted[0])
    entries = wait_for(world, webhook_id, lambda found: [e["status"] for e in found] == ["SUCCESS"])
    assert entries[0]["executionId"] == accepted[0]
    # A later record for it would only come from a second entry, and there is none.
    assert handler.successes() == [(accepted[0], 1)]
    assert [call["body"]["executionId"] for call in handler.calls] == [accepted[0]]


def test_a_github_redelivery_is_a_duplicate_and_a_forged_one_claims_nothing(
    world: World, ingress: Ingress
) -> None:
    webhook_id, key = webhook(
        world, verificationConfig={"provider": "GITHUB", "secret": signed.GITHUB_SECRET}
    )
    body = json.dumps({"action": "opened", "number": 7}).encode()

    def github(delivery: str, secret: str = signed.GITHUB_SECRET) -> dict[str, str]:
        headers = signed.github_headers(body, secret=secret)
        return {**headers, "X-GitHub-Delivery": delivery, "Content-Type": "application/json"}

    # A forged request carrying the next delivery's id is refused before it can read or claim the id.
    forged = send(
        ingress.client, webhook_id, key, github("d-2", secret="another-secret-0123456789"), content=body
    )
    assert forged.status_code == 401 and forged.json() == {"error": "Invalid signature."}
    first = queued(send(ingress.client, webhook_id, key, github("d-1"), content=body))
    assert_duplicate(send(ingress.client, webhook_id, key, github("d-1"), content=body), webhook_id, first)
    second = queued(send(ingress.client, webhook_id, key, github("d-2"), content=body))
    # An Idempotency-Key wins over the provider's id.
    third = queued(
        send(ingress.client, webhook_id, key, {**github("d-1"), "Idempotency-Key": "mine"}, content=body)
    )
    assert sorted(executions(world, webhook_id)) == sorted([first, second, third])


def test_after_the_window_the_key_is_a_new_delivery(world: World, ingress: Ingress) -> None:
    webhook_id, key = webhook(world, deduplication={"windowSeconds": 60})
    first = queued(send(ingress.client, webhook_id, key, {"Idempotency-Key": "k"}))
    assert_duplicate(send(ingress.client, webhook_id, key, {"Idempotency-Key": "k"}), webhook_id, first)
    with world.db.sessions.begin() as session:
        row = session.scalars(select(WebhookDedup).where(WebhookDedup.webhook_id == webhook_id)).one()
        assert row.expires_at - row.seen_at == timedelta(seconds=60)
        assert row.execution_id == first
        session.execute(
            update(WebhookDedup)
            .where(WebhookDedup.webhook_id == webhook_id)
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
    second = queued(send(ingress.client, webhook_id, key, {"Idempotency-Key": "k"}))
    assert second != first
    assert_duplicate(send(ingress.client, webhook_id, key, {"Idempotency-Key": "k"}), webhook_id, second)
    assert sorted(executions(world, webhook_id)) == sorted([first, second])


def test_a_key_is_per_webhook_and_never_crosses_companies(world: World, ingress: Ingress) -> None:
    victim_id, victim_key = webhook(world)
    sibling_id, sibling_key = webhook(world)
    hostile = world.api.create(world.outsider, {"name": "hostile"})
    hostile_id, hostile_key = hostile["webhook"]["id"], str(hostile["apiKey"])
    headers = {"Idempotency-Key": "evt_shared"}
    victim_first = queued(send(ingress.client, victim_id, victim_key, headers))
    sibling_first = queued(send(ingress.client, sibling_id, sibling_key, headers))
    hostile_first = queued(send(ingress.client, hostile_id, hostile_key, headers))
    assert len({victim_first, sibling_first, hostile_first}) == 3
    # The hostile company's key on the victim's webhook is refused before any key is read.
    refused = send(ingress.client, victim_id, hostile_key, headers)
    assert refused.status_code == 401 and victim_first not in refused.text
    assert_duplicate(send(ingress.client, hostile_id, hostile_key, headers), hostile_id, hostile_first)
    assert executions(world, victim_id) == [victim_first]


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        (["x" * 256], "Idempotency-Key must be 1-255 printable ASCII characters (got 256 characters)"),
        ([""], "Idempotency-Key must be 1-255 printable ASCII characters (got 0 characters)"),
        (["caf\u00e9".encode().decode("latin-1")], "some outside printable ASCII"),
        (["a", "b"], "Idempotency-Key header sent more than once; send one key per request"),
    ],
)
def test_an_unusable_idempotency_key_is_400_and_records_nothing(
    world: World, ingress: Ingress, values: list[str], problem: str
) -> None:
    webhook_id, key = webhook(world)
    headers = [("Authorization", key), *(("Idempotency-Key", value) for value in values)]
    answer = ingress.client.post(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers=[(name.encode(), value.encode("latin-1")) for name, value in headers],
        json=BODY,
    )
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["success"] is False and problem in body["message"] and body["errors"] == [body["message"]]
    assert body["executionId"] is None and body["webhookId"] == webhook_id
    assert executions(world, webhook_id) == []
    queued(send(ingress.client, webhook_id, key, {"Idempotency-Key": "x" * 255}))


def test_a_webhook_with_deduplication_off_ignores_keys(world: World, ingress: Ingress) -> None:
    webhook_id, key = webhook(world, deduplication={"enabled": False})
    headers = {"Idempotency-Key": "k"}
    first, second = (queued(send(ingress.client, webhook_id, key, headers)) for _ in range(2))
    queued(send(ingress.client, webhook_id, key, {"Idempotency-Key": "x" * 300}))  # not even checked
    assert first != second


def test_filtered_and_transform_failed_first_deliveries_count_as_seen(world: World, ingress: Ingress) -> None:
    filtered_id, filtered_key = webhook(world, filterConfig={"body": {"order": {"id": "never"}}})
    first = send(ingress.client, filtered_id, filtered_key, {"Idempotency-Key": "f"})
    assert first.status_code == 200 and first.json()["filtered"] is True
    filtered_first = first.json()["executionId"]
    assert_duplicate(
        send(ingress.client, filtered_id, filtered_key, {"Idempotency-Key": "f"}), filtered_id, filtered_first
    )

    script = "throw new Error('no variables today')"
    failing_id, failing_key = webhook(
        world, payloadTransformConfig={"transformType": "SVC_SCRIPT", "transformScript": script}
    )
    failed = send(ingress.client, failing_id, failing_key, {"Idempotency-Key": "t"})
    assert failed.status_code == 500 and failed.json()["message"].startswith("Payload transform failed")
    failed_first = failed.json()["executionId"]
    assert_duplicate(
        send(ingress.client, failing_id, failing_key, {"Idempotency-Key": "t"}), failing_id, failed_first
    )
    assert [e["status"] for e in history(world, filtered_id)["history"]] == ["FILTERED"]
    assert [e["status"] for e in history(world, failing_id)["history"]] == ["TRANSFORM_FAILED"]
