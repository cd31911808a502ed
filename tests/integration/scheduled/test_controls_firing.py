"""Issue 25 (scheduler controls) through a real worker: /run-now fires through the normal run path, a pause
withdraws what it covers and resumes by itself at ``until``, endDate ends a schedule, and
actionAfterCompletion DELETE removes the event once its last run ended (NONE keeps it)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.fixtures.handler import RecordingHandler
from tests.fixtures.two_workers import wait_until
from tests.fixtures.worker import Worker
from tests.integration.scheduled.conftest import Scene, tool_event
from tests.integration.scheduled.test_firing import handler_tool, make_due, once_in, runs

pytestmark = pytest.mark.integration

EVERY_MINUTE = {"pattern": "EVERY", "every": {"value": 1, "unit": "MINUTES"}}


def shown(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds")


def ended(scene: Scene, event_id: str) -> list[dict[str, Any]]:
    return [run for run in runs(scene, event_id) if run["status"] in ("SUCCEEDED", "FAILED", "SKIPPED")]


def test_run_now_fires_once_through_the_run_path_without_moving_the_schedule(
    scene: Scene, worker: Worker, handler: RecordingHandler
) -> None:
    tool_id = handler_tool(scene, handler)
    event_id = scene.ok("create", tool_event(tool_id, scheduleSpec=EVERY_MINUTE))["eventId"]
    make_due(scene.db, scene.company_id, event_id, in_seconds=2)
    scheduled = wait_until(lambda: ended(scene, event_id))
    before = scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]
    # Disabled events can be run now: it was asked for by name.
    scene.ok("toggle", {"scheduledEventId": event_id, "enabled": False})
    run_id = scene.ok("run-now", {"scheduledEventId": event_id})["runId"]
    done = wait_until(lambda: [run for run in ended(scene, event_id) if run["runId"] == run_id])
    assert done[0]["status"] == "SUCCEEDED" and done[0]["trigger"] == "RUN_NOW"
    assert scheduled[0]["trigger"] == "SCHEDULE"
    time.sleep(1)
    assert len(handler.calls) == 2
    fired, manual = (call["body"] for call in handler.calls)
    # The same request shape as a scheduled fire, with its own run id.
    assert set(manual) == set(fired) and manual["runId"] == run_id != fired["runId"]
    assert manual["eventId"] == event_id and manual["executionId"] == run_id and manual["attemptNumber"] == 1
    assert manual["variables"] == fired["variables"] == {"kind": "daily"}
    scene.ok("toggle", {"scheduledEventId": event_id, "enabled": True})
    after = scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]
    assert after["nextFireAt"] == before["nextFireAt"] and after["lastFiredAt"] == before["lastFiredAt"]


def test_a_pause_withdraws_the_fire_it_covers_and_records_no_run(
    scene: Scene, worker: Worker, handler: RecordingHandler
) -> None:
    tool_id = handler_tool(scene, handler)
    event_id = scene.ok("create", tool_event(tool_id, scheduleSpec=EVERY_MINUTE))["eventId"]
    # The control: the same event due at the same moment, not paused, fires.
    control = tool_event(tool_id, scheduleSpec=EVERY_MINUTE, eventName="control")
    control_id = scene.ok("create", control)["eventId"]
    make_due(scene.db, scene.company_id, event_id, in_seconds=1.5)
    make_due(scene.db, scene.company_id, control_id, in_seconds=1.5)
    until = datetime.now(UTC) + timedelta(seconds=20)
    paused = scene.ok("pause", {"scheduledEventId": event_id, "until": until.isoformat()})
    assert datetime.fromisoformat(paused["nextFireAt"]).replace(tzinfo=UTC) >= until
    (fired,) = wait_until(lambda: ended(scene, control_id))
    assert fired["status"] == "SUCCEEDED"
    time.sleep(1)  # a fire at the control's moment would have reached the handler by now
    assert [call["body"]["eventId"] for call in handler.calls] == [control_id]
    assert runs(scene, event_id) == []


def test_a_pause_ends_by_itself_at_until(scene: Scene, worker: Worker, handler: RecordingHandler) -> None:
    """The fire at ``until`` happens with nobody calling anything after /pause."""
    tool_id = handler_tool(scene, handler)
    event_id = scene.ok("create", tool_event(tool_id, scheduleSpec=EVERY_MINUTE))["eventId"]
    make_due(scene.db, scene.company_id, event_id, in_seconds=4)
    fire = scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]["nextFireAt"]
    until = datetime.fromisoformat(fire).replace(tzinfo=UTC)
    paused = scene.ok("pause", {"scheduledEventId": event_id, "until": until.isoformat()})
    assert paused["nextFireAt"] == fire and paused["pausedUntil"] == fire
    (run,) = wait_until(lambda: ended(scene, event_id))
    assert run["scheduledFor"] == fire and run["status"] == "SUCCEEDED"
    # The record shows milliseconds; the grid keeps its anchor's microseconds: the fire is at or just after.
    assert datetime.fromisoformat(handler.calls[0]["body"]["scheduledFor"]) - until < timedelta(
        milliseconds=1
    )


@pytest.mark.parametrize("action", ["DELETE", "NONE"])
def test_action_after_completion_of_a_once_event(
    scene: Scene, worker: Worker, handler: RecordingHandler, action: str
) -> None:
    tool_id = handler_tool(scene, handler)
    body = tool_event(tool_id, scheduleSpec=once_in(3), actionAfterCompletion=action)
    event_id = scene.ok("create", body)["eventId"]
    wait_until(lambda: handler.calls)
    if action == "NONE":
        wait_until(lambda: ended(scene, event_id))
        event = scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]
        assert "nextFireAt" not in event and event["actionAfterCompletion"] == "NONE"
        return
    # As after /delete: every call naming it is 404 and it leaves /all.
    wait_until(lambda: scene.call("get", {"scheduledEventId": event_id}).status_code == 404)
    assert scene.call("runs", {"scheduledEventId": event_id}).status_code == 404
    assert scene.ok("all", {})["ownedEvents"] == []
    assert len(handler.calls) == 1


def test_end_date_ends_a_schedule_and_delete_removes_it_after_its_last_run(
    scene: Scene, worker: Worker, handler: RecordingHandler
) -> None:
    tool_id = handler_tool(scene, handler)
    body = tool_event(tool_id, scheduleSpec=EVERY_MINUTE, actionAfterCompletion="DELETE")
    event_id = scene.ok("create", body)["eventId"]
    # The grid's next fire a few seconds away, and an endDate before the one after it.
    make_due(scene.db, scene.company_id, event_id, in_seconds=4)
    end = datetime.now(UTC) + timedelta(seconds=30)
    updated = scene.ok("update", {"scheduledEventId": event_id, "endDate": end.isoformat()})["scheduledEvent"]
    assert updated["endDate"] == shown(end) and updated["nextFireAt"] < shown(end)
    wait_until(lambda: scene.call("get", {"scheduledEventId": event_id}).status_code == 404)
    time.sleep(1)
    assert len(handler.calls) == 1
    assert datetime.fromisoformat(handler.calls[0]["body"]["scheduledFor"]) < end
