"""A webhook whose handler is a svcdb operation: the row change reaches the analytics table, exactly once."""

import json

import pytest

from tests.fixtures.stack import Ingress
from tests.fixtures.tables import Tables
from tests.fixtures.worker import Worker
from tests.integration.webhooks.delivery_helpers import TRIGGER

pytestmark = pytest.mark.integration

TICKETS = {
    "sqlName": "tickets",
    "name": "Tickets",
    "columns": [
        {"name": "ticket", "type": "STRING", "nullable": False},
        {"name": "status", "type": "STRING"},
        {"name": "priority", "type": "LONG"},
    ],
}


def hook(tables_world: Tables, table_id: str, svc_db_config: dict[str, object]) -> tuple[str, str]:
    config = {
        "name": "tickets",
        "payloadTransformConfig": {
            "jsonPathMappings": {"id": "$.ticket", "state": "$.status", "p": "$.priority"}
        },
        "resourceExecutionConfig": {
            "resourceType": "SVCDB",
            "svcDbConfig": {"targetTableId": table_id, **svc_db_config},
        },
        "executionSettings": {"timeoutSeconds": 30, "maxRetries": 1, "retryDelaySeconds": 0},
    }
    answer = tables_world.client.post(
        "/svc_poweruser/custom-webhooks/create",
        headers={"Authorization": tables_world.admin_power},
        json={"webhookConfig": config},
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["webhook"]["id"], answer.json()["apiKey"]


def history(tables_world: Tables, webhook_id: str) -> list[dict[str, object]]:
    answer = tables_world.client.post(
        "/svc_poweruser/custom-webhooks/get-execution-history",
        headers={"Authorization": tables_world.admin_power},
        json={"webhookId": webhook_id},
    )
    return list(answer.json()["history"])


def fire_and_wait(
    tables_world: Tables, ingress: Ingress, webhook_id: str, key: str, body: dict[str, object]
) -> dict[str, object]:
    import time

    answer = ingress.client.post(
        TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": key}, json=body
    )
    assert answer.status_code == 202, answer.text
    execution_id = answer.json()["executionId"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        entries = [e for e in history(tables_world, webhook_id) if e["executionId"] == execution_id]
        if entries and entries[0]["status"] in ("SUCCESS", "FAILED"):
            return entries[0]
        time.sleep(0.2)
    raise AssertionError("the delivery did not finish")


def test_insert_then_update_through_webhooks(tables_world: Tables, ingress: Ingress, worker: Worker) -> None:
    table_id = tables_world.create(TICKETS)
    text = {"columnType": "SHORT_TEXT"}
    insert_id, insert_key = hook(
        tables_world,
        table_id,
        {
            "operation": "INSERT",
            "values": {
                "ticket": {**text, "textValue": "@@{id}"},
                "status": {**text, "textValue": "@@{state}"},
                "priority": {"columnType": "NUMBER", "integerValue": "@@{p}"},
            },
        },
    )
    entry = fire_and_wait(
        tables_world, ingress, insert_id, insert_key, {"ticket": "T-1", "status": "open", "priority": 2}
    )
    assert entry["status"] == "SUCCESS", entry["executionDetails"]["errorMessage"]  # type: ignore[index]
    assert json.loads(str(entry["executionDetails"]["resourceResponseJson"]))["status"] == "COMMITTED"  # type: ignore[index]
    fire_and_wait(
        tables_world, ingress, insert_id, insert_key, {"ticket": "T-2", "status": "open", "priority": 5}
    )

    update_id, update_key = hook(
        tables_world,
        table_id,
        {
            "operation": "UPDATE",
            "values": {"status": {**text, "textValue": "@@{state}"}},
            "whereGroups": [
                {
                    "logicalOperator": "AND",
                    "conditions": [{"columnName": "ticket", "operator": "EQUALS", "value": "@@{id}"}],
                }
            ],
        },
    )
    updated = fire_and_wait(
        tables_world, ingress, update_id, update_key, {"ticket": "T-1", "status": "closed"}
    )
    assert updated["status"] == "SUCCESS", updated
    rows = {row["ticket"]: row for row in tables_world.wait_rows(table_id, 2)}
    assert rows["T-1"]["status"] == "closed"
    assert rows["T-1"]["priority"] == 2
    assert rows["T-2"]["status"] == "open"
    assert len(tables_world.wait_rows(table_id, 2)) == 2

    bad = fire_and_wait(
        tables_world, ingress, insert_id, insert_key, {"ticket": "T-3", "status": "open", "priority": "high"}
    )
    assert bad["status"] == "FAILED"
    assert "not an integer" in str(bad["executionDetails"]["errorMessage"])  # type: ignore[index]


def test_the_target_table_must_exist_and_be_writable(tables_world: Tables, ingress: Ingress) -> None:
    config = {
        "name": "x",
        "resourceExecutionConfig": {
            "resourceType": "SVCDB",
            "svcDbConfig": {"operation": "DELETE", "targetTableId": "f" * 32, "recordId": "1"},
        },
    }
    answer = tables_world.client.post(
        "/svc_poweruser/custom-webhooks/create",
        headers={"Authorization": tables_world.admin_power},
        json={"webhookConfig": config},
    )
    assert answer.status_code == 400
    assert "does not belong to your company" in answer.json()["errors"][0]
