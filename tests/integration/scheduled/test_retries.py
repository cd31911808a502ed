"""Issue 25 (retryPolicy, deadLetterConfig) through a real worker and broker: a run whose handler fails
retryably is tried again as the same run (same runId and idempotency key, rising attemptNumber) until it
succeeds; one that fails every attempt ends FAILED and its dead-letter record is on the topic exactly once;
maximumRetryAttempts 0 (the default) never retries. Retry delays are kept short through the settings."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemas.envelopes import Envelope
from schemas.settings import Settings
from schemas.topics import SCHEDULED_DEAD_LETTER
from tests.fixtures.broker import reading
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db
from tests.fixtures.two_workers import wait_until
from tests.fixtures.worker import Worker
from tests.integration.scheduled.conftest import Scene, tool_event
from tests.integration.scheduled.test_firing import handler_tool, make_due, runs

pytestmark = pytest.mark.integration

EVERY_MINUTE = {"pattern": "EVERY", "every": {"value": 1, "unit": "MINUTES"}}


class QuickRetryWorker(Worker):
    def env(self) -> dict[str, str]:
        return super().env() | {
            "SVC_SCHEDULER_RETRY_BASE_SECONDS": "0.2",
            "SVC_SCHEDULER_RETRY_MAX_SECONDS": "0.5",
        }


@pytest.fixture
def quick_worker(kafka_settings: Settings, ingress_db: Db, tmp_path: Path) -> Iterator[Worker]:
    running = QuickRetryWorker(kafka_settings, tmp_path / "worker.log")
    running.start()
    yield running
    running.stop()


def final(scene: Scene, event_id: str) -> list[dict[str, Any]]:
    return [run for run in runs(scene, event_id) if run["status"] in ("SUCCEEDED", "FAILED")]


async def dead_letters(settings: Settings, run_id: str, quiet_seconds: float) -> list[dict[str, Any]]:
    """Every dead-letter record of ``run_id``: read until one came and then nothing for ``quiet_seconds``."""
    found: list[dict[str, Any]] = []
    topic, group = settings.topic(SCHEDULED_DEAD_LETTER), f"{settings.worker_id}-dead-letter-reader-{run_id}"
    async with reading(settings, topic, group) as consumer:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            wait = quiet_seconds if found else deadline - time.monotonic()
            try:
                record = await asyncio.wait_for(consumer.getone(), timeout=max(wait, 0.1))
            except TimeoutError:
                if found:
                    break
                continue
            envelope = Envelope.from_bytes(record.value)
            assert envelope.type == "scheduled.dead-letter" and envelope.v == 1
            if envelope.payload["runId"] == run_id:
                assert record.key == run_id.encode()
                found.append(envelope.payload)
    return found


def test_a_failing_run_is_retried_as_the_same_run_until_it_succeeds(
    scene: Scene, quick_worker: Worker, handler: RecordingHandler
) -> None:
    handler.fail_first["*"] = 2
    tool_id = handler_tool(scene, handler)
    policy = {"maximumRetryAttempts": 3, "maximumEventAgeInSeconds": 600}
    created = scene.ok("create", tool_event(tool_id, scheduleSpec=EVERY_MINUTE, retryPolicy=policy))
    event_id = created["eventId"]
    assert created["scheduledEvent"]["retryPolicy"] == policy
    assert created["scheduledEvent"]["deadLetterConfig"] == {"enabled": False}
    make_due(scene.db, scene.company_id, event_id, in_seconds=1)
    (run,) = wait_until(lambda: final(scene, event_id))
    assert run["status"] == "SUCCEEDED" and run["attemptNumber"] == 3
    bodies = [call["body"] for call in handler.calls]
    assert [body["attemptNumber"] for body in bodies] == [1, 2, 3]
    assert {(b["runId"], b["executionId"], b["idempotencyKey"], b["scheduledFor"]) for b in bodies} == {
        (run["runId"], run["runId"], run["runId"], bodies[0]["scheduledFor"])
    }
    assert [call["headers"]["idempotency-key"] for call in handler.calls] == [run["runId"]] * 3
    assert [call["headers"]["x-svc-attempt"] for call in handler.calls] == ["1", "2", "3"]
    attempts = run["attempts"]
    assert [(a["attemptNumber"], a["status"]) for a in attempts] == [
        (1, "FAILED"),
        (2, "FAILED"),
        (3, "SUCCEEDED"),
    ]
    assert attempts[0]["errorMessage"] == "Handler answered HTTP 503" and "retryAt" in attempts[0]
    event = scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]
    assert event["enabled"] is True and event["retryPolicy"] == policy


def test_a_run_failing_every_attempt_is_failed_and_dead_lettered_once(
    scene: Scene, quick_worker: Worker, handler: RecordingHandler, kafka_settings: Settings
) -> None:
    handler.fail_first["*"] = 100
    tool_id = handler_tool(scene, handler)
    body = tool_event(
        tool_id,
        scheduleSpec=EVERY_MINUTE,
        retryPolicy={"maximumRetryAttempts": 2},
        deadLetterConfig={"enabled": True},
    )
    event_id = scene.ok("create", body)["eventId"]
    make_due(scene.db, scene.company_id, event_id, in_seconds=1)
    (run,) = wait_until(lambda: final(scene, event_id))
    assert run["status"] == "FAILED" and run["attemptNumber"] == 3
    assert [a["attemptNumber"] for a in run["attempts"]] == [1, 2, 3]
    assert [call["body"]["attemptNumber"] for call in handler.calls] == [1, 2, 3]
    # continueOnError is false: the failure after the retries disables the event, as documented.
    assert scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]["enabled"] is False
    (record,) = asyncio.run(dead_letters(kafka_settings, run["runId"], quiet_seconds=3))
    assert record["scheduledEventId"] == event_id and record["companyId"] == scene.company_id
    assert record["attempts"] == 3 and record["lastError"].startswith("Handler answered HTTP 503")
    assert record["scheduledTime"].startswith(run["scheduledFor"][:19])


def test_no_retry_policy_means_one_attempt(
    scene: Scene, quick_worker: Worker, handler: RecordingHandler, kafka_settings: Settings
) -> None:
    handler.fail_first["*"] = 100
    tool_id = handler_tool(scene, handler)
    body = tool_event(
        tool_id,
        scheduleSpec=EVERY_MINUTE,
        retryPolicy={"maximumRetryAttempts": 0},
        deadLetterConfig={"enabled": True},
        toolConfig={"toolExecutionRequest": {"toolId": tool_id}, "continueOnError": True},
    )
    event_id = scene.ok("create", body)["eventId"]
    make_due(scene.db, scene.company_id, event_id, in_seconds=1)
    (run,) = wait_until(lambda: final(scene, event_id))
    assert run["status"] == "FAILED" and run["attemptNumber"] == 1
    (record,) = asyncio.run(dead_letters(kafka_settings, run["runId"], quiet_seconds=2))
    assert record["attempts"] == 1
    time.sleep(1)
    assert len(handler.calls) == 1
    assert scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]["enabled"] is True


def test_retry_fields_are_validated_naming_the_field_and_kept_on_update(scene: Scene) -> None:
    bad = scene.call("create", tool_event(scene.tool_id, retryPolicy={"maximumRetryAttempts": 186}))
    assert bad.status_code == 400
    assert bad.json()["errors"] == ["retryPolicy.maximumRetryAttempts: must be between 0 and 185"]
    event_id = scene.ok("create", tool_event(scene.tool_id))["eventId"]
    shown = scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]
    assert shown["retryPolicy"] == {"maximumRetryAttempts": 0, "maximumEventAgeInSeconds": 86400}
    assert shown["deadLetterConfig"] == {"enabled": False}
    bad = scene.call(
        "update", {"scheduledEventId": event_id, "retryPolicy": {"maximumEventAgeInSeconds": 30}}
    )
    assert bad.status_code == 400
    assert bad.json()["errors"] == ["retryPolicy.maximumEventAgeInSeconds: must be between 60 and 86400"]
    scene.ok(
        "update",
        {
            "scheduledEventId": event_id,
            "retryPolicy": {"maximumRetryAttempts": 4, "maximumEventAgeInSeconds": 120},
            "deadLetterConfig": {"enabled": True},
        },
    )
    scene.ok("update", {"scheduledEventId": event_id, "description": "unrelated change"})
    (listed,) = scene.ok("all", {})["ownedEvents"]
    assert listed["retryPolicy"] == {"maximumRetryAttempts": 4, "maximumEventAgeInSeconds": 120}
    assert listed["deadLetterConfig"] == {"enabled": True}
