"""Issue 25 (overlapPolicy) through a real worker: a fire that comes while a slow run of its event is still
running is SKIPPED with the reason (SKIP, the default), or waits and runs once that run ended (BUFFER_ONE);
overlapPolicy is validated, stored and shown."""

from __future__ import annotations

import pytest

from tests.fixtures.handler import RecordingHandler
from tests.fixtures.two_workers import wait_until
from tests.fixtures.worker import Worker
from tests.integration.scheduled.conftest import Scene, tool_event
from tests.integration.scheduled.test_firing import handler_tool, make_due, runs

pytestmark = pytest.mark.integration

EVERY_MINUTE = {"pattern": "EVERY", "every": {"value": 1, "unit": "MINUTES"}}


def test_overlap_policy_is_validated_stored_and_shown(scene: Scene) -> None:
    created = scene.ok("create", tool_event(scene.tool_id))["scheduledEvent"]
    assert created["overlapPolicy"] == "SKIP"
    event_id = created["eventId"]
    updated = scene.ok("update", {"scheduledEventId": event_id, "overlapPolicy": "BUFFER_ONE"})
    assert updated["scheduledEvent"]["overlapPolicy"] == "BUFFER_ONE"
    kept = scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]
    assert kept["overlapPolicy"] == "BUFFER_ONE"
    bad = scene.call("create", tool_event(scene.tool_id, overlapPolicy="CANCEL_OTHER"))
    assert bad.status_code == 400 and bad.json()["errors"][0].startswith("overlapPolicy: ")


def slow_run_then_fire(scene: Scene, handler: RecordingHandler, policy: str) -> tuple[str, str]:
    """A /run-now run that takes 4 s, and a scheduled fire 1.5 s into it."""
    handler.delay = 4.0
    tool_id = handler_tool(scene, handler)
    event_id = scene.ok("create", tool_event(tool_id, scheduleSpec=EVERY_MINUTE, overlapPolicy=policy))[
        "eventId"
    ]
    run_id = scene.ok("run-now", {"scheduledEventId": event_id})["runId"]
    wait_until(lambda: [run for run in runs(scene, event_id) if run["status"] == "RUNNING"])
    make_due(scene.db, scene.company_id, event_id, in_seconds=1.5)
    return event_id, run_id


def test_skip_records_the_fire_skipped_with_the_reason(
    scene: Scene, worker: Worker, handler: RecordingHandler
) -> None:
    event_id, run_id = slow_run_then_fire(scene, handler, "SKIP")
    skipped = wait_until(lambda: [run for run in runs(scene, event_id) if run["status"] == "SKIPPED"])
    assert skipped[0]["trigger"] == "SCHEDULE"
    assert skipped[0]["errorMessage"] == (
        f"Skipped: run {run_id} of this event is still in progress (overlapPolicy SKIP)"
    )
    wait_until(lambda: [run for run in runs(scene, event_id) if run["status"] == "SUCCEEDED"])
    assert [call["body"]["runId"] for call in handler.calls] == [run_id]


def test_buffer_one_runs_the_fire_after_the_running_one(
    scene: Scene, worker: Worker, handler: RecordingHandler
) -> None:
    event_id, run_id = slow_run_then_fire(scene, handler, "BUFFER_ONE")
    done = wait_until(
        lambda: [run for run in runs(scene, event_id) if run["status"] == "SUCCEEDED"][1:] or None
    )
    assert done
    ran = {run["runId"]: run for run in runs(scene, event_id)}
    fired = next(run for run in ran.values() if run["trigger"] == "SCHEDULE")
    assert fired["status"] == "SUCCEEDED" and ran[run_id]["status"] == "SUCCEEDED"
    # The waiting fire started only once the /run-now run had ended.
    assert fired["startedAt"] >= ran[run_id]["endedAt"]
    assert [call["body"]["runId"] for call in handler.calls] == [run_id, fired["runId"]]
