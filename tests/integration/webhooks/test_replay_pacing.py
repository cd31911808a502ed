"""Issue 24, replay: what a replay writes, through the real stack (ingress, embedded broker, worker, and
SQLite or PostgreSQL). A replay whose pacing slot is not due yet is written QUEUED and not handed to Kafka;
the worker's sweep of due attempts hands it over at its slot. A replay shares its original's stored request
(payload row) instead of writing a copy."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from ingress.webhooks.replay import STEP
from schemas.settings import Settings
from sinks.db.models import WebhookExecution, WebhookPayload
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Ingress, make_settings
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

NO_RETRIES = {"timeoutSeconds": 5, "maxRetries": 0, "retryDelaySeconds": 0}
# One replay a second: of a call's replays only the first is due within the call's half-second window.
RATE = 1.0


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str) -> Settings:
    # The handler fails every delivery on purpose: its circuit must not open and hold the rest back.
    return make_settings(
        tmp_path / "data",
        kafka_bootstrap=kafka_bootstrap,
        replay_rate_per_second=RATE,
        circuit_failures=10_000,
    )


def _failed(
    world: World, ingress: Ingress, handler: RecordingHandler, orders: list[str]
) -> tuple[str, list[str]]:
    """A webhook whose handler failed every delivery of ``orders`` (no retries); the handler is then fixed."""
    handler.fail_first["*"] = 1_000
    webhook_id, key = tool_webhook(world, register_handler(world, handler), executionSettings=NO_RETRIES)
    ids = []
    for order in orders:
        answer = ingress.client.post(
            TRIGGER,
            params={"resourceId": webhook_id},
            headers={"Authorization": key},
            json={"order": {"id": order}},
        )
        assert answer.status_code == 202, answer.text
        ids.append(answer.json()["executionId"])
    wait_for(world, webhook_id, lambda es: len(es) == len(ids) and all(e["status"] == "FAILED" for e in es))
    handler.fail_first.clear()
    return webhook_id, ids


def _attempts(world: World, execution_ids: list[str]) -> dict[str, Any]:
    with world.db.sessions() as session:
        rows = session.execute(
            select(WebhookExecution).where(
                WebhookExecution.company_id == world.company_id,
                WebhookExecution.execution_id.in_(execution_ids),
                WebhookExecution.attempt_number == 1,
            )
        ).scalars()
        return {row.execution_id: row for row in rows}


def _at(text: str) -> datetime:
    """An answer's timestamp (UTC, no offset, to the millisecond)."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


MS = timedelta(milliseconds=1)  # the answers' timestamps are cut to the millisecond


def test_a_replay_not_due_yet_waits_in_the_database_until_the_sweep_hands_it_over(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, originals = _failed(world, ingress, handler, ["P-1", "P-2", "P-3", "P-4"])

    answer = world.api.ok(world.owner, "replay", {"webhookId": webhook_id, "executionIds": originals})
    replayed = [entry["executionId"] for entry in answer["executions"]]
    due = {entry["executionId"]: _at(entry["dueAt"]) for entry in answer["executions"]}
    assert all(entry["status"] == "QUEUED" for entry in answer["executions"])
    last = replayed[-1]  # its slot is 3 s after the first: not due within the call's half-second window
    held = _attempts(world, [last])[last]
    assert (held.status, held.dispatched_at) == ("QUEUED", None)
    assert due[last] <= held.available_at < due[last] + MS

    entries = wait_for(
        world, webhook_id, lambda es: sum(e["status"] == "SUCCESS" for e in es) == len(replayed), timeout=90
    )
    assert {e["executionId"] for e in entries if e["status"] == "SUCCESS"} == set(replayed)
    started = _attempts(world, replayed)
    # The sweep hands an attempt over only once its slot is due: none started before its dueAt.
    assert all(started[i].started_at is not None and started[i].started_at >= due[i] for i in replayed)


def test_a_replay_shares_its_originals_stored_request(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, originals = _failed(world, ingress, handler, ["S-1", "S-2"])

    def payload_rows() -> int:
        with world.db.sessions() as session:
            count = (
                select(func.count())
                .select_from(WebhookPayload)
                .where(WebhookPayload.webhook_id == webhook_id)
            )
            return int(session.scalar(count) or 0)

    before = payload_rows()
    answer = world.api.ok(world.owner, "replay", {"webhookId": webhook_id, "executionIds": originals})
    assert answer["replayed"] == 2
    pairs = {e["originalExecutionId"]: e["executionId"] for e in answer["executions"]}
    attempts = _attempts(world, [*pairs, *pairs.values()])
    assert payload_rows() == before  # no copy of the stored requests was written
    for original, replay in pairs.items():
        assert attempts[replay].payload_id == attempts[original].payload_id
    entries = {
        e["executionId"]: e
        for e in wait_for(
            world, webhook_id, lambda es: sum(e["status"] == "SUCCESS" for e in es) == 2, timeout=90
        )
    }
    for original, replay in pairs.items():
        mine, theirs = entries[replay]["executionDetails"], entries[original]["executionDetails"]
        assert mine["replayOf"] == original
        assert (mine["requestPayload"], mine["requestHeaders"]) == (
            theirs["requestPayload"],
            theirs["requestHeaders"],
        )
    sent = {call["body"]["executionId"]: call["body"]["variables"]["order"] for call in handler.calls}
    assert [sent[pairs[original]] for original in originals] == ["S-1", "S-2"]


def test_a_call_of_several_steps_takes_consecutive_slots(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    orders = [f"M-{n}" for n in range(STEP + 4)]  # more than one step of the call
    webhook_id, originals = _failed(world, ingress, handler, orders)

    answer = world.api.ok(world.owner, "replay", {"webhookId": webhook_id, "executionIds": originals})
    assert answer["replayed"] == len(orders)
    assert [e["originalExecutionId"] for e in answer["executions"]] == originals
    due = [_at(e["dueAt"]) for e in answer["executions"]]
    # One slot each, 1/rate apart, across the steps' group commits (the answers are cut to the millisecond).
    gaps = [later - earlier for earlier, later in itertools.pairwise(due)]
    assert all(abs(gap - timedelta(seconds=1 / RATE)) <= MS for gap in gaps), gaps
    assert history(world, webhook_id)["totalElements"] == 2 * len(orders)
