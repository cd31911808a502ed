"""Each action end to end through a real worker: svcdb writes, a missing table, an agent, failures. (Two
workers firing each scheduled time once: test_actions_two_workers.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pyiceberg.expressions import EqualTo

from schemas.admin import ResourceSpec
from schemas.settings import Settings
from sinks.db import resources
from sinks.iceberg import catalog as iceberg
from tests.fixtures import module_stack
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import make_settings
from tests.fixtures.tables import Tables
from tests.fixtures.two_workers import wait_until
from tests.fixtures.worker import Worker
from tests.integration.scheduled.conftest import BASE, Scene, tool_event
from tests.integration.scheduled.test_firing import handler_tool, make_due, once_in, runs

pytestmark = pytest.mark.integration

TICKETS = {
    "sqlName": "tickets",
    "name": "Tickets",
    "columns": [
        {"name": "ticket", "type": "STRING", "nullable": False},
        {"name": "status", "type": "STRING"},
    ],
}
EVERY_MINUTE = {"pattern": "EVERY", "every": {"value": 1, "unit": "MINUTES"}}
TEXT = {"columnType": "SHORT_TEXT"}


# The module's one stack (tests/fixtures/module_stack.py); each test has its own companies, events and tables.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(stack_dir / "data", kafka_bootstrap=kafka_bootstrap)


@pytest.fixture
def scene(scene: Scene) -> Iterator[Scene]:
    """The scene, its events that would fire again switched off when the test ends: they would fire on the
    shared worker during a later test, at a handler that is gone (or at a later test's, on the same port)."""
    yield scene
    for event in scene.ok("all", {})["ownedEvents"]:
        if event["enabled"] and event.get("nextFireAt"):
            scene.ok("toggle", {"scheduledEventId": event["eventId"], "enabled": False})


def call(client: httpx.Client, key: str, operation: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = client.post(f"{BASE}/{operation}", headers={"Authorization": key}, json=body)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def svcdb_event(tables: Tables, config: dict[str, Any]) -> str:
    body = {
        "eventName": "ticket upkeep",
        "scheduleSpec": once_in(3),
        "actionType": "UPDATE_SVCDB",
        "svcDbConfig": config,
    }
    return str(call(tables.client, tables.admin_client, "create", body)["eventId"])


def final_run(client: httpx.Client, key: str, event_id: str) -> dict[str, Any]:
    def finished() -> dict[str, Any] | None:
        history = call(client, key, "runs", {"scheduledEventId": event_id})["runs"]
        done = [r for r in history if r["status"] in ("SUCCEEDED", "FAILED", "SKIPPED")]
        return done[0] if done else None

    result: dict[str, Any] = wait_until(finished, timeout=60)
    return result


def record_id(settings: Settings, company_id: str, table_id: str, ticket: str) -> int:
    """The ``_record_id`` of a row, read from the Iceberg table (the preview does not show it)."""
    catalog = iceberg.make_catalog(settings.resolved_database_url, settings.resolved_warehouse)
    table = catalog.load_table(iceberg.identifier_for(company_id, table_id))
    rows = table.scan(
        row_filter=EqualTo(term="ticket", value=ticket), selected_fields=("_record_id",)
    ).to_arrow()
    assert rows.num_rows == 1
    return int(rows.column("_record_id")[0].as_py())


def test_update_svcdb_inserts_then_updates_by_record_id(
    tables_world: Tables, worker: Worker, kafka_settings: Settings
) -> None:
    table_id = tables_world.create(TICKETS)
    values = {"ticket": {**TEXT, "textValue": "T-1"}, "status": {**TEXT, "textValue": "open"}}
    inserted = svcdb_event(tables_world, {"operation": "INSERT", "targetTableId": table_id, "values": values})
    run = final_run(tables_world.client, tables_world.admin_client, inserted)
    assert run["status"] == "SUCCEEDED", run
    (row,) = tables_world.wait_rows(table_id, 1)
    assert (row["ticket"], row["status"]) == ("T-1", "open")

    closed = {"status": {**TEXT, "textValue": "closed"}}
    update = {
        "operation": "UPDATE",
        "targetTableId": table_id,
        "values": closed,
        "recordId": record_id(kafka_settings, tables_world.company_id, table_id, "T-1"),
    }
    updated = svcdb_event(tables_world, update)
    run = final_run(tables_world.client, tables_world.admin_client, updated)
    assert run["status"] == "SUCCEEDED", run
    wait_until(lambda: tables_world.wait_rows(table_id, 1)[0]["status"] == "closed")
    (row,) = tables_world.wait_rows(table_id, 1)
    assert (row["ticket"], row["status"]) == ("T-1", "closed")


def test_a_missing_table_skips_or_fails_as_configured(tables_world: Tables, worker: Worker) -> None:
    table_id = tables_world.create(TICKETS)
    insert = {
        "operation": "INSERT",
        "targetTableId": table_id,
        "values": {"ticket": {**TEXT, "textValue": "x"}},
    }
    skipping = svcdb_event(tables_world, insert | {"skipIfTargetTableMissing": True})
    failing = svcdb_event(tables_world, insert | {"skipIfTargetTableMissing": False})
    assert tables_world.admin("drop", {"tableId": table_id}).status_code == 200

    skipped = final_run(tables_world.client, tables_world.admin_client, skipping)
    assert skipped["status"] == "SKIPPED" and table_id in skipped["errorMessage"]
    failed = final_run(tables_world.client, tables_world.admin_client, failing)
    assert failed["status"] == "FAILED"
    assert failed["errorMessage"] == f"Target table {table_id} not found"
    # UPDATE_SVCDB has no continueOnError: a failed run leaves the event enabled.
    event = call(tables_world.client, tables_world.admin_client, "get", {"scheduledEventId": failing})
    assert event["scheduledEvent"]["enabled"] is True


def test_invoke_agent_sends_its_input_and_environment(
    scene: Scene, worker: Worker, handler: RecordingHandler
) -> None:
    with scene.db.sessions.begin() as session:
        agent = resources.create_resource(
            session, scene.company_id, ResourceSpec(type="AGENT", name="digest", endpoint=handler.url)
        )
    items = [{"inputType": "TEXT", "content": "Summarise yesterday's tickets"}]
    request = {"agentId": agent.resource_id, "input": items, "environmentVariables": {"REGION": "eu-1"}}
    body = {
        "eventName": "daily digest",
        "scheduleSpec": once_in(3),
        "actionType": "INVOKE_AGENT",
        "agentConfig": {"agentExecutionRequest": request},
    }
    event_id = scene.ok("create", body)["eventId"]
    run = final_run(scene.client, scene.admin_key, event_id)
    assert run["status"] == "SUCCEEDED", run
    (sent,) = [c["body"] for c in handler.calls]
    assert sent["agentId"] == agent.resource_id and sent["eventId"] == event_id
    assert sent["input"] == items and sent["environmentVariables"] == {"REGION": "eu-1"}
    assert sent["runId"] == run["runId"] and sent["attemptNumber"] == 1


def test_continue_on_error_decides_whether_a_failure_stops_the_event(
    scene: Scene, worker: Worker, handler: RecordingHandler
) -> None:
    handler.fail_first["*"] = 1_000
    tool_id = handler_tool(scene, handler)
    stops = scene.ok("create", tool_event(tool_id, scheduleSpec=EVERY_MINUTE))["eventId"]
    keeps_body = tool_event(tool_id, scheduleSpec=EVERY_MINUTE)
    keeps_body["toolConfig"]["continueOnError"] = True
    keeps = scene.ok("create", keeps_body)["eventId"]
    for event_id in (stops, keeps):
        make_due(scene.db, scene.company_id, event_id)

    stopped_run = final_run(scene.client, scene.admin_key, stops)
    assert stopped_run["status"] == "FAILED" and stopped_run["attemptNumber"] == 1
    assert "continueOnError is false" in stopped_run["errorMessage"]
    stopped = scene.ok("get", {"scheduledEventId": stops})["scheduledEvent"]
    assert stopped["enabled"] is False and "nextFireAt" not in stopped

    kept_run = final_run(scene.client, scene.admin_key, keeps)
    assert kept_run["status"] == "FAILED" and "continueOnError" not in kept_run["errorMessage"]
    kept = scene.ok("get", {"scheduledEventId": keeps})["scheduledEvent"]
    assert kept["enabled"] is True and kept["nextFireAt"]
    # No retry of the failed run: the event's next fire is the next attempt.
    make_due(scene.db, scene.company_id, keeps)
    wait_until(
        lambda: len(runs(scene, keeps)) == 2 and all(r["status"] == "FAILED" for r in runs(scene, keeps))
    )
    assert all(r["attemptNumber"] == 1 for r in runs(scene, keeps))
    assert len(runs(scene, stops)) == 1
