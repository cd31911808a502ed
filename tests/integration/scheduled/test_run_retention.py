"""Retention of scheduled runs (issue 43): ended runs past their company's retention are gone from /runs;
runs still in progress, runs whose dead letter is still owed and recent runs stay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from schemas.settings import Settings
from sinks.db.models import ScheduledEventRun
from tests.fixtures.retention import sweep
from tests.integration.scheduled.conftest import Scene, tool_event
from tests.integration.scheduled.test_firing import runs

pytestmark = pytest.mark.integration

NOW = datetime.now(UTC).replace(microsecond=0)


def run(scene: Scene, event_id: str, run_id: str, when: datetime, status: str, **fields: object) -> None:
    ended = None if status in ("QUEUED", "RUNNING") else when + timedelta(seconds=1)
    with scene.db.sessions.begin() as session:
        session.add(
            ScheduledEventRun(
                id=run_id,
                event_id=event_id,
                company_id=scene.company_id,
                scheduled_for=when,
                status=status,
                attempt=1,
                action_type="INVOKE_TOOL",
                queued_at=when,
                ended_at=ended,
                **fields,
            )
        )


def test_ended_runs_past_the_retention_are_gone(scene: Scene, kafka_settings: Settings) -> None:
    event_id = scene.ok("create", tool_event(scene.tool_id))["eventId"]
    old = NOW - timedelta(days=3)
    run(scene, event_id, "ok", old, "SUCCEEDED")
    run(scene, event_id, "failed", old + timedelta(minutes=1), "FAILED")
    run(scene, event_id, "missed", old + timedelta(minutes=2), "MISSED")
    run(scene, event_id, "owed", old + timedelta(minutes=3), "FAILED", dead_letter_at=old)
    run(scene, event_id, "running", old + timedelta(minutes=4), "RUNNING")
    run(scene, event_id, "recent", NOW - timedelta(hours=1), "SUCCEEDED")
    # A backfilled past fire that ended just now: judged by its end too, so it is kept.
    with scene.db.sessions.begin() as session:
        session.add(
            ScheduledEventRun(
                id="backfilled",
                event_id=event_id,
                company_id=scene.company_id,
                scheduled_for=old + timedelta(minutes=5),
                status="SUCCEEDED",
                attempt=1,
                action_type="INVOKE_TOOL",
                queued_at=NOW,
                ended_at=NOW,
                backfill=True,
            )
        )
    assert len(runs(scene, event_id)) == 7

    swept = sweep(kafka_settings, NOW, runs_retention_seconds=86400)
    assert swept.runs == 3
    assert {r["runId"] for r in runs(scene, event_id)} == {"owed", "running", "recent", "backfilled"}
    assert sweep(kafka_settings, NOW, runs_retention_seconds=86400).runs == 0
