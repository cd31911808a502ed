import re

import pytest
from sqlalchemy import select

from schemas.admin import GrantSpec
from schemas.enums import AccessLevel
from sinks import credentials
from sinks.db import resources
from sinks.db.models import WebhookKey
from tests.integration.webhooks.conftest import World

pytestmark = pytest.mark.integration

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$")
WEBHOOK_FIELDS = {
    "id",
    "companyId",
    "ownerId",
    "webhookConfig",
    "apiKeyId",
    "isEnabled",
    "sharingLevel",
    "companyPermissionLevel",
    "createdAt",
    "updatedAt",
    "userAccessLevel",
}


def full_config(world: World, name: str = "orders") -> dict[str, object]:
    return {
        "name": name,
        "description": "new orders from the shop",
        "validationConfig": {
            "enableValidation": True,
            "validationScript": "return headers['x-token'] === 'ok';",
        },
        "payloadTransformConfig": {
            "transformType": "JSONPATH",
            "jsonPathMappings": {"orderId": "$.order.id", "total": "$.order.total"},
        },
        "resourceExecutionConfig": {
            "resourceType": "TOOL",
            "resourceId": world.tool_id,
            "variables": {"order": "@@{orderId}"},
            "environmentVariables": {"REGION": "eu"},
            "privateVariables": {"token": "s3cret"},
        },
        "executionSettings": {"timeoutSeconds": 30, "maxRetries": 2, "retryDelaySeconds": 1},
    }


def grant_tool(world: World, user_id: str, level: AccessLevel = AccessLevel.READ) -> None:
    with world.db.sessions.begin() as session:
        resources.grant(session, GrantSpec(user_id=user_id, resource_id=world.tool_id, level=level))


def test_create_returns_the_webhook_and_its_key_once(world: World) -> None:
    created = world.api.create(world.owner)
    webhook = created["webhook"]
    assert set(webhook) == WEBHOOK_FIELDS
    assert created["apiKey"] == f"wh:{webhook['apiKeyId']}:{created['apiKey'].split(':')[2]}"
    assert credentials.parse_webhook_key(created["apiKey"]) is not None
    assert webhook["companyId"] == world.company_id
    assert webhook["ownerId"] == world.owner.user_id
    assert webhook["isEnabled"] is True
    assert webhook["sharingLevel"] == "PRIVATE"
    assert webhook["companyPermissionLevel"] is None
    assert webhook["userAccessLevel"] == "ADMIN"
    assert TIMESTAMP.match(webhook["createdAt"]) and TIMESTAMP.match(webhook["updatedAt"])
    assert webhook["webhookConfig"] == {
        "name": "orders",
        "validationConfig": {"enableValidation": False},
        "payloadTransformConfig": {"transformType": "JSONPATH"},
        "executionSettings": {"timeoutSeconds": 300, "maxRetries": 3, "retryDelaySeconds": 5},
    }
    fetched = world.api.ok(world.owner, "get", {"webhookId": webhook["id"]})
    assert fetched["webhook"] == webhook
    assert "apiKey" not in fetched
    assert created["apiKey"] not in str(world.api.ok(world.owner, "get-all", {}))


def test_only_the_digest_of_the_key_is_stored(world: World) -> None:
    created = world.api.create(world.owner)
    key_id, secret = created["apiKey"].split(":")[1:]
    with world.db.sessions() as session:
        row = session.scalar(select(WebhookKey).where(WebhookKey.id == key_id))
    assert row is not None
    assert row.secret_digest == credentials.digest(secret)
    assert secret not in row.secret_digest


def test_update_replaces_the_whole_config(world: World) -> None:
    grant_tool(world, world.owner.user_id)
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    config = full_config(world)
    updated = world.api.ok(world.owner, "update", {"webhookId": webhook_id, "webhookConfig": config})[
        "webhook"
    ]
    assert updated["webhookConfig"]["resourceExecutionConfig"]["variables"] == {"order": "@@{orderId}"}
    assert updated["webhookConfig"]["executionSettings"] == {
        "timeoutSeconds": 30,
        "maxRetries": 2,
        "retryDelaySeconds": 1,
    }
    assert updated["isEnabled"] is True
    assert updated["updatedAt"] >= updated["createdAt"]

    replaced = world.api.ok(
        world.owner,
        "update",
        {"webhookId": webhook_id, "webhookConfig": {"name": "renamed"}, "isEnabled": False},
    )["webhook"]
    assert replaced["webhookConfig"]["name"] == "renamed"
    assert "resourceExecutionConfig" not in replaced["webhookConfig"]
    assert replaced["isEnabled"] is False
    unchanged = world.api.ok(
        world.owner, "update", {"webhookId": webhook_id, "webhookConfig": {"name": "again"}}
    )
    assert unchanged["webhook"]["isEnabled"] is False
    enabled = world.api.ok(
        world.owner, "update", {"webhookId": webhook_id, "webhookConfig": config, "isEnabled": True}
    )
    assert enabled["webhook"]["isEnabled"] is True


def test_refresh_replaces_the_key_at_once(world: World) -> None:
    created = world.api.create(world.owner)
    webhook_id, old_key_id = created["webhook"]["id"], created["webhook"]["apiKeyId"]
    refreshed = world.api.ok(world.owner, "refresh-api-key", {"webhookId": webhook_id})
    new_key_id = refreshed["apiKey"].split(":")[1]
    assert refreshed["apiKey"] != created["apiKey"]
    assert new_key_id != old_key_id
    assert world.api.ok(world.owner, "get", {"webhookId": webhook_id})["webhook"]["apiKeyId"] == new_key_id
    with world.db.sessions() as session:
        assert session.get(WebhookKey, old_key_id) is None
        assert session.get(WebhookKey, new_key_id) is not None


def test_delete_is_permanent(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    assert world.api.ok(world.owner, "delete", {"webhookId": webhook_id}) == {"deleted": True, "errors": []}
    gone = world.api.call(world.owner, "get", {"webhookId": webhook_id})
    assert gone.status_code == 401
    assert gone.json() == {"errors": ["Webhook not found"]}
    assert world.api.call(world.owner, "delete", {"webhookId": webhook_id}).status_code == 401
    assert world.api.ok(world.owner, "get-all", {})["webhooks"] == []


def test_get_all_lists_owned_shared_and_company_webhooks(world: World) -> None:
    mine = world.api.create(world.owner, {"name": "mine"})["webhook"]["id"]
    direct = world.api.create(world.alice, {"name": "direct"})["webhook"]["id"]
    company = world.api.create(world.alice, {"name": "company"})["webhook"]["id"]
    hidden = world.api.create(world.alice, {"name": "hidden"})["webhook"]["id"]
    world.api.ok(
        world.alice,
        "share",
        {
            "webhookId": direct,
            "level": "SPECIFIC_MEMBER",
            "usersToAdd": [{"userId": world.owner.user_id, "accessLevel": "READ"}],
        },
    )
    world.api.ok(world.alice, "share", {"webhookId": company, "level": "COMPANY", "accessLevel": "WRITE"})
    listed = {w["id"]: w["userAccessLevel"] for w in world.api.ok(world.owner, "get-all", {})["webhooks"]}
    assert listed == {mine: "ADMIN", direct: "READ", company: "WRITE"}
    everything = {w["id"] for w in world.api.ok(world.admin, "get-all", {})["webhooks"]}
    assert everything == {mine, direct, company, hidden}
    assert world.api.ok(world.outsider, "get-all", {})["webhooks"] == []


def test_the_poweruser_key_is_required(world: World) -> None:
    client_key = world.db.create_company("Keys", "k@keys.test").client_api_key
    for headers in ({}, {"Authorization": client_key}, {"Authorization": "pwrusr:nope"}):
        answer = world.api.client.post("/svc_poweruser/custom-webhooks/get-all", headers=headers, json={})
        assert answer.status_code == 401
        assert answer.json()["errors"]


def test_get_shares_lists_the_direct_shares_under_every_level(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    assert world.api.ok(world.owner, "get-shares", {"webhookId": webhook_id}) == {
        "sharingLevel": "PRIVATE",
        "companyPermissionLevel": None,
        "directShares": [],
        "errors": [],
    }
    added = [
        {"userId": world.bob.user_id, "accessLevel": "WRITE"},
        {"userEmail": world.alice.email, "accessLevel": "READ"},
    ]
    world.api.ok(
        world.owner, "share", {"webhookId": webhook_id, "level": "SPECIFIC_MEMBER", "usersToAdd": added}
    )
    world.api.ok(world.owner, "share", {"webhookId": webhook_id, "level": "COMPANY", "accessLevel": "READ"})
    shares = world.api.ok(world.owner, "get-shares", {"webhookId": webhook_id})
    assert (shares["sharingLevel"], shares["companyPermissionLevel"]) == ("COMPANY", "READ")
    expected = sorted(
        [
            {"userId": world.alice.user_id, "userEmail": world.alice.email, "accessLevel": "READ"},
            {"userId": world.bob.user_id, "userEmail": world.bob.email, "accessLevel": "WRITE"},
        ],
        key=lambda entry: entry["userEmail"],
    )
    assert shares["directShares"] == expected
    world.api.ok(
        world.owner,
        "share",
        {"webhookId": webhook_id, "level": "PRIVATE", "usersToRemove": [{"userId": world.bob.user_id}]},
    )
    left = world.api.ok(world.owner, "get-shares", {"webhookId": webhook_id})
    alice_only = [entry for entry in expected if entry["userId"] == world.alice.user_id]
    assert (left["sharingLevel"], left["directShares"]) == ("PRIVATE", alice_only)
    refused = world.api.call(world.bob, "get-shares", {"webhookId": webhook_id})
    assert (refused.status_code, refused.json()) == (401, {"errors": ["Webhook not found"]})
    alice = world.api.call(world.alice, "get-shares", {"webhookId": webhook_id})
    assert alice.status_code == 403
    assert alice.json() == {"errors": ["Only admins can see who this webhook is shared with"]}
    assert world.api.call(world.outsider, "get-shares", {"webhookId": webhook_id}).status_code == 401
