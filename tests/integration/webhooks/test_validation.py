"""Bad input gets a clear 400 (or 403/401 for access) in the errors format and changes nothing."""

from typing import Any

import pytest

from schemas.admin import GrantSpec
from schemas.enums import AccessLevel
from sinks.db import resources
from tests.integration.webhooks.conftest import World

pytestmark = pytest.mark.integration


def tool_config(world: World, **execution: Any) -> dict[str, Any]:
    return {
        "name": "orders",
        "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": world.tool_id, **execution},
    }


def svcdb(**config: Any) -> dict[str, Any]:
    base = {
        "operation": "UPDATE",
        "targetTableId": "t1",
        "values": {"status": {"columnType": "SHORT_TEXT", "textValue": "x"}},
    }
    return {
        "name": "db",
        "resourceExecutionConfig": {"resourceType": "SVCDB", "svcDbConfig": {**base, **config}},
    }


CASES: list[tuple[str, Any, str]] = [
    ("missing webhookConfig", None, "webhookConfig: Field required"),
    ("missing name", {"description": "x"}, "Webhook must have a name in the configuration"),
    ("blank name", {"name": "  "}, "Webhook must have a name in the configuration"),
    ("name of wrong type", {"name": 42}, "Webhook must have a name in the configuration"),
    ("unknown field", {"name": "x", "colour": "red"}, "webhookConfig.colour: Extra inputs are not permitted"),
    (
        "wrong type",
        {"name": "x", "executionSettings": {"maxRetries": "three"}},
        "webhookConfig.executionSettings.maxRetries: Input should be a valid integer",
    ),
    (
        "out of bounds",
        {"name": "x", "executionSettings": {"timeoutSeconds": 0}},
        "webhookConfig.executionSettings.timeoutSeconds: Input should be greater than or equal to 1",
    ),
    (
        "too many retries",
        {"name": "x", "executionSettings": {"maxRetries": 11}},
        "webhookConfig.executionSettings.maxRetries: Input should be less than or equal to 10",
    ),
    (
        "wrong enum",
        {"name": "x", "payloadTransformConfig": {"transformType": "XML"}},
        "webhookConfig.payloadTransformConfig.transformType: Input should be 'JSONPATH' or 'SVC_SCRIPT'",
    ),
    (
        "malformed JSONPath",
        {"name": "x", "payloadTransformConfig": {"jsonPathMappings": {"id": "$.order[?(@.x =="}}},
        "webhookConfig.payloadTransformConfig.jsonPathMappings:",
    ),
    (
        "bad variable name",
        {"name": "x", "payloadTransformConfig": {"jsonPathMappings": {"1bad": "$.a"}}},
        "invalid variable name '1bad'",
    ),
    (
        "script missing",
        {"name": "x", "payloadTransformConfig": {"transformType": "SVC_SCRIPT"}},
        "transformScript is required when transformType is SVC_SCRIPT",
    ),
    (
        "script does not compile",
        {
            "name": "x",
            "payloadTransformConfig": {"transformType": "SVC_SCRIPT", "transformScript": "return {a: ;"},
        },
        "webhookConfig.payloadTransformConfig.transformScript:",
    ),
    (
        "validation script does not compile",
        {"name": "x", "validationConfig": {"enableValidation": True, "validationScript": "if ( {"}},
        "webhookConfig.validationConfig.validationScript:",
    ),
    (
        "validation enabled without script",
        {"name": "x", "validationConfig": {"enableValidation": True}},
        "validationScript is required when enableValidation is true",
    ),
    (
        "wrong resource type",
        {"name": "x", "resourceExecutionConfig": {"resourceType": "WORKFLOW", "resourceId": "a"}},
        "resourceType: Input should be 'TOOL', 'AGENT', 'MANAGER' or 'SVCDB'",
    ),
    (
        "resourceId missing",
        {"name": "x", "resourceExecutionConfig": {"resourceType": "AGENT"}},
        "resourceId is required for resourceType AGENT",
    ),
    ("recordId and whereGroups", "svcdb-both", "recordId and whereGroups are mutually exclusive"),
    ("groups operator alone", "svcdb-operator", "groupsLogicalOperator is only allowed with whereGroups"),
    ("update without target", "svcdb-untargeted", "UPDATE needs recordId or whereGroups"),
    (
        "svcdb without config",
        {"name": "x", "resourceExecutionConfig": {"resourceType": "SVCDB"}},
        "svcDbConfig is required",
    ),
]


def resolve(world: World, config: Any) -> Any:
    where = [
        {"logicalOperator": "AND", "conditions": [{"columnName": "id", "operator": "EQUALS", "value": "1"}]}
    ]
    if config == "svcdb-both":
        return svcdb(recordId="1", whereGroups=where)
    if config == "svcdb-operator":
        return svcdb(recordId="1", groupsLogicalOperator="AND")
    if config == "svcdb-untargeted":
        return svcdb()
    return config


@pytest.mark.parametrize(("case", "config", "message"), CASES, ids=[case[0] for case in CASES])
@pytest.mark.parametrize("operation", ["create", "update"])
def test_bad_config_is_refused_and_changes_nothing(
    world: World, operation: str, case: str, config: Any, message: str
) -> None:
    existing = world.api.create(world.owner, {"name": "keep", "description": "unchanged"})["webhook"]
    before = world.api.ok(world.owner, "get-all", {})
    body: dict[str, Any] = {} if operation == "create" else {"webhookId": existing["id"]}
    resolved = resolve(world, config)
    if resolved is not None:
        body["webhookConfig"] = resolved
    answer = world.api.call(world.owner, operation, body)
    assert answer.status_code == 400, answer.text
    assert any(message in error for error in answer.json()["errors"]), answer.json()
    assert answer.headers["X-Request-Id"]
    assert world.api.ok(world.owner, "get-all", {}) == before


def test_fields_not_allowed_for_the_resource_type(world: World) -> None:
    answer = world.api.call(world.owner, "create", {"webhookConfig": tool_config(world, userMessage="hello")})
    assert answer.status_code == 400
    assert answer.json()["errors"] == [
        "webhookConfig.resourceExecutionConfig: userMessage not allowed for resourceType TOOL"
    ]


def test_handler_must_exist_in_the_company_and_be_usable(world: World) -> None:
    foreign = world.api.call(
        world.admin,
        "create",
        {
            "webhookConfig": {
                "name": "x",
                "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": world.foreign_tool_id},
            }
        },
    )
    assert foreign.status_code == 400
    assert foreign.json()["errors"] == [
        f"Target resource does not belong to your company: TOOL (ID: {world.foreign_tool_id})"
    ]
    mismatch = world.api.call(
        world.admin,
        "create",
        {
            "webhookConfig": {
                "name": "x",
                "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": world.agent_id},
            }
        },
    )
    assert mismatch.status_code == 400
    denied = world.api.call(world.alice, "create", {"webhookConfig": tool_config(world)})
    assert denied.status_code == 403
    assert denied.json()["errors"] == [
        f"API key does not have permission to access the target TOOL (ID: {world.tool_id})"
    ]
    assert world.api.ok(world.alice, "get-all", {})["webhooks"] == []
    with world.db.sessions.begin() as session:
        resources.grant(
            session, GrantSpec(user_id=world.alice.user_id, resource_id=world.tool_id, level=AccessLevel.READ)
        )
    assert world.api.call(world.alice, "create", {"webhookConfig": tool_config(world)}).status_code == 200


@pytest.mark.parametrize(
    "body",
    [{}, {"webhookId": ""}, {"webhookId": 7}, {"webhookId": "x", "extra": True}],
)
def test_malformed_requests(world: World, body: dict[str, Any]) -> None:
    answer = world.api.call(world.owner, "get", body)
    assert answer.status_code == 400
    assert answer.json()["errors"]


def test_unknown_webhook_is_401(world: World) -> None:
    answer = world.api.call(world.owner, "get", {"webhookId": "f" * 32})
    assert answer.status_code == 401
    assert answer.json() == {"errors": ["Webhook not found"]}
