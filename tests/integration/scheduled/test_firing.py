"""The scheduler end to end: a real worker process fires events at the recording handler."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from schemas.admin import ResourceSpec
from schemas.settings import Settings
from sinks.db import resources
from sinks.db.scheduled import events as scheduled_events
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db
from tests.fixtures.two_workers import wait_until
from tests.fixtures.worker import Worker, worker_env
from tests.integration.scheduled.conftest import Scene, tool_event

pytestmark = pytest.mark.integration


def handler_tool(scene: Scene, handler: RecordingHandler) -> str:
    with scene.db.sessions.begin() as session:
        return resources.create_resource(
            session, scene.company_id, ResourceSpec(type="TOOL", name="recorder", endpoint=handler.url)
        ).resource_id


def once_in(seconds: int) -> dict[str, Any]:
    at = (datetime.now(UTC) + timedelta(seconds=seconds)).replace(microsecond=0, tzinfo=None)
    return {"pattern": "ONCE", "once": {"at": at.isoformat(), "timezone": "UTC"}}


def fires(handler: RecordingHandler) -> Counter[tuple[str, str]]:
    return Counter((c["body"]["eventId"], c["body"]["scheduledFor"]) for c in handler.calls)


def runs(scene: Scene, event_id: str) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = scene.ok("runs", {"scheduledEventId": event_id})["runs"]
    return result


def test_once_event_calls_the_tool_exactly_once(
    scene: Scene, worker: Worker, handler: RecordingHandler
) -> None:
    tool_id = handler_tool(scene, handler)
    event_id = scene.ok("create", tool_event(tool_id, scheduleSpec=once_in(4)))["eventId"]
    wait_until(lambda: handler.calls)
    history = wait_until(lambda: [r for r in runs(scene, event_id) if r["status"] == "SUCCEEDED"])
    time.sleep(2)
    assert len(handler.calls) == 1
    body = handler.calls[0]["body"]
    assert body["eventId"] == event_id and body["toolId"] == tool_id
    assert body["variables"] == {"kind": "daily"} and body["runId"] == history[0]["runId"]
    assert history[0]["attemptNumber"] == 1 and history[0]["durationMs"] is not None
    event = scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]
    assert event["enabled"] is True and "nextFireAt" not in event and event["lastFiredAt"]


def make_due(db: Db, company_id: str, event_id: str, in_seconds: float = 1) -> None:
    """Put an EVERY-1-minute event's grid so that its next fire is a moment away."""
    fire = datetime.now(UTC) + timedelta(seconds=in_seconds)
    with db.sessions.begin() as session:
        scheduled_events.set_next_fire(session, company_id, event_id, fire, fire - timedelta(minutes=1))


def test_toggle_off_stops_an_every_event_and_delete_hides_it(
    scene: Scene, worker: Worker, handler: RecordingHandler
) -> None:
    tool_id = handler_tool(scene, handler)
    every = {"pattern": "EVERY", "every": {"value": 1, "unit": "MINUTES"}}
    event_id = scene.ok("create", tool_event(tool_id, scheduleSpec=every))["eventId"]
    make_due(scene.db, scene.company_id, event_id)
    wait_until(lambda: handler.calls)
    scene.ok("toggle", {"scheduledEventId": event_id, "enabled": False})
    make_due(scene.db, scene.company_id, event_id, in_seconds=0)
    time.sleep(3)
    assert len(handler.calls) == 1
    scene.ok("delete", {"scheduledEventId": event_id})
    assert scene.ok("all", {})["ownedEvents"] == []


class PausingWorker(Worker):
    """A worker that waits between claiming a run and calling the handler, so a kill lands in between."""

    def env(self) -> dict[str, str]:
        return worker_env(self.settings) | {
            "SVC_SCHEDULER_PAUSE_BEFORE_ACTION_SECONDS": "3",
            "SVC_SCHEDULER_ACTION_TIMEOUT_SECONDS": "4",
        }


@pytest.fixture
def pausing_worker(kafka_settings: Settings, ingress_db: Db, tmp_path: Path) -> Iterator[PausingWorker]:
    running = PausingWorker(kafka_settings, tmp_path / "worker.log")
    running.start()
    yield running
    running.stop()


def test_a_worker_killed_between_tick_and_action_still_acts_once(
    scene: Scene, pausing_worker: PausingWorker, handler: RecordingHandler
) -> None:
    tool_id = handler_tool(scene, handler)
    event_id = scene.ok("create", tool_event(tool_id, scheduleSpec=once_in(3)))["eventId"]
    wait_until(lambda: any(r["status"] == "RUNNING" for r in runs(scene, event_id)))
    pausing_worker.kill()
    assert handler.calls == []
    pausing_worker.start()
    done = wait_until(lambda: [r for r in runs(scene, event_id) if r["status"] == "SUCCEEDED"], timeout=60)
    time.sleep(2)
    assert len(runs(scene, event_id)) == 1 and done[0]["attemptNumber"] == 2
    assert list(fires(handler).values()) == [1]
