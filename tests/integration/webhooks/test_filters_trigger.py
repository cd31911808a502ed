"""Content filters on the trigger (webhookConfig.filterConfig): a matching delivery is queued and handled; one
that does not match answers 200 ``filtered: true``, is recorded FILTERED and never reaches the handler."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from core.filters import MAX_MATCH_STEPS
from ingress.webhooks.trigger_screening import INLINE_MATCH_STEPS
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

ORDER: dict[str, Any] = {"id": "A-17", "total": 120, "tags": ["gift", "eu"]}
PAID: dict[str, Any] = {"type": "order.paid", "order": ORDER}
FILTER = {
    "body": {"type": {"$in": ["order.paid", "order.refunded"]}, "order": {"total": {"$gte": 100}}},
}


def webhook(world: World, **config: Any) -> tuple[str, str]:
    """A webhook without a handler: what it queues stays QUEUED, what it filters is FILTERED."""
    created = world.api.create(world.owner, {"name": "orders", **config})
    return created["webhook"]["id"], str(created["apiKey"])


def send(
    ingress: Ingress,
    webhook_id: str,
    key: str,
    *,
    params: dict[str, str] | list[tuple[str, str]] | None = None,
    headers: dict[str, str] | None = None,
    **content: Any,
) -> httpx.Response:
    query: list[tuple[str, str | int | float | bool | None]] = [("resourceId", webhook_id)]
    query += list(params.items()) if isinstance(params, dict) else params or []
    return ingress.client.post(
        TRIGGER, params=query, headers={"Authorization": key, **(headers or {})}, **content
    )


def assert_filtered(answer: httpx.Response, webhook_id: str) -> str:
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["success"] is True and body["filtered"] is True
    assert body["webhookId"] == webhook_id
    assert body["errors"] == []
    assert body["message"] == "Webhook received; it did not match the webhook's filter and was not queued"
    return str(body["executionId"])


def test_matching_deliveries_are_handled_and_the_others_filtered(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, key = tool_webhook(world, register_handler(world, handler), filterConfig=FILTER)
    # Non-matching first: had they been queued, the handler would see them before the matching one.
    cheap = {**PAID, "order": {**ORDER, "total": 99}}
    filtered = [
        assert_filtered(send(ingress, webhook_id, key, json=cheap), webhook_id),
        assert_filtered(send(ingress, webhook_id, key, json={"type": "order.created"}), webhook_id),
        assert_filtered(send(ingress, webhook_id, key, content=b"total=120"), webhook_id),  # not JSON
    ]
    answer = send(ingress, webhook_id, key, json=PAID)
    assert answer.status_code == 202, answer.text
    assert "filtered" not in answer.json()
    handled = answer.json()["executionId"]

    entries = wait_for(world, webhook_id, lambda es: any(e["status"] == "SUCCESS" for e in es))
    assert {e["executionId"]: e["status"] for e in entries} == {
        handled: "SUCCESS",
        **{execution: "FILTERED" for execution in filtered},
    }
    assert [call["body"]["executionId"] for call in handler.calls] == [handled]

    only_filtered = history(world, webhook_id, status="FILTERED")
    assert only_filtered["totalElements"] == 3
    assert sorted(e["executionId"] for e in only_filtered["history"]) == sorted(filtered)
    entry = only_filtered["history"][-1]
    assert entry["attemptNumber"] == 1
    assert entry["durationMs"] == 0 and entry["endedAt"] == entry["queuedAt"]
    assert entry["executionDetails"]["transformedVariables"] is None
    assert entry["executionDetails"]["errorMessage"] is None
    assert json.loads(entry["executionDetails"]["requestPayload"]) == cheap


def test_headers_match_whatever_their_letter_case(world: World, ingress: Ingress) -> None:
    webhook_id, key = webhook(world, filterConfig={"headers": {"X-Event-Type": {"$startsWith": "order."}}})
    assert send(ingress, webhook_id, key, headers={"x-event-type": "order.paid"}).status_code == 202
    assert send(ingress, webhook_id, key, headers={"X-EVENT-TYPE": "order.paid"}).status_code == 202
    assert_filtered(send(ingress, webhook_id, key, headers={"X-Event-Type": "refund.paid"}), webhook_id)
    assert_filtered(send(ingress, webhook_id, key), webhook_id)  # no such header


def test_query_parameters_match_by_value_and_by_every_value(world: World, ingress: Ingress) -> None:
    webhook_id, key = webhook(world, filterConfig={"query": {"source": {"$in": ["shop", "pos"]}}})
    assert send(ingress, webhook_id, key, params={"source": "shop"}).status_code == 202
    assert_filtered(send(ingress, webhook_id, key, params={"source": "web"}), webhook_id)
    assert_filtered(send(ingress, webhook_id, key), webhook_id)
    # Given twice, a parameter is the array of its values: one of them in the list is enough.
    repeated = [("source", "web"), ("source", "pos")]
    assert send(ingress, webhook_id, key, params=repeated).status_code == 202
    counts = history(world, webhook_id, status="FILTERED")["totalElements"]
    assert counts == 2


def test_the_filter_runs_after_the_validation_script(world: World, ingress: Ingress) -> None:
    script = "return body.includes('let me in');"
    webhook_id, key = webhook(
        world,
        filterConfig={"body": {"type": "order.paid"}},
        validationConfig={"enableValidation": True, "validationScript": script},
    )
    refused = send(ingress, webhook_id, key, json={"type": "order.created"})
    assert refused.status_code == 401
    assert_filtered(
        send(ingress, webhook_id, key, json={"type": "order.created", "x": "let me in"}), webhook_id
    )
    assert send(ingress, webhook_id, key, json={"type": "order.paid", "x": "let me in"}).status_code == 202
    assert history(world, webhook_id)["totalElements"] == 2


def test_a_costly_match_goes_to_a_thread_and_stops_at_its_budget(world: World, ingress: Ingress) -> None:
    members = list(range(1, 201))
    webhook_id, key = webhook(world, filterConfig={"body": {"ids": {"$in": members}}})
    # 60 misses against 200 members: more steps than the event loop's share, within the thread's budget.
    within = [-1] * 60 + [200]
    assert len(within) * len(members) > INLINE_MATCH_STEPS
    assert send(ingress, webhook_id, key, json={"ids": within}).status_code == 202
    assert_filtered(send(ingress, webhook_id, key, json={"ids": [-1] * 60}), webhook_id)
    # Past the thread's budget the delivery is not passed on: it is kept, FILTERED, with the reason.
    beyond = [-1] * (MAX_MATCH_STEPS // len(members) + 10) + [1]
    answer = send(ingress, webhook_id, key, json={"ids": beyond})
    assert answer.status_code == 200, answer.text
    assert answer.json()["filtered"] is True
    assert "could not be evaluated within its budget" in answer.json()["message"]
    entry = history(world, webhook_id, status="FILTERED")["history"][0]
    assert entry["executionId"] == answer.json()["executionId"]
    assert entry["executionDetails"]["errorMessage"] == (
        f"Filter not evaluated: the filter needed more than {MAX_MATCH_STEPS} comparisons for this delivery; "
        "the delivery was not queued"
    )


@pytest.mark.parametrize(
    ("filter_config", "message"),
    [
        (
            {"body": {"order": {"$gte": {"total": 1}}}},
            "webhookConfig.filterConfig.body.order.$gte: expects a number or string, got object",
        ),
        (
            {"body": {"type": {"$regex": "^order"}}},
            "webhookConfig.filterConfig.body.type: unknown operator $regex",
        ),
        (
            {"query": {"source": {"$in": []}}},
            "webhookConfig.filterConfig.query.source.$in: expects a non-empty",
        ),
        (
            {"headers": {"bad header": "x"}},
            "webhookConfig.filterConfig.headers.bad header: is not a valid header",
        ),
        (
            {"body": {"a": {"$or": {"b": 1}}}},
            "webhookConfig.filterConfig.body.a.$or: expects a non-empty array",
        ),
    ],
)
def test_a_bad_filter_is_refused_with_its_exact_path(
    world: World, filter_config: dict[str, Any], message: str
) -> None:
    created = world.api.call(
        world.owner, "create", {"webhookConfig": {"name": "x", "filterConfig": filter_config}}
    )
    assert created.status_code == 400, created.text
    assert created.json()["errors"][0].startswith(message), created.text

    webhook_id = world.api.create(world.owner, {"name": "x", "filterConfig": FILTER})["webhook"]["id"]
    body = {"webhookId": webhook_id, "webhookConfig": {"name": "x", "filterConfig": filter_config}}
    updated = world.api.call(world.owner, "update", body)
    assert updated.status_code == 400, updated.text
    assert updated.json()["errors"][0].startswith(message), updated.text
    kept = world.api.ok(world.owner, "get", {"webhookId": webhook_id})["webhook"]["webhookConfig"]
    assert kept["filterConfig"] == FILTER


def test_a_filter_is_answered_as_it_was_saved(world: World) -> None:
    saved = {"body": {"note": None, "n": {"$eq": None}}, "headers": {"X-Kind": "a"}}
    config = world.api.create(world.owner, {"name": "x", "filterConfig": saved})["webhook"]["webhookConfig"]
    assert config["filterConfig"] == saved
