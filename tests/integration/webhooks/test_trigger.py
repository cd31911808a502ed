"""The public trigger without a worker: every row of the error table, key sources, methods, transforms."""

import json
import logging
import time
from typing import Any

import httpx
import pytest
from prometheus_client import generate_latest
from sqlalchemy import update

from schemas.settings import Settings
from sinks.db.models import WebhookKey
from tests.fixtures.stack import Ingress
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import TRIGGER, history

pytestmark = pytest.mark.integration
CACHE_SECONDS = float(Settings.model_fields["trigger_cache_seconds"].default)


def webhook(world: World, config: dict[str, Any] | None = None) -> tuple[str, str]:
    created = world.api.create(world.owner, {"name": "hook"})
    webhook_id = created["webhook"]["id"]
    if config is not None:
        world.api.ok(
            world.owner, "update", {"webhookId": webhook_id, "webhookConfig": {"name": "hook", **config}}
        )
    return webhook_id, str(created["apiKey"])


def fire(ingress: Ingress, params: dict[str, str], method: str = "POST", **kwargs: Any) -> httpx.Response:
    return ingress.client.request(method, TRIGGER, params=params, **kwargs)


def assert_401(answer: httpx.Response, error: str) -> None:
    assert answer.status_code == 401, answer.text
    assert answer.json() == {"error": error}
    assert answer.headers["X-Request-Id"]


def test_changes_through_the_api_apply_to_the_very_next_delivery(world: World, ingress: Ingress) -> None:
    """The trigger keeps a webhook's row for a moment; the API's own changes forget it on commit."""
    webhook_id, key = webhook(world)
    params = {"resourceId": webhook_id}
    assert fire(ingress, params, headers={"Authorization": key}).status_code == 202  # the row is now kept
    fresh = world.api.ok(world.owner, "refresh-api-key", {"webhookId": webhook_id})["apiKey"]
    assert_401(fire(ingress, params, headers={"Authorization": key}), "Invalid API key.")
    assert fire(ingress, params, headers={"Authorization": fresh}).status_code == 202
    world.api.ok(
        world.owner,
        "update",
        {"webhookId": webhook_id, "webhookConfig": {"name": "hook"}, "isEnabled": False},
    )
    assert_401(fire(ingress, params, headers={"Authorization": fresh}), "Webhook is disabled.")
    world.api.ok(
        world.owner, "update", {"webhookId": webhook_id, "webhookConfig": {"name": "hook"}, "isEnabled": True}
    )
    assert fire(ingress, params, headers={"Authorization": fresh}).status_code == 202
    world.api.ok(world.owner, "delete", {"webhookId": webhook_id})
    assert_401(fire(ingress, params, headers={"Authorization": fresh}), "Webhook not found.")


def test_error_table_in_order(world: World, ingress: Ingress) -> None:
    webhook_id, key = webhook(world)
    other_id, other_key = webhook(world)
    auth = {"Authorization": key}
    assert_401(fire(ingress, {}, headers=auth), "No webhook ID provided.")
    assert_401(fire(ingress, {"resourceId": ""}, headers=auth), "No webhook ID provided.")
    assert_401(fire(ingress, {"resourceId": "12345"}, headers=auth), "Invalid webhook ID.")
    assert_401(fire(ingress, {"resourceId": "f" * 32}, headers=auth), "Webhook not found.")
    assert_401(fire(ingress, {"resourceId": webhook_id}), "No API key provided.")
    client_key = world.db.create_company("C", "c@c.test").client_api_key
    for wrong_form in ("nonsense", client_key, world.owner.key, f"wh:{'0' * 32}", "Bearer " + key):
        assert_401(
            fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": wrong_form}),
            "Invalid API key format.",
        )
    assert_401(
        fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": other_key}),
        "Invalid API key for this webhook.",
    )
    key_id, secret = key.split(":")[1:]
    forged = f"wh:{key_id}:{'x' * len(secret)}"
    assert_401(
        fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": forged}), "Invalid API key."
    )
    unknown = f"wh:{'a' * 32}:{secret}"
    assert_401(
        fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": unknown}), "Invalid API key."
    )

    with world.db.sessions.begin() as session:
        session.execute(update(WebhookKey).where(WebhookKey.id == key_id).values(enabled=False))
    # A change made outside the ingress's API is seen once the trigger's cached row expires.
    time.sleep(CACHE_SECONDS + 0.05)
    assert_401(fire(ingress, {"resourceId": webhook_id}, headers=auth), "API key is disabled.")

    world.api.ok(
        world.owner,
        "update",
        {"webhookId": webhook_id, "webhookConfig": {"name": "hook"}, "isEnabled": False},
    )
    # A disabled webhook is refused before its key is even looked at.
    assert_401(fire(ingress, {"resourceId": webhook_id}), "Webhook is disabled.")
    assert fire(ingress, {"resourceId": other_id}, headers={"Authorization": other_key}).status_code == 202
    assert history(world, webhook_id)["totalElements"] == 0


def test_refreshed_key_fails_at_once(world: World, ingress: Ingress) -> None:
    webhook_id, key = webhook(world)
    assert fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": key}).status_code == 202
    new_key = world.api.ok(world.owner, "refresh-api-key", {"webhookId": webhook_id})["apiKey"]
    assert_401(fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": key}), "Invalid API key.")
    assert fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": new_key}).status_code == 202


def test_deleted_webhook_stops_at_once(world: World, ingress: Ingress) -> None:
    webhook_id, key = webhook(world)
    world.api.ok(world.owner, "delete", {"webhookId": webhook_id})
    assert_401(
        fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": key}), "Webhook not found."
    )


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
def test_all_methods_are_accepted_and_recorded(world: World, ingress: Ingress, method: str) -> None:
    webhook_id, key = webhook(world)
    answer = fire(
        ingress, {"resourceId": webhook_id, "source": "shop"}, method, headers={"Authorization": key}
    )
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert body == {
        "success": True,
        "message": "Webhook received and queued for processing",
        "executionId": body["executionId"],
        "webhookId": webhook_id,
        "errors": [],
    }
    entry = history(world, webhook_id)["history"][0]
    assert entry["executionId"] == body["executionId"]
    assert entry["status"] == "QUEUED"
    assert entry["executionDetails"]["httpMethod"] == method
    assert entry["executionDetails"]["sourceIp"] == "127.0.0.1"


def test_sub_paths_do_not_exist(world: World, ingress: Ingress) -> None:
    webhook_id, key = webhook(world)
    answer = ingress.client.post(f"{TRIGGER}/{webhook_id}", headers={"Authorization": key})
    assert answer.status_code == 404


def test_key_from_the_query_parameter_and_the_header_wins(world: World, ingress: Ingress) -> None:
    webhook_id, key = webhook(world)
    for name in ("authorization", "Authorization", "AUTHORIZATION"):
        assert fire(ingress, {"resourceId": webhook_id, name: key}).status_code == 202
    # The header wins when both are present, whichever of the two is right.
    assert_401(
        fire(ingress, {"resourceId": webhook_id, "authorization": key}, headers={"Authorization": "wh:bad"}),
        "Invalid API key format.",
    )
    assert (
        fire(
            ingress, {"resourceId": webhook_id, "authorization": "bad"}, headers={"Authorization": key}
        ).status_code
        == 202
    )


def test_the_key_never_reaches_history_or_logs(
    world: World, ingress: Ingress, caplog: pytest.LogCaptureFixture
) -> None:
    webhook_id, key = webhook(world)
    caplog.set_level(logging.DEBUG)
    assert fire(ingress, {"resourceId": webhook_id, "authorization": key}, "GET").status_code == 202
    assert (
        fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": key}, json={"a": 1}).status_code
        == 202
    )
    entries = history(world, webhook_id)["history"]
    secret = key.split(":")[2]
    assert secret not in json.dumps(entries)
    details = [e["executionDetails"] for e in entries]
    assert json.loads(details[0]["requestHeaders"])["authorization"] == "[REDACTED]"
    assert json.loads(details[1]["requestQueryParams"])["authorization"] == "[REDACTED]"
    # What the server logged. The test's own HTTP client logs its URLs, key included, and pytest re-attaches
    # uvicorn's access log, which `svc ingress` turns off (it would print the query string).
    server_records = [
        r for r in caplog.records if not r.name.startswith(("httpx", "httpcore", "uvicorn.access"))
    ]
    assert server_records
    leaked = [r.name for r in server_records if secret in r.getMessage() or secret in str(r.__dict__)]
    assert leaked == []


def test_get_transforms_over_query_parameters(world: World, ingress: Ingress) -> None:
    config = {"payloadTransformConfig": {"jsonPathMappings": {"ref": "$.ref", "id": "$.resourceId"}}}
    webhook_id, key = webhook(world, config)
    assert (
        fire(
            ingress, {"resourceId": webhook_id, "ref": "r-9"}, "GET", headers={"Authorization": key}
        ).status_code
        == 202
    )
    entry = history(world, webhook_id)["history"][0]
    assert json.loads(entry["executionDetails"]["transformedVariables"]) == {"ref": "r-9", "id": webhook_id}
    assert entry["executionDetails"]["transformType"] == "JSONPATH"


def test_script_transform(world: World, ingress: Ingress) -> None:
    script = (
        "const p = JSON.parse(payload);"
        " return {total: p.items.length, src: queryParams.src, ua: svc.header(headers, 'X-Agent')};"
    )
    webhook_id, key = webhook(
        world, {"payloadTransformConfig": {"transformType": "SVC_SCRIPT", "transformScript": script}}
    )
    answer = fire(
        ingress,
        {"resourceId": webhook_id, "src": "web"},
        headers={"Authorization": key, "X-Agent": "curl"},
        json={"items": [1, 2, 3]},
    )
    assert answer.status_code == 202, answer.text
    entry = history(world, webhook_id)["history"][0]
    assert json.loads(entry["executionDetails"]["transformedVariables"]) == {
        "total": "3",
        "src": "web",
        "ua": "curl",
    }
    assert entry["executionDetails"]["transformType"] == "SVC_SCRIPT"


@pytest.mark.parametrize(
    ("config", "body", "fragment"),
    [
        ({"payloadTransformConfig": {"jsonPathMappings": {"id": "$.id"}}}, b"{not json", "not valid JSON"),
        (
            {
                "payloadTransformConfig": {
                    "transformType": "SVC_SCRIPT",
                    "transformScript": "throw new Error('bad payload');",
                }
            },
            b"{}",
            "bad payload",
        ),
        (
            {"payloadTransformConfig": {"transformType": "SVC_SCRIPT", "transformScript": "return 42;"}},
            b"{}",
            "Transform",
        ),
    ],
)
def test_transform_failure_is_500_and_recorded(
    world: World, ingress: Ingress, config: dict[str, Any], body: bytes, fragment: str
) -> None:
    webhook_id, key = webhook(world, config)
    answer = fire(
        ingress,
        {"resourceId": webhook_id},
        headers={"Authorization": key, "Content-Type": "application/json"},
        content=body,
    )
    assert answer.status_code == 500
    result = answer.json()
    assert result["success"] is False
    assert result["webhookId"] == webhook_id
    assert fragment in result["message"]
    entry = history(world, webhook_id)["history"][0]
    assert entry["executionId"] == result["executionId"]
    assert entry["status"] == "TRANSFORM_FAILED"
    assert fragment in entry["executionDetails"]["transformError"]
    assert history(world, webhook_id, status="TRANSFORM_FAILED")["totalElements"] == 1


def test_validation_script_decides(world: World, ingress: Ingress) -> None:
    script = (
        "return svc.header(headers, 'X-Token') === 'let-me-in'"
        " ? true : {valid: false, message: 'Bad token.'};"
    )
    webhook_id, key = webhook(
        world, {"validationConfig": {"enableValidation": True, "validationScript": script}}
    )
    auth = {"Authorization": key}
    assert_401(fire(ingress, {"resourceId": webhook_id}, headers={**auth, "X-Token": "nope"}), "Bad token.")
    assert (
        fire(ingress, {"resourceId": webhook_id}, headers={**auth, "X-Token": "let-me-in"}).status_code == 202
    )
    # Rejected deliveries failed authentication, so history lists only the accepted one.
    assert history(world, webhook_id)["totalElements"] == 1


@pytest.mark.parametrize(
    "script",
    [
        "while (true) {}",
        "let a = []; while (true) a.push('x'.repeat(1e6));",
        "return /(a+)+$/.test('a'.repeat(40) + 'b');",
    ],
)
def test_runaway_validation_scripts_are_refused_cleanly(world: World, ingress: Ingress, script: str) -> None:
    webhook_id, key = webhook(
        world, {"validationConfig": {"enableValidation": True, "validationScript": script}}
    )
    answer = fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": key})
    assert answer.status_code == 401
    assert answer.json()["error"].startswith("Webhook validation failed:")
    assert ingress.client.get("/healthz").status_code == 200
    healthy, healthy_key = webhook(world)
    assert fire(ingress, {"resourceId": healthy}, headers={"Authorization": healthy_key}).status_code == 202


def test_body_over_10_mb_is_refused(world: World, ingress: Ingress) -> None:
    webhook_id, key = webhook(world)
    big = b"x" * (10 * 1024 * 1024 + 1)
    answer = fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": key}, content=big)
    assert answer.status_code == 413
    assert answer.json()["success"] is False
    assert history(world, webhook_id)["totalElements"] == 0
    at_limit = b"y" * (10 * 1024 * 1024)
    assert (
        fire(
            ingress, {"resourceId": webhook_id}, headers={"Authorization": key}, content=at_limit
        ).status_code
        == 202
    )


def test_the_trigger_is_served_ahead_of_the_router_with_the_same_edges(
    world: World, ingress: Ingress
) -> None:
    webhook_id, key = webhook(world)
    answer = fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": key}, json={"a": 1})
    assert answer.status_code == 202 and answer.headers["X-Request-Id"]
    assert answer.headers["X-RateLimit-Remaining-Minute"]
    metrics = generate_latest(ingress.app.state.registry).decode()
    assert 'svc_http_requests_total{method="POST",route="/clients/custom-webhooks",status="202"}' in metrics
    # Other methods and a sub-path still go to FastAPI's router; the OpenAPI document keeps the five methods.
    assert ingress.client.request("HEAD", TRIGGER, params={"resourceId": webhook_id}).status_code == 405
    assert ingress.client.post(f"{TRIGGER}/extra", params={"resourceId": webhook_id}).status_code == 404
    paths = ingress.client.get("/openapi.json").json()["paths"]
    assert set(paths[TRIGGER]) == {"get", "post", "put", "patch", "delete"}
    # A chunked body over the request limit is refused by the edge's byte count, as on every route.
    limit = ingress.settings.max_request_bytes
    chunks = iter([b"x" * (limit // 2 + 1), b"x" * (limit // 2 + 1)])
    refused = fire(ingress, {"resourceId": webhook_id}, headers={"Authorization": key}, content=chunks)
    assert refused.status_code == 413 and refused.json()["errors"][0].startswith("Request body exceeds")
