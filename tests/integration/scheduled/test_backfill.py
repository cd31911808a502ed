"""Issue 25 (/backfill) through the real stack: each past fire time of the range runs once, in order, as a
BACKFILL run in /runs; the same range again creates nothing; a MISSED fire in the range is run; bad ranges
are 400 naming the field, and another company's event is 404."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from schemas.scheduled.events import RunStatus
from sinks.db.models import ScheduledEventRun
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.two_workers import wait_until
from tests.fixtures.worker import Worker
from tests.integration.scheduled.conftest import Scene, tool_event
from tests.integration.scheduled.test_firing import handler_tool, runs

pytestmark = pytest.mark.integration

EVERY_MINUTE_CRON = {"pattern": "CRON", "cron": {"expression": "* * * * ? *", "timezone": "UTC"}}


def minute(moment: datetime) -> datetime:
    return moment.replace(second=0, microsecond=0)


def at(run: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(run["scheduledFor"]).replace(tzinfo=UTC)


def test_backfill_runs_each_past_fire_once_in_order(
    scene: Scene, worker: Worker, handler: RecordingHandler
) -> None:
    tool_id = handler_tool(scene, handler)
    event_id = scene.ok("create", tool_event(tool_id, scheduleSpec=EVERY_MINUTE_CRON))["eventId"]
    end = minute(datetime.now(UTC)) - timedelta(minutes=10)
    start = end - timedelta(minutes=4)
    # One time of the range was recorded MISSED by a catch-up: the backfill runs it.
    with scene.db.sessions.begin() as session:
        event_company = scene.company_id
        session.add(
            ScheduledEventRun(
                id="missed1",
                event_id=event_id,
                company_id=event_company,
                scheduled_for=start + timedelta(minutes=2),
                status=RunStatus.MISSED.value,
                attempt=1,
                action_type="INVOKE_TOOL",
                queued_at=end,
                ended_at=end,
                error_message="Missed: ...",
            )
        )
    body = {"scheduledEventId": event_id, "from": start.isoformat(), "to": end.isoformat()}
    assert scene.ok("backfill", body)["scheduled"] == 5
    expected = [start + timedelta(minutes=k) for k in range(5)]
    done = wait_until(
        lambda: (
            sorted(
                (
                    r
                    for r in runs(scene, event_id)
                    if r["trigger"] == "BACKFILL" and r["status"] == "SUCCEEDED"
                ),
                key=at,
            )
            if len([r for r in runs(scene, event_id) if r["status"] == "SUCCEEDED"]) >= 5
            else None
        )
    )
    assert [at(run) for run in done] == expected
    assert any(run["runId"] == "missed1" for run in done)
    called = [datetime.fromisoformat(call["body"]["scheduledFor"]) for call in handler.calls]
    # The event also fires live every minute while the test runs; those calls are past the range.
    assert [moment for moment in called if moment <= end] == expected  # each once, in order
    # One at a time: each started once the one before it had ended.
    for before, after in itertools.pairwise(done):
        assert after["startedAt"] >= before["endedAt"]
    assert scene.ok("backfill", body)["scheduled"] == 0


def test_backfill_refuses_bad_ranges_naming_the_field(scene: Scene) -> None:
    event_id = scene.ok("create", tool_event(scene.tool_id, scheduleSpec=EVERY_MINUTE_CRON))["eventId"]
    now = datetime.now(UTC)

    def refused(start: datetime, end: datetime, key: str | None = None) -> tuple[int, str]:
        body = {"scheduledEventId": event_id, "from": start.isoformat(), "to": end.isoformat()}
        answer = scene.call("backfill", body, key)
        return answer.status_code, answer.json()["errors"][0]

    status, message = refused(now - timedelta(hours=1), now - timedelta(hours=2))
    assert status == 400 and message.startswith("from: must be before to")
    status, message = refused(now - timedelta(hours=1), now + timedelta(hours=1))
    assert status == 400 and message.startswith("to: must not be in the future")
    status, message = refused(now - timedelta(days=1), now - timedelta(minutes=1))
    assert (status, message) == (400, "to: the range has more than 1000 fire times; backfill a shorter range")
    status, _ = refused(now - timedelta(hours=2), now - timedelta(hours=1), key=scene.other_key)
    assert status == 404
    local = scene.call(
        "backfill", {"scheduledEventId": event_id, "from": "2027-01-01T00:00:00", "to": now.isoformat()}
    )
    assert local.status_code == 400 and local.json()["errors"][0].startswith("from: ")
