"""``/svc_poweruser/custom-webhooks/test-transform``: a sample body through a webhook's validation script,
content filter and transform, saved or unsaved, through the real sandbox, with nothing recorded."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import history

pytestmark = pytest.mark.integration

ORDER = json.dumps({"type": "order.paid", "order": {"id": "A-17", "total": 120}})
MAPPED = {"name": "orders", "payloadTransformConfig": {"jsonPathMappings": {"orderId": "$.order.id"}}}


def _tested(world: World, body: dict[str, Any], who: Any = None) -> dict[str, Any]:
    return world.api.ok(who or world.owner, "test-transform", body)


def test_a_saved_webhooks_mappings_make_its_variables_and_nothing_is_recorded(world: World) -> None:
    webhook_id = world.api.create(world.owner, MAPPED)["webhook"]["id"]
    answer = _tested(world, {"webhookId": webhook_id, "body": ORDER})
    assert answer["transformType"] == "JSONPATH" and answer["validated"] and not answer["filtered"]
    assert answer["variables"] == {"orderId": "A-17"} and answer["transformError"] is None
    assert answer["durationMs"] >= 0
    assert history(world, webhook_id)["history"] == []

    # An unsaved edit of the same webhook: its configuration in place of the stored one.
    edited = {"name": "orders", "payloadTransformConfig": {"jsonPathMappings": {"total": "$.order.total"}}}
    answer = _tested(world, {"webhookId": webhook_id, "webhookConfig": edited, "body": ORDER})
    assert answer["variables"] == {"total": "120"}
    stored = world.api.ok(world.owner, "get", {"webhookId": webhook_id})["webhook"]["webhookConfig"]
    assert stored["payloadTransformConfig"]["jsonPathMappings"] == {"orderId": "$.order.id"}


def test_scripts_filters_and_validation_run_as_a_trigger_runs_them(world: World) -> None:
    script = {
        "name": "scripted",
        "payloadTransformConfig": {
            "transformType": "SVC_SCRIPT",
            "transformScript": "const o = JSON.parse(payload).order; return {id: o.id, big: o.total > 100};",
        },
    }
    answer = _tested(world, {"webhookConfig": script, "body": ORDER})
    assert answer["transformType"] == "SVC_SCRIPT"
    assert answer["variables"] == {"id": "A-17", "big": "true"}

    failing = _tested(world, {"webhookConfig": script, "body": "not json"})
    assert failing["variables"] is None and failing["transformError"]

    filtered = {"name": "f", "filterConfig": {"body": {"order": {"total": {"$gte": 500}}}}}
    answer = _tested(world, {"webhookConfig": filtered, "body": ORDER})
    assert answer["filtered"] and answer["variables"] is None

    query = {
        "name": "q",
        "payloadTransformConfig": {"jsonPathMappings": {"source": "$.source"}},
        "filterConfig": {"headers": {"X-Event-Type": {"$startsWith": "order."}}},
    }
    answer = _tested(
        world,
        {
            "webhookConfig": query,
            "body": "",  # a GET delivery: the mappings read the query parameters
            "headers": {"X-Event-Type": "order.paid"},
            "queryParams": {"source": "shop"},
        },
    )
    assert not answer["filtered"] and answer["variables"] == {"source": "shop"}

    refusing = {
        "name": "v",
        "validationConfig": {
            "enableValidation": True,
            "validationScript": "return {valid: false, message: 'Missing shop signature.'};",
        },
    }
    answer = _tested(world, {"webhookConfig": refusing, "body": ORDER})
    assert not answer["validated"] and answer["validationMessage"] == "Missing shop signature."


def test_refusals(world: World) -> None:
    webhook_id = world.api.create(world.owner, MAPPED)["webhook"]["id"]
    for who in (world.bob, world.outsider):  # no access, another company: as a missing webhook
        refused = world.api.call(who, "test-transform", {"webhookId": webhook_id, "body": ORDER})
        assert refused.status_code == 401 and refused.json()["errors"] == ["Webhook not found"]
    nothing = world.api.call(world.owner, "test-transform", {"body": ORDER})
    assert nothing.status_code == 400 and "send webhookId, webhookConfig or both" in nothing.text
    bad = {"name": "x", "payloadTransformConfig": {"jsonPathMappings": {"id": "$.order[?(@.x =="}}}
    refused = world.api.call(world.owner, "test-transform", {"webhookConfig": bad, "body": ORDER})
    assert refused.status_code == 400
    assert refused.json()["errors"][0].startswith("webhookConfig.payloadTransformConfig.jsonPathMappings:")


def test_the_configs_scripts_run_in_place_of_the_stored_ones(world: World) -> None:
    stored = {
        "name": "scripted",
        "validationConfig": {"enableValidation": True, "validationScript": "return false;"},
        "payloadTransformConfig": {"transformType": "SVC_SCRIPT", "transformScript": "return {v: 'stored'};"},
    }
    webhook_id = world.api.create(world.owner, stored)["webhook"]["id"]
    assert not _tested(world, {"webhookId": webhook_id, "body": ORDER})["validated"]
    typed = {
        "name": "scripted",
        "validationConfig": {
            "enableValidation": True,
            "validationScript": "return 'id' in JSON.parse(body);",
        },
        "payloadTransformConfig": {
            "transformType": "SVC_SCRIPT",
            "transformScript": "const o = JSON.parse(payload).order;\nreturn {v: o.missing.id};",
        },
    }
    refused = _tested(world, {"webhookId": webhook_id, "webhookConfig": typed, "body": ORDER})
    assert not refused["validated"] and refused["validationMessage"] == "Webhook validation failed."
    answer = _tested(
        world, {"webhookId": webhook_id, "webhookConfig": typed, "body": '{"id": 1, "order": {}}'}
    )
    assert answer["validated"] and answer["variables"] is None
    assert "line 2" in answer["transformError"]
    kept = world.api.ok(world.owner, "get", {"webhookId": webhook_id})["webhook"]["webhookConfig"]
    assert kept["validationConfig"]["validationScript"] == "return false;"
