"""Issue 25 (scheduler controls) in the repository, on a real SQLite DB: the scheduler claims fires within an
event's startDate/endDate and pause, a pause withdraws a fire claimed ahead, actionAfterCompletion DELETE
ends an event with no fire left, and a /run-now run acts even on a disabled event without moving its grid."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from schemas.scheduled.events import RunStatus
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from sinks.db.scheduled import controls as scheduled_controls
from sinks.db.scheduled import events, runs, sweeps
from tests.fixtures.stack import Db

pytestmark = pytest.mark.unit

TOOL = {"toolExecutionRequest": {"toolId": "t1"}}
NOW = datetime(2027, 1, 1, 12, 0, tzinfo=UTC)
EVERY_MINUTE = {"pattern": "EVERY", "every": {"value": 1, "unit": "MINUTES"}}
ONCE_NOW = {"pattern": "ONCE", "once": {"at": "2027-01-01T12:00:00", "timezone": "UTC"}}


def add_event(db: Db, spec: dict[str, Any], next_fire_at: datetime | None, **fields: Any) -> str:
    company = db.create_company()
    anchor = fields.pop("anchor_at", NOW - timedelta(minutes=1))
    with db.sessions.begin() as session:
        row = ScheduledEvent(
            id=events.new_id(),
            company_id=company.company_id,
            owner_id=company.user_id,
            name="e",
            spec_json=json.dumps(spec),
            action_type="INVOKE_TOOL",
            config_json=json.dumps(TOOL),
            enabled=fields.pop("enabled", True),
            anchor_at=anchor,
            next_fire_at=next_fire_at,
            created_at=anchor,
            updated_at=anchor,
            action_after_completion=fields.pop("action_after_completion", "NONE"),
            **fields,
        )
        events.add(session, row)
        return row.id


def claim(db: Db, now: datetime) -> list[events.Tick]:
    with db.sessions.begin() as session:
        return events.claim_due(session, now, timedelta(hours=1), 100)


def event(db: Db, event_id: str) -> ScheduledEvent:
    with db.sessions() as session:
        row = session.get(ScheduledEvent, event_id)
        assert row is not None
        session.expunge(row)
        return row


def test_a_due_fire_before_start_date_is_not_claimed_and_the_grid_waits_for_it(db: Db) -> None:
    start = NOW + timedelta(minutes=10)
    event_id = add_event(db, EVERY_MINUTE, NOW, start_date=start)
    assert claim(db, NOW) == []
    assert event(db, event_id).next_fire_at == start


def test_the_last_fire_before_end_date_runs_and_then_none_is_left(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, NOW, end_date=NOW + timedelta(seconds=59))
    assert [tick.scheduled_for for tick in claim(db, NOW)] == [NOW]
    row = event(db, event_id)
    assert row.next_fire_at is None and row.deleted_at is None  # NONE: left as it is


def test_delete_removes_the_event_when_its_last_run_ends(db: Db) -> None:
    event_id = add_event(db, ONCE_NOW, NOW, action_after_completion="DELETE")
    (tick,) = claim(db, NOW)
    assert event(db, event_id).deleted_at is None  # its run has not ended yet
    with db.sessions.begin() as session:
        (work,) = runs.claim_runs(session, [tick.run_id], NOW)
    assert work.delete_when_done and not work.manual
    later = NOW + timedelta(seconds=3)
    with db.sessions.begin() as session:
        assert runs.finish_run(
            session, work.run_id, RunStatus.FAILED, later, None, "boom", NOW, 1, delete_event=work.event_id
        )
    assert event(db, event_id).deleted_at == later
    with db.sessions() as session:  # as after /delete: the run rows stay
        assert session.get(ScheduledEventRun, tick.run_id) is not None


def test_delete_with_a_last_fire_missed_beyond_catch_up_deletes_at_once(db: Db) -> None:
    event_id = add_event(
        db, ONCE_NOW, NOW, action_after_completion="DELETE", anchor_at=NOW - timedelta(days=2)
    )
    assert claim(db, NOW + timedelta(hours=2)) == []
    assert event(db, event_id).deleted_at == NOW + timedelta(hours=2)


def test_delete_waits_while_fires_are_left(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, NOW, action_after_completion="DELETE")
    claim(db, NOW)
    with db.sessions.begin() as session:
        assert scheduled_controls.delete_if_complete(session, event_id, NOW) is False
    assert event(db, event_id).deleted_at is None


def test_a_pause_withdraws_a_fire_claimed_ahead_and_it_is_no_run(db: Db) -> None:
    event_id = add_event(db, EVERY_MINUTE, NOW)
    (tick,) = claim(db, NOW)
    with db.sessions.begin() as session:
        row = session.get(ScheduledEvent, event_id)
        assert row is not None
        row.paused_until = NOW + timedelta(minutes=5)
    with db.sessions.begin() as session:
        assert runs.claim_runs(session, [tick.run_id], NOW) == []
    with db.sessions() as session:
        assert session.query(ScheduledEventRun).count() == 0


def test_run_now_acts_on_a_disabled_or_paused_event_and_leaves_its_grid(db: Db) -> None:
    due = NOW + timedelta(minutes=30)
    event_id = add_event(
        db,
        EVERY_MINUTE,
        due,
        enabled=False,
        paused_until=NOW + timedelta(hours=1),
        action_after_completion="DELETE",
    )
    with db.sessions.begin() as session:
        row = session.get(ScheduledEvent, event_id)
        assert row is not None
        tick = scheduled_controls.add_manual_run(session, row, NOW)
        assert scheduled_controls.pending_manual(session, row.company_id, event_id) == 1
    with db.sessions.begin() as session:
        (work,) = runs.claim_runs(session, [tick.run_id], NOW)
    assert work.manual and not work.delete_when_done and work.scheduled_for == NOW
    assert event(db, event_id).next_fire_at == due


def test_the_reconcilers_final_failure_ends_a_delete_event(db: Db) -> None:
    event_id = add_event(db, ONCE_NOW, NOW, action_after_completion="DELETE")
    (tick,) = claim(db, NOW)
    with db.sessions.begin() as session:
        run = session.get(ScheduledEventRun, tick.run_id)
        assert run is not None
        run.status, run.started_at, run.attempt = "RUNNING", NOW, sweeps.MAX_ATTEMPTS
    later = NOW + timedelta(hours=1)
    with db.sessions.begin() as session:
        assert sweeps.take_abandoned(session, later, timedelta(seconds=1), 10) == []
    assert event(db, event_id).deleted_at == later
