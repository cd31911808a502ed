"""Two workers in one consumer group fire each scheduled time of an action exactly once. Kept apart from
test_actions.py, whose tests share one stack: this test adds a second worker to the group (and stops it), so
it has a stack of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from schemas.settings import Settings
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db
from tests.fixtures.two_workers import wait_until
from tests.fixtures.worker import Worker
from tests.integration.scheduled.conftest import Scene, tool_event
from tests.integration.scheduled.test_actions import EVERY_MINUTE
from tests.integration.scheduled.test_firing import fires, handler_tool, make_due, runs

pytestmark = pytest.mark.integration


@pytest.fixture
def second_worker(kafka_settings: Settings, ingress_db: Db, tmp_path: Path) -> Iterator[Worker]:
    running = Worker(kafka_settings, tmp_path / "second-worker.log")
    running.start()
    yield running
    running.stop()


def test_two_workers_fire_each_scheduled_time_exactly_once(
    scene: Scene, worker: Worker, second_worker: Worker, handler: RecordingHandler
) -> None:
    tool_id = handler_tool(scene, handler)
    events = [scene.ok("create", tool_event(tool_id, scheduleSpec=EVERY_MINUTE))["eventId"] for _ in range(6)]
    for round_number in range(3):
        for i, event_id in enumerate(events):
            make_due(scene.db, scene.company_id, event_id, in_seconds=1 + 0.3 * i)
        expected = len(events) * (round_number + 1)
        wait_until(lambda expected=expected: len(fires(handler)) >= expected, timeout=60)  # type: ignore[misc]
    done = wait_until(
        lambda: all(
            len(runs(scene, e)) == 3 and all(r["status"] == "SUCCEEDED" for r in runs(scene, e))
            for e in events
        )
    )
    assert done
    counted = fires(handler)
    assert len(counted) == 3 * len(events) and set(counted.values()) == {1}
    assert {event_id for event_id, _ in counted} == set(events)
