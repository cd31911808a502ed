"""Request validation of scheduled events and the fire-claiming rules of the repository."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from core.schedules.spec import ScheduleError, parse_schedule_expression, validate_spec
from schemas.scheduled.actions import ActionType, ToolConfig, missing_target_message, target_id
from schemas.scheduled.events import CreateEventRequest, RunStatus, UpdateEventRequest
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from sinks.db.scheduled import events as scheduled_events
from sinks.db.scheduled import runs, sweeps
from tests.fixtures.stack import Db

pytestmark = pytest.mark.unit

TOOL = {"toolExecutionRequest": {"toolId": "t1", "variables": {"a": "b"}}}
NOW = datetime(2027, 1, 1, 12, 0, tzinfo=UTC)


def create(**fields: Any) -> CreateEventRequest:
    body = {"eventName": "nightly", "actionType": "INVOKE_TOOL", "toolConfig": TOOL} | fields
    return CreateEventRequest.model_validate(body)


def test_both_create_forms_are_accepted() -> None:
    nested = create(scheduleSpec={"pattern": "EVERY", "every": {"value": 5, "unit": "MINUTES"}})
    assert nested.schedule_spec is not None and nested.schedule_spec.pattern == "EVERY"
    flat = create(cronExpression="cron(0 12 * * ? *)", timezone="Europe/Berlin")
    assert flat.cron_expression == "cron(0 12 * * ? *)" and flat.enabled is True


@pytest.mark.parametrize(
    "fields",
    [
        {},  # no schedule at all
        {
            "scheduleSpec": {"pattern": "EVERY", "every": {"value": 1, "unit": "DAYS"}},
            "cronExpression": "rate(1 day)",
        },
        {"scheduleSpec": {"pattern": "EVERY", "every": {"value": 0, "unit": "DAYS"}}},
        {"scheduleSpec": {"pattern": "EVERY", "every": {"value": 1, "unit": "DAYS"}}, "timezone": "UTC"},
        {"cronExpression": "rate(1 day)", "actionType": "SOMETHING"},
        {"cronExpression": "rate(1 day)", "agentConfig": {"agentExecutionRequest": {"input": []}}},
        {"cronExpression": "rate(1 day)", "unknownField": 1},
        {"cronExpression": "rate(1 day)", "actionType": "INVOKE_AGENT"},  # toolConfig with an agent action
    ],
)
def test_invalid_create_requests(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        create(**fields)


def test_update_keeps_omitted_fields_unset() -> None:
    update = UpdateEventRequest.model_validate({"scheduledEventId": "e1", "eventName": "renamed"})
    assert update.model_fields_set == {"scheduled_event_id", "event_name"}
    with pytest.raises(ValidationError):
        UpdateEventRequest.model_validate({"scheduledEventId": "e1", "actionType": "INVOKE_TOOL"})


def test_missing_target_messages() -> None:
    assert missing_target_message(ActionType.INVOKE_TOOL) == "Tool ID is required for INVOKE_TOOL action"
    assert missing_target_message(ActionType.INVOKE_AGENT) == "Agent ID is required for INVOKE_AGENT action"
    assert missing_target_message(ActionType.UPDATE_SVCDB) == "Table ID is required for UPDATE_SVCDB action"
    assert target_id(ActionType.INVOKE_TOOL, ToolConfig.model_validate({"toolExecutionRequest": {}})) is None
    assert target_id(ActionType.INVOKE_TOOL, ToolConfig.model_validate(TOOL)) == "t1"


VALID = [
    "cron(0 12 * * ? *)",
    "cron(0/15 9-17 ? * MON-FRI *)",
    "cron(0 8 1 * ? *)",
    "cron(0 0 L * ? *)",
    "cron(0 9 ? * 2#1 *)",
    "cron(30 17 ? * 6L *)",
    "cron(0 0 15W * ? *)",
    "0 12 * * ? *",
    "rate(1 minute)",
    "rate(5 minutes)",
    "rate(2 days)",
    "RATE(1 Hour)",
    "at(2099-07-04T09:00:00)",
]
INVALID = [
    "cron(0 12 * * *)",
    "cron(0 12 * * * *)",
    "cron(0 12 ? * ? *)",
    "cron(61 12 * * ? *)",
    "cron(0 12 * * 8 *)",
    "rate(0 minutes)",
    "rate(1 minutes)",
    "rate(5 minute)",
    "rate(5 weeks)",
    "at(2020-01-01T00:00:00)",
    "at(2099-02-30T00:00:00)",
    "every day",
    "cron(0 0 1 1 ? 2020)",
]


@pytest.mark.parametrize("expression", VALID)
def test_valid_schedule_expressions(expression: str) -> None:
    validate_spec(parse_schedule_expression(expression, "America/New_York"), NOW)


@pytest.mark.parametrize("expression", INVALID)
def test_invalid_schedule_expressions(expression: str) -> None:
    with pytest.raises(ScheduleError):
        validate_spec(parse_schedule_expression(expression, "UTC"), NOW)


def add_event(
    db: Db, spec: dict[str, Any], *, next_fire_at: datetime, anchor: datetime, enabled: bool = True
) -> str:
    company = db.create_company()
    with db.sessions.begin() as session:
        row = ScheduledEvent(
            id=scheduled_events.new_id(),
            company_id=company.company_id,
            owner_id=company.user_id,
            name="e",
            spec_json=json.dumps(spec),
            action_type="INVOKE_TOOL",
            config_json=json.dumps(TOOL),
            enabled=enabled,
            anchor_at=anchor,
            next_fire_at=next_fire_at,
            created_at=anchor,
            updated_at=anchor,
        )
        scheduled_events.add(session, row)
        return row.id


def claim(db: Db, now: datetime) -> list[scheduled_events.Tick]:
    with db.sessions.begin() as session:
        return scheduled_events.claim_due(session, now, timedelta(hours=1), 100)


EVERY_MINUTE = {"pattern": "EVERY", "every": {"value": 1, "unit": "MINUTES"}}


def test_missed_fires_are_caught_up_once(db: Db) -> None:
    anchor = NOW - timedelta(minutes=30, seconds=30)
    event_id = add_event(db, EVERY_MINUTE, next_fire_at=anchor + timedelta(minutes=1), anchor=anchor)
    ticks = claim(db, NOW)
    assert [t.scheduled_for for t in ticks] == [NOW - timedelta(seconds=30)]
    assert claim(db, NOW) == []
    with db.sessions() as session:
        event = session.get(ScheduledEvent, event_id)
        assert event is not None and event.next_fire_at == NOW + timedelta(seconds=30)


def test_fires_older_than_the_window_are_dropped(db: Db) -> None:
    once = {"pattern": "ONCE", "once": {"at": "2027-01-01T09:00:00", "timezone": "UTC"}}
    due = datetime(2027, 1, 1, 9, tzinfo=UTC)
    event_id = add_event(db, once, next_fire_at=due, anchor=due - timedelta(days=1))
    assert claim(db, NOW) == []
    with db.sessions() as session:
        event = session.get(ScheduledEvent, event_id)
        assert event is not None and event.next_fire_at is None


def test_once_fires_once_then_is_done(db: Db) -> None:
    once = {"pattern": "ONCE", "once": {"at": "2027-01-01T11:59:00", "timezone": "UTC"}}
    due = NOW - timedelta(minutes=1)
    event_id = add_event(db, once, next_fire_at=due, anchor=due - timedelta(days=1))
    assert [t.scheduled_for for t in claim(db, NOW)] == [due]
    assert claim(db, NOW + timedelta(minutes=5)) == []
    with db.sessions() as session:
        event = session.get(ScheduledEvent, event_id)
        assert event is not None and event.next_fire_at is None and event.enabled


def test_disabled_events_do_not_fire(db: Db) -> None:
    add_event(db, EVERY_MINUTE, next_fire_at=NOW, anchor=NOW - timedelta(minutes=1), enabled=False)
    assert claim(db, NOW) == []


def test_a_fire_is_claimed_once_even_if_the_grid_is_moved_back(db: Db) -> None:
    anchor = NOW - timedelta(minutes=1)
    event_id = add_event(db, EVERY_MINUTE, next_fire_at=NOW, anchor=anchor)
    assert len(claim(db, NOW)) == 1
    with db.sessions.begin() as session:
        company_id = session.get(ScheduledEvent, event_id).company_id  # type: ignore[union-attr]
        scheduled_events.set_next_fire(session, company_id, event_id, NOW, anchor)
    assert claim(db, NOW) == []
    with db.sessions() as session:
        assert session.query(ScheduledEventRun).count() == 1


def test_claim_run_is_compare_and_set(db: Db) -> None:
    add_event(db, EVERY_MINUTE, next_fire_at=NOW, anchor=NOW - timedelta(minutes=1))
    (tick,) = claim(db, NOW)
    with db.sessions.begin() as session:
        work = runs.claim_run(session, tick.run_id, NOW)
        assert work is not None and work.config == TOOL
    with db.sessions.begin() as session:
        assert runs.claim_run(session, tick.run_id, NOW) is None


def test_a_run_past_its_grace_goes_to_another_attempt_unless_this_process_is_acting_on_it(db: Db) -> None:
    for minutes in (1, 2):
        add_event(db, EVERY_MINUTE, next_fire_at=NOW, anchor=NOW - timedelta(minutes=minutes))
    ticks = claim(db, NOW)
    with db.sessions.begin() as session:
        works = runs.claim_runs(session, [tick.run_id for tick in ticks], NOW)
    mine, lost = works[0].run_id, works[1].run_id
    later, grace = NOW + timedelta(seconds=30), timedelta(seconds=20)
    with db.sessions.begin() as session:
        again = sweeps.take_abandoned(session, later, grace, 10, acting=frozenset({mine}))
    assert [tick.run_id for tick in again] == [lost]
    with db.sessions() as session:
        statuses = {run.id: (run.status, run.attempt) for run in session.query(ScheduledEventRun)}
    assert statuses == {mine: ("RUNNING", 1), lost: ("QUEUED", 2)}
    # Its outcome is still recorded, and nothing was handed to a second attempt.
    with db.sessions.begin() as session:
        assert runs.finish_run(session, mine, RunStatus.SUCCEEDED, later, None, None, NOW)


@pytest.mark.parametrize("status", [RunStatus.SUCCEEDED, RunStatus.FAILED])
def test_an_outcome_of_a_replaced_attempt_is_not_written_onto_the_next(db: Db, status: RunStatus) -> None:
    """A worker that lost its run to attempt 2 (its lease ran out) cannot end attempt 2 with its outcome."""
    add_event(db, EVERY_MINUTE, next_fire_at=NOW, anchor=NOW - timedelta(minutes=1))
    (tick,) = claim(db, NOW)
    with db.sessions.begin() as session:
        (first,) = runs.claim_runs(session, [tick.run_id], NOW)
    later = NOW + timedelta(seconds=30)
    with db.sessions.begin() as session:
        sweeps.take_abandoned(session, later, timedelta(seconds=20), 10)
    with db.sessions.begin() as session:
        (second,) = runs.claim_runs(session, [tick.run_id], later)
    assert (first.attempt, second.attempt) == (1, 2)
    with db.sessions.begin() as session:
        stale = runs.finish_run(
            session, first.run_id, status, later, None, "late", first.started_at, attempt=first.attempt
        )
    assert stale is False
    with db.sessions() as session:
        run = session.get(ScheduledEventRun, tick.run_id)
        assert run is not None and (run.status, run.attempt) == ("RUNNING", 2)
    with db.sessions.begin() as session:
        assert runs.finish_run(
            session, second.run_id, RunStatus.SUCCEEDED, later, None, None, second.started_at, attempt=2
        )
