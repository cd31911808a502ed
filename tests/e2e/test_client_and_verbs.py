"""The typed client (clients/python) and the remote CLI verbs against ``svc up``: a webhook, a trigger and its
history, a replay, a schedule and its preview, a table and a query read page by page.

One stack for the module: every test here only reads and adds, each on its own webhook or query."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from svc_client.api.analytics_administration import (
    create_table_svc_poweruser_analytics_tables_create_post as create_table,
)
from svc_client.api.custom_webhooks import (
    create_webhook_svc_poweruser_custom_webhooks_create_post as create_webhook,
)
from svc_client.api.scheduled_events import (
    create_event_clients_scheduled_events_create_post as create_event,
)
from svc_client.api.scheduled_events import (
    preview_schedule_clients_scheduled_events_preview_post as preview_schedule,
)
from svc_client.easy import SvcClient
from svc_client.models.create_event_request import CreateEventRequest
from svc_client.models.create_table_request import CreateTableRequest
from svc_client.models.create_webhook_request import CreateWebhookRequest
from svc_client.models.created_answer import CreatedAnswer
from svc_client.models.created_table import CreatedTable
from svc_client.models.created_webhook_answer import CreatedWebhookAnswer
from svc_client.models.schedule_preview_answer import SchedulePreviewAnswer
from svc_client.models.schedule_preview_request import SchedulePreviewRequest

from tests.fixtures.handler import RecordingHandler, serving
from tests.fixtures.processes import admin
from tests.fixtures.tables import ORDER_ROWS, ORDERS
from tests.fixtures.up import Up, poll

pytestmark = pytest.mark.e2e


@dataclass
class World:
    up: Up
    client_key: str
    poweruser_key: str
    tool_id: str
    failing_tool_id: str
    table_id: str

    def svc(self) -> SvcClient:
        return SvcClient(self.up.url, self.client_key, self.poweruser_key)

    def webhook(self, name: str, tool_id: str) -> tuple[str, str]:
        """A new webhook on ``tool_id`` with no retry: its id and its key."""
        config = {
            "name": name,
            "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": tool_id},
            "executionSettings": {"timeoutSeconds": 10, "maxRetries": 0, "retryDelaySeconds": 1},
        }
        with self.svc() as svc:
            made = create_webhook.sync(
                client=svc.authenticated(self.poweruser_key),
                body=CreateWebhookRequest.from_dict({"webhookConfig": config}),
            )
        assert isinstance(made, CreatedWebhookAnswer), made
        return made.webhook.id, made.api_key

    def verb(self, *argv: str, key: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "svc", *argv],
            env={**self.up.env, "SVC_URL": self.up.url, "SVC_KEY": key},
            capture_output=True,
            text=True,
            timeout=120,
        )


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("client")
    up = Up(root / "data")
    working = RecordingHandler(log_path=root / "ok.log")
    failing = RecordingHandler(log_path=root / "failing.log", fail_first={"*": 1000})
    with serving(working), serving(failing):
        try:
            up.start()
            company = admin("create-company", "--name", "Acme", "--admin-email", "boss@acme.test", env=up.env)
            tools = [
                admin(
                    "create-resource",
                    "--company-id",
                    company["companyId"],
                    "--type",
                    "TOOL",
                    "--name",
                    name,
                    "--endpoint",
                    handler.url,
                    env=up.env,
                )["resourceId"]
                for name, handler in (("recorder", working), ("failing", failing))
            ]
            with SvcClient(up.url, company["clientApiKey"], company["poweruserKey"]) as svc:
                table = create_table.sync(
                    client=svc.authenticated(company["poweruserKey"]),
                    body=CreateTableRequest.from_dict(ORDERS),
                )
                assert isinstance(table, CreatedTable), table
            yield World(
                up, company["clientApiKey"], company["poweruserKey"], tools[0], tools[1], table.table_id
            )
        finally:
            up.kill()


def berlin(moment: str) -> datetime:
    """A fire time on Berlin's wall clock (fire times carry their zone's offset)."""
    parsed = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(ZoneInfo("Europe/Berlin"))


def settled(svc: SvcClient, webhook_id: str, execution_id: str, status: str) -> Callable[[], bool]:
    return lambda: any(
        entry.execution_id == execution_id and entry.status.value == status
        for entry in svc.history(webhook_id)
    )


def appended_rows(world: World) -> None:
    """ORDER_ROWS in the table, once: the append is a job, visible to queries when it has committed."""
    with world.svc() as svc:
        count = svc.query(world.table_id, "SELECT count(*) AS n FROM orders", wait_ms=10_000)
        if svc.wait_for_job(world.table_id, count["jobId"])["state"] == "SUCCEEDED" and next(
            svc.result_rows(world.table_id, count["jobId"])
        )["n"] == len(ORDER_ROWS):
            return
        assert svc.append_rows(world.table_id, ORDER_ROWS)["accepted"] == len(ORDER_ROWS)

        def visible() -> bool:
            job = svc.query(
                world.table_id, "SELECT count(*) AS n FROM orders", wait_ms=5000, useQueryCache=False
            )
            svc.wait_for_job(world.table_id, job["jobId"])
            return bool(next(svc.result_rows(world.table_id, job["jobId"]))["n"] == len(ORDER_ROWS))

        poll(visible, 90, "the appended rows are read")


def test_the_client_triggers_a_webhook_and_reads_its_history(world: World) -> None:
    webhook_id, webhook_key = world.webhook("client orders", world.tool_id)
    with world.svc() as svc:
        triggered = svc.trigger(webhook_id, webhook_key, {"order": 1}, idempotency_key="order-1")
        execution_id = triggered["executionId"]
        poll(settled(svc, webhook_id, execution_id, "SUCCESS"), 60, "the delivery succeeded")
        again = svc.trigger(webhook_id, webhook_key, {"order": 1}, idempotency_key="order-1")
        assert again["duplicate"] is True and again["executionId"] == execution_id
        entries = list(svc.history(webhook_id))
        assert [entry.execution_id for entry in entries] == [execution_id]
        assert json.loads(entries[0].execution_details.request_payload) == {"order": 1}


def test_the_client_creates_a_schedule_and_previews_it(world: World) -> None:
    body = {
        "eventName": "weekday report",
        "scheduleSpec": {
            "pattern": "CRON",
            "cron": {"expression": "0 9 ? * MON-FRI *", "timezone": "Europe/Berlin"},
        },
        "actionType": "INVOKE_TOOL",
        "toolConfig": {"toolExecutionRequest": {"toolId": world.tool_id, "variables": {"kind": "daily"}}},
    }
    with world.svc() as svc:
        client = svc.authenticated(world.client_key)
        created = create_event.sync(client=client, body=CreateEventRequest.from_dict(body))
        assert isinstance(created, CreatedAnswer), created
        request = SchedulePreviewRequest.from_dict({"scheduledEventId": created.event_id, "count": 5})
        preview = preview_schedule.sync(client=client, body=request)
    assert isinstance(preview, SchedulePreviewAnswer), preview
    assert preview.timezone == "Europe/Berlin" and len(preview.fire_times) == 5
    assert all(berlin(moment).weekday() < 5 and berlin(moment).hour == 9 for moment in preview.fire_times)


def test_the_client_waits_for_a_query_and_reads_it_page_by_page(world: World) -> None:
    appended_rows(world)
    with world.svc() as svc:
        job = svc.query(world.table_id, "SELECT order_id, region FROM orders ORDER BY order_id")
        seen: list[str] = []
        done = svc.wait_for_job(
            world.table_id, job["jobId"], on_status=lambda status: seen.append(status["state"])
        )
        assert done["state"] == "SUCCEEDED" and seen[-1] == "SUCCEEDED"
        pages = list(svc.result_pages(world.table_id, job["jobId"], page_size=3))
        rows = list(svc.result_rows(world.table_id, job["jobId"], page_size=3))
    assert [len(page["rows"]) for page in pages] == [3, 1]
    assert [row["order_id"] for row in rows] == [1, 2, 3, 4]


class Receiver(BaseHTTPRequestHandler):
    bodies: list[bytes] = []

    def do_POST(self) -> None:
        self.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *_: Any) -> None:
        pass


def test_svc_tail_prints_each_delivery_and_forwards_its_body(world: World) -> None:
    webhook_id, webhook_key = world.webhook("tailed", world.tool_id)
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    forward = f"http://127.0.0.1:{receiver.server_port}/hook"
    tail = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "svc",
            "tail",
            webhook_id,
            "--json",
            "--limit",
            "1",
            "--interval",
            "0.3",
            "--forward",
            forward,
        ],
        env={**world.up.env, "SVC_URL": world.up.url, "SVC_KEY": world.poweruser_key},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert tail.stderr is not None and "tailing webhook" in tail.stderr.readline()
        with world.svc() as svc:
            execution_id = svc.trigger(webhook_id, webhook_key, {"order": 7})["executionId"]
        out, err = tail.communicate(timeout=60)
    finally:
        tail.kill()
        receiver.shutdown()
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[-1]["status"] == "SUCCESS" and lines[-1]["executionId"] == execution_id, (out, err)
    assert lines[-1]["attempt"] == 1 and isinstance(lines[-1]["durationMs"], int)
    assert [json.loads(body) for body in Receiver.bodies] == [{"order": 7}]
    assert f"-> {forward}: 204" in err


def test_svc_replay_sends_failed_deliveries_again(world: World) -> None:
    webhook_id, webhook_key = world.webhook("failing", world.failing_tool_id)
    with world.svc() as svc:
        execution_id = svc.trigger(webhook_id, webhook_key, {"order": 9})["executionId"]
        poll(settled(svc, webhook_id, execution_id, "FAILED"), 60, "the delivery failed")
    dry = world.verb(
        "replay", webhook_id, "--status", "FAILED", "--dry-run", "--json", key=world.poweruser_key
    )
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["matched"] == 1 and json.loads(dry.stdout)["replayed"] == 0
    since = "2000-01-01T00:00:00Z"
    sent = world.verb("replay", webhook_id, "--status", "FAILED", "--from", since, key=world.poweruser_key)
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout.splitlines()[0] == "matched 1, replayed 1"
    assert sent.stdout.splitlines()[1].startswith(f"  {execution_id} -> ")
    refused = world.verb("replay", webhook_id, "--status", "FAILED", key=world.client_key)
    assert refused.returncode == 1 and refused.stderr.startswith("svc replay: 401")


def test_svc_query_prints_every_page_with_progress_on_stderr(world: World) -> None:
    appended_rows(world)
    sql = "SELECT order_id, region FROM orders ORDER BY order_id"
    done = world.verb(
        "query", sql, "--table", world.table_id, "--format", "csv", "--page-size", "3", key=world.client_key
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "order_id,region\n1,EU\n2,US\n3,EU\n4,APAC\n"
    assert "SUCCEEDED" in done.stderr.splitlines()[-1]
    table = world.verb("query", sql, "--table", world.table_id, key=world.client_key)
    assert table.stdout.splitlines()[0].split() == ["order_id", "region"] and "(4 rows)" in table.stdout
    as_json = world.verb("query", sql, "--table", world.table_id, "--json", key=world.client_key)
    assert [row["order_id"] for row in json.loads(as_json.stdout)["rows"]] == [1, 2, 3, 4]
    bad = world.verb("query", "SELECT nope FROM orders", "--table", world.table_id, key=world.client_key)
    assert bad.returncode == 1 and bad.stderr.startswith("svc query: 400")


def test_svc_schedules_preview_lists_the_next_fire_times(world: World) -> None:
    shown = world.verb(
        "schedules",
        "preview",
        "cron(0 9 ? * MON-FRI *)",
        "--timezone",
        "Europe/Berlin",
        "--count",
        "4",
        "--json",
        key=world.client_key,
    )
    assert shown.returncode == 0, shown.stderr
    answer = json.loads(shown.stdout)
    assert answer["timezone"] == "Europe/Berlin" and len(answer["fireTimes"]) == 4
    for moment in answer["fireTimes"]:
        local = berlin(moment)
        assert local.weekday() < 5 and (local.hour, local.minute) == (9, 0), moment
    text = world.verb("schedules", "preview", "rate(1 hour)", "--count", "2", key=world.client_key)
    assert text.stdout.splitlines()[0] == "next 2 fire times (UTC):"
