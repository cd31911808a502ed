"""Retention of execution history (issue 43): the retention API of a company admin, and the leader's sweep
deleting whole deliveries past the company's retention, with their payloads and replay records, while the
history's totals stay exact and what is gone answers as gone (not in the history, ``notFound`` to /replay)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update

from schemas.settings import Settings
from schemas.webhooks import ExecutionStatus
from sinks import webhook_bodies
from sinks.db.models import (
    Alert,
    AlertItem,
    AlertNotification,
    AlertRule,
    WebhookExecution,
    WebhookPayload,
    WebhookReplay,
)
from sinks.db.webhooks import executions
from sinks.objectstore import object_store
from tests.fixtures import postgres
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.retention import sweep
from tests.fixtures.stack import Ingress
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import TRIGGER, register_handler, tool_webhook

pytestmark = pytest.mark.integration

RETENTION = "/svc_poweruser/retention"
NOW = datetime.now(UTC)


def retention_call(
    world: World, key: str, operation: str, body: Mapping[str, object]
) -> tuple[int, dict[str, Any]]:
    answer = world.api.client.post(f"{RETENTION}/{operation}", headers={"Authorization": key}, json=body)
    return answer.status_code, answer.json()


def seed(
    world: World,
    webhook_id: str,
    execution_id: str,
    received: datetime,
    status: ExecutionStatus,
    *,
    company_id: str | None = None,
    attempts: int = 1,
    payload_id: str | None = None,
) -> str:
    """One delivery of ``attempts`` attempts (the last in ``status``, the others FAILED); its payload id."""
    company = company_id or world.company_id
    with world.db.sessions.begin() as session:
        if payload_id is None:
            payload_id = executions.store_payload(
                session, company, webhook_id, json.dumps({"id": execution_id}), "{}"
            )
        for attempt in range(1, attempts + 1):
            entry = executions.add_entry(
                session,
                WebhookExecution(
                    execution_id=execution_id,
                    webhook_id=webhook_id,
                    company_id=company,
                    payload_id=payload_id,
                    attempt_number=attempt,
                    status=ExecutionStatus.QUEUED.value,
                    queued_at=received + timedelta(minutes=attempt - 1),
                    webhook_name="orders",
                    http_method="POST",
                    transform_type="JSONPATH",
                ),
            )
            final = status if attempt == attempts else ExecutionStatus.FAILED
            executions.set_status(session, entry, final)
    return payload_id


def history(world: World, webhook_id: str, status: str | None = None) -> dict[str, Any]:
    body: dict[str, object] = {"webhookId": webhook_id, "size": 100}
    if status:
        body["status"] = status
    return world.api.ok(world.owner, "get-execution-history", body)


def ids_in(page: dict[str, Any]) -> set[str]:
    return {entry["executionId"] for entry in page["history"]}


def test_a_company_admin_reads_and_sets_its_retention_and_no_other_company_changes(
    world: World, kafka_settings: Settings
) -> None:
    admin, outsider = world.admin.key, world.outsider.key
    defaults = {
        "historySeconds": kafka_settings.history_retention_seconds,
        "runsSeconds": kafka_settings.runs_retention_seconds,
        "jobsSeconds": kafka_settings.jobs_retention_seconds,
    }
    assert retention_call(world, admin, "get", {}) == (200, defaults)
    assert defaults == {"historySeconds": 30 * 86400, "runsSeconds": 90 * 86400, "jobsSeconds": 30 * 86400}

    status, answer = retention_call(world, admin, "update", {"historySeconds": 3600, "jobsSeconds": 7200})
    assert status == 200
    assert answer == {**defaults, "historySeconds": 3600, "jobsSeconds": 7200}
    assert retention_call(world, admin, "get", {})[1] == answer
    assert retention_call(world, outsider, "get", {}) == (200, defaults)

    # An omitted field keeps its value; null goes back to the service's.
    status, answer = retention_call(world, admin, "update", {"jobsSeconds": None})
    assert (status, answer) == (200, {**defaults, "historySeconds": 3600})

    for bad in ({"historySeconds": 3599}, {"runsSeconds": 10 * 365 * 86400 + 1}, {}, {"days": 3}):
        status, answer = retention_call(world, admin, "update", bad)
        assert status == 400, bad
        assert answer["errors"], bad
    assert retention_call(world, admin, "get", {})[1] == {**defaults, "historySeconds": 3600}

    status, answer = retention_call(world, world.alice.key, "update", {"historySeconds": 3600})
    assert status == 403 and answer["errors"]
    assert retention_call(world, world.alice.key, "get", {})[0] == 403
    assert retention_call(world, "not-a-key", "get", {})[0] == 401


def test_deliveries_past_the_retention_are_gone_whole_and_the_totals_stay_exact(
    world: World, kafka_settings: Settings
) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    old = NOW - timedelta(hours=3)
    seed(world, webhook_id, "a" * 32, old, ExecutionStatus.SUCCESS)
    seed(world, webhook_id, "b" * 32, old + timedelta(seconds=1), ExecutionStatus.FAILED, attempts=3)
    # Still in flight: kept whatever its age, so its worker finds it.
    seed(world, webhook_id, "c" * 32, old, ExecutionStatus.QUEUED, attempts=2)
    shared = seed(world, webhook_id, "d" * 32, old, ExecutionStatus.FAILED)
    # A recent replay of d shares d's payload: d goes, the payload stays for the replay.
    seed(world, webhook_id, "e" * 32, NOW - timedelta(minutes=5), ExecutionStatus.SUCCESS, payload_id=shared)
    with world.db.sessions.begin() as session:
        session.add(
            WebhookReplay(
                execution_id="e" * 32,
                company_id=world.company_id,
                webhook_id=webhook_id,
                original_execution_id="d" * 32,
            )
        )
    seed(world, webhook_id, "f" * 32, NOW - timedelta(minutes=30), ExecutionStatus.FILTERED)
    before = history(world, webhook_id)
    assert before["totalElements"] == 1 + 3 + 2 + 1 + 1 + 1

    swept = sweep(kafka_settings, NOW, history_retention_seconds=3600)
    assert (swept.executions, swept.entries, swept.payloads) == (3, 5, 2)

    after = history(world, webhook_id)
    assert ids_in(after) == {"c" * 32, "e" * 32, "f" * 32}
    assert after["totalElements"] == len(after["history"]) == 2 + 1 + 1
    failed = history(world, webhook_id, "FAILED")
    assert failed["totalElements"] == len(failed["history"]) == 1  # c's first attempt
    replayed = [entry for entry in after["history"] if entry["executionId"] == "e" * 32]
    assert replayed[0]["executionDetails"]["requestPayload"] == json.dumps({"id": "d" * 32})
    with world.db.sessions() as session:
        payloads = session.scalar(select(func.count()).select_from(WebhookPayload))
        assert payloads == 3  # c's, d's (shared with e), f's
        assert session.scalar(select(func.count()).select_from(WebhookReplay)) == 1

    answer = world.api.ok(
        world.owner, "replay", {"webhookId": webhook_id, "executionIds": ["a" * 32, "f" * 32], "dryRun": True}
    )
    assert answer["notFound"] == ["a" * 32]
    assert answer["matched"] == 1

    # The replay is past the retention in its turn: its replay record and the shared payload go with it.
    swept = sweep(kafka_settings, NOW + timedelta(hours=2), history_retention_seconds=3600)
    assert (swept.executions, swept.payloads) == (2, 2)  # e and f; c is still in flight
    with world.db.sessions() as session:
        assert session.scalar(select(func.count()).select_from(WebhookReplay)) == 0
    assert ids_in(history(world, webhook_id)) == {"c" * 32}
    assert sweep(kafka_settings, NOW + timedelta(hours=2), history_retention_seconds=3600).executions == 0


def test_a_company_value_applies_to_its_own_records_only(world: World, kafka_settings: Settings) -> None:
    ours = world.api.create(world.owner)["webhook"]["id"]
    theirs = world.api.ok(world.outsider, "create", {"webhookConfig": {"name": "theirs"}})["webhook"]
    two_hours_ago = NOW - timedelta(hours=2)
    seed(world, ours, "1" * 32, two_hours_ago, ExecutionStatus.SUCCESS)
    their_company = theirs["companyId"]
    seed(world, theirs["id"], "2" * 32, two_hours_ago, ExecutionStatus.SUCCESS, company_id=their_company)

    status, _ = retention_call(world, world.admin.key, "update", {"historySeconds": 3600})
    assert status == 200
    swept = sweep(kafka_settings, NOW)  # the service keeps 30 days
    assert swept.executions == 1
    assert ids_in(history(world, ours)) == set()
    their_history = world.api.ok(world.outsider, "get-execution-history", {"webhookId": theirs["id"]})
    assert ids_in(their_history) == {"2" * 32}


def test_a_backlog_past_several_batches_goes_in_one_round_whatever_is_still_in_flight(
    world: World, kafka_settings: Settings
) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    old = NOW - timedelta(days=2)
    # More deliveries still in flight than a batch holds, all older than the ones to delete.
    for n in range(300):
        seed(world, webhook_id, f"a{n:031x}", old + timedelta(seconds=n), ExecutionStatus.QUEUED)
    for n in range(600):
        seed(world, webhook_id, f"b{n:031x}", old + timedelta(hours=1, seconds=n), ExecutionStatus.SUCCESS)
    swept = sweep(kafka_settings, NOW, history_retention_seconds=3600)
    assert swept.executions == 600
    # The space comes back: SQLite's freed pages are given back to the file system in the same round.
    assert (swept.pages_reclaimed > 0) is (postgres.backend() == "sqlite")
    page = history(world, webhook_id)
    assert page["totalElements"] == 300
    assert all(entry["executionId"].startswith("a") for entry in page["history"])


class ShortRetentionWorker(Worker):
    """A worker whose service keeps history for two seconds and sweeps every second."""

    def env(self) -> dict[str, str]:
        return {**super().env(), "SVC_HISTORY_RETENTION_SECONDS": "2", "SVC_RETENTION_SWEEP_SECONDS": "1"}


def test_the_leader_worker_sweeps_on_its_own_with_the_settings_retention(
    world: World, ingress: Ingress, kafka_settings: Settings, handler: RecordingHandler, tmp_path: Path
) -> None:
    webhook_id, key = tool_webhook(world, register_handler(world, handler))
    worker = ShortRetentionWorker(kafka_settings, tmp_path / "worker.log")
    worker.start()
    try:
        answer = ingress.client.post(
            TRIGGER,
            params={"resourceId": webhook_id},
            headers={"Authorization": key},
            json={"order": {"id": 1}},
        )
        assert answer.status_code == 202, answer.text
        deadline = time.monotonic() + 60
        while not handler.calls or history(world, webhook_id)["totalElements"]:
            assert time.monotonic() < deadline, history(world, webhook_id)
            time.sleep(0.2)
    finally:
        worker.stop()
    assert len(handler.calls) == 1
    with world.db.sessions() as session:
        assert session.scalar(select(func.count()).select_from(WebhookPayload)) == 0


def test_a_body_stored_by_reference_goes_with_its_delivery(world: World, kafka_settings: Settings) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    store = object_store(kafka_settings)
    kept, expired = (
        webhook_bodies.put(store, world.company_id, webhook_id, b'{"big": "' + b"x" * 100_000 + b'"}')
        for _ in range(2)
    )
    for execution_id, received, offloaded in (
        ("o" * 32, NOW - timedelta(days=2), expired),
        ("n" * 32, NOW, kept),
    ):
        payload_id = seed(world, webhook_id, execution_id, received, ExecutionStatus.SUCCESS)
        with world.db.sessions.begin() as session:
            session.execute(
                update(WebhookPayload)
                .where(WebhookPayload.id == payload_id)
                .values(
                    request_payload="",
                    body_key=offloaded.ref.key,
                    body_bytes=offloaded.ref.size,
                    body_sha256=offloaded.ref.sha256,
                )
            )
    swept = sweep(kafka_settings, NOW, history_retention_seconds=3600)
    assert (swept.executions, swept.payloads, swept.bodies) == (1, 1, 1)
    assert not store.exists(expired.ref.key)
    assert store.exists(kept.ref.key)
    (entry,) = history(world, webhook_id)["history"]
    assert entry["executionDetails"]["requestPayload"].startswith('{"big": "xxx')


def test_resolved_alerts_follow_the_history_retention_once_their_notifications_are_sent(
    world: World, kafka_settings: Settings
) -> None:
    old, recent = NOW - timedelta(days=2), NOW - timedelta(minutes=5)
    with world.db.sessions.begin() as session:
        session.add(
            AlertRule(
                id="r" * 32,
                company_id=world.company_id,
                name="failures",
                condition_type="WEBHOOK_FAILURES",
                condition_json="{}",
                resolve_after_seconds=60,
                sealed_secret="sealed",
                checked_until=NOW,
            )
        )
        session.flush()
        for alert_id, state, resolved, note in (
            ("a" * 32, "RESOLVED", old, "SENT"),
            ("b" * 32, "RESOLVED", old, "PENDING"),  # its notification is still owed
            ("c" * 32, "ACKNOWLEDGED", None, None),
            ("d" * 32, "RESOLVED", recent, "SENT"),
        ):
            session.add(
                Alert(
                    id=alert_id,
                    company_id=world.company_id,
                    rule_id="r" * 32,
                    condition_type="WEBHOOK_FAILURES",
                    subject_kind="WEBHOOK",
                    subject_id=alert_id,
                    state=state,
                    counted_until=old,
                    opened_at=old - timedelta(hours=1),
                    resolved_at=resolved,
                )
            )
            session.flush()
            session.add(
                AlertItem(
                    alert_id=alert_id, item_id="x", company_id=world.company_id, kind="EXECUTION", at=old
                )
            )
            if note:
                session.add(
                    AlertNotification(
                        id=alert_id[:31] + "n",
                        company_id=world.company_id,
                        alert_id=alert_id,
                        rule_id="r" * 32,
                        alert_state="RESOLVED",
                        resource_id="t" * 32,
                        body="{}",
                        status=note,
                    )
                )
    swept = sweep(kafka_settings, NOW, history_retention_seconds=3600)
    assert swept.alerts == 1
    with world.db.sessions() as session:
        assert set(session.scalars(select(Alert.id))) == {"b" * 32, "c" * 32, "d" * 32}
        assert set(session.scalars(select(AlertItem.alert_id))) == {"b" * 32, "c" * 32, "d" * 32}
        assert "a" * 32 not in set(session.scalars(select(AlertNotification.alert_id)))
