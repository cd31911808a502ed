"""Issue 25 (missed runs) through the real stack: catchupWindowSeconds is validated, stored and shown, and a
worker that finds an event's fires long overdue runs only the latest inside the window and records every
other fire as a MISSED run in /runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sinks.db.scheduled import events
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.two_workers import wait_until
from tests.fixtures.worker import Worker
from tests.integration.scheduled.conftest import Scene, tool_event
from tests.integration.scheduled.test_firing import handler_tool, runs

pytestmark = pytest.mark.integration

EVERY_MINUTE = {"pattern": "EVERY", "every": {"value": 1, "unit": "MINUTES"}}


def at(run: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(run["scheduledFor"]).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (86401, "catchupWindowSeconds: must be between 0 and 86400"),
        (-1, "catchupWindowSeconds: must be between 0 and 86400"),
    ],
)
def test_catchup_window_is_validated_naming_the_field(scene: Scene, value: int, message: str) -> None:
    bad = scene.call("create", tool_event(scene.tool_id, catchupWindowSeconds=value))
    assert bad.status_code == 400
    assert bad.json()["errors"] == [message]
    text = scene.call("create", tool_event(scene.tool_id, catchupWindowSeconds="60"))
    assert text.status_code == 400 and "catchupWindowSeconds" in text.json()["errors"][0]


def test_catchup_window_is_stored_and_shown(scene: Scene) -> None:
    created = scene.ok("create", tool_event(scene.tool_id))["scheduledEvent"]
    assert created["catchupWindowSeconds"] == 3600
    event_id = created["eventId"]
    updated = scene.ok("update", {"scheduledEventId": event_id, "catchupWindowSeconds": 0})["scheduledEvent"]
    assert updated["catchupWindowSeconds"] == 0
    kept = scene.ok("update", {"scheduledEventId": event_id, "eventName": "renamed"})["scheduledEvent"]
    assert kept["catchupWindowSeconds"] == 0
    listed = scene.ok("all", {})["ownedEvents"]
    assert [e["catchupWindowSeconds"] for e in listed if e["eventId"] == event_id] == [0]
    bad = scene.call("update", {"scheduledEventId": event_id, "catchupWindowSeconds": 90000})
    assert bad.status_code == 400


def test_a_worker_records_fires_past_the_window_as_missed_and_runs_the_latest(
    scene: Scene, worker: Worker, handler: RecordingHandler
) -> None:
    tool_id = handler_tool(scene, handler)
    event_id = scene.ok("create", tool_event(tool_id, scheduleSpec=EVERY_MINUTE, catchupWindowSeconds=120))[
        "eventId"
    ]
    now = datetime.now(UTC).replace(microsecond=0)  # /runs shows milliseconds
    # As if no worker ran for five minutes: fires 4:30, 3:30, 2:30, 1:30 and 0:30 minutes ago are overdue.
    first = now - timedelta(minutes=4, seconds=30)
    with scene.db.sessions.begin() as session:
        events.set_next_fire(session, scene.company_id, event_id, first, first - timedelta(minutes=1))
    done = wait_until(lambda: [r for r in runs(scene, event_id) if r["status"] == "SUCCEEDED"])
    latest = now - timedelta(seconds=30)
    assert at(done[-1]) == latest
    past = [run for run in runs(scene, event_id) if at(run) < latest]
    missed = sorted(past, key=at)
    assert [run["status"] for run in missed] == ["MISSED"] * 4
    assert [at(run) for run in missed] == [first + timedelta(minutes=k) for k in range(4)]
    assert all("catchupWindowSeconds 120" in run["errorMessage"] for run in missed[:3])
    assert "a later fire" in missed[3]["errorMessage"]
    assert all(run["trigger"] == "SCHEDULE" and run.get("startedAt") is None for run in missed)
    # Only the latest fire ran; the missed ones never reached the handler.
    assert [call["body"]["scheduledFor"] for call in handler.calls][:1] == [latest.isoformat()]
    only_missed = scene.ok("runs", {"scheduledEventId": event_id, "status": "MISSED"})
    assert only_missed["totalElements"] == 4
