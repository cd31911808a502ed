"""The client API of scheduled events: ``{base_url}/clients/scheduled-events/...`` (client API key).

Statuses the spec leaves open: 400 for a request that is not valid (shape, schedule, missing name or target
id, a target that is not the company's), 403 when the key may not use the target, 404 for an event that
does not exist, is deleted, or belongs to another company (the same answer, so ids do not leak).
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime

from fastapi import APIRouter
from sqlalchemy.orm import Session

from core.schedules.spec import (
    ScheduleError,
    next_fire,
    parse_schedule_expression,
    stored_timezone,
    to_schedule_expression,
    validate_spec,
    with_timezone,
)
from ingress.deps import ClientCaller, DbSession
from ingress.errors import ApiError
from ingress.scheduled.catchup import catchup_wire, set_catchup
from ingress.scheduled.retries import retries_wire, run_attempts, set_retries
from ingress.scheduled.targets import check_target
from ingress.scheduled.window import first_fire_in_window, set_window, window_wire
from schemas.admin import Principal
from schemas.base import iso_utc
from schemas.scheduled.actions import CONFIG_FIELD, ActionConfig, ActionType
from schemas.scheduled.controls import ActionAfterCompletion, RunTrigger
from schemas.scheduled.events import (
    EVENT_NAME_REQUIRED,
    NOT_FOUND,
    CreatedAnswer,
    CreateEventRequest,
    DeletedAnswer,
    EmptyRequest,
    EventAnswer,
    EventIdRequest,
    ListAnswer,
    RunEntry,
    RunsAnswer,
    RunsRequest,
    RunStatus,
    ScheduledEvent,
    ToggledAnswer,
    ToggleRequest,
    UpdatedAnswer,
    UpdateEventRequest,
)
from schemas.scheduled.schedules import CronSpec, EverySpec, OnceSpec, dump_schedule_spec, load_schedule_spec
from sinks.db import tenancy
from sinks.db.models import ScheduledEvent as EventRow
from sinks.db.scheduled import events as scheduled_events
from sinks.db.scheduled.events import fire_window

router = APIRouter(prefix="/clients/scheduled-events", tags=["scheduled events"])
Spec = EverySpec | CronSpec | OnceSpec
_ANSWER = {"response_model_by_alias": True, "response_model_exclude_none": True}


def _now() -> datetime:
    return datetime.now(UTC)


def _schedule(cron_expression: str | None, timezone: str | None, spec: Spec | None, now: datetime) -> Spec:
    try:
        resolved = spec if spec is not None else parse_schedule_expression(cron_expression or "", timezone)
        validate_spec(resolved, now)
    except ScheduleError as exc:
        raise ApiError(400, str(exc)) from None
    return resolved


def _sent_zone(timezone: str | None) -> str | None:
    """The timezone an /update asks for; an empty one asks for none, as an omitted one does."""
    return (timezone.strip() or None) if timezone is not None else None


def _moved(spec: Spec, timezone: str, now: datetime) -> Spec:
    try:
        moved = with_timezone(spec, timezone)
        validate_spec(moved, now)
    except ScheduleError as exc:
        raise ApiError(400, str(exc)) from None
    return moved


def _config_json(config: ActionConfig) -> str:
    return json.dumps(config.model_dump(mode="json", by_alias=True, exclude_none=True))


def _arn(row: EventRow) -> str:
    return f"arn:svc:scheduler:{row.company_id}:schedule/default/{row.id}"


def _spec(row: EventRow) -> Spec:
    return load_schedule_spec(json.loads(row.spec_json))


def _wire(row: EventRow) -> ScheduledEvent:
    spec = _spec(row)
    action = ActionType(row.action_type)
    config = {CONFIG_FIELD[action]: json.loads(row.config_json)}
    timezone = spec.cron.timezone if isinstance(spec, CronSpec) else None
    if isinstance(spec, OnceSpec):
        timezone = spec.once.timezone
    return ScheduledEvent(
        event_id=row.id,
        company_id=row.company_id,
        owner_id=row.owner_id,
        event_name=row.name,
        description=row.description,
        schedule_spec=dump_schedule_spec(spec),
        cron_expression=to_schedule_expression(spec),
        timezone=timezone,
        enabled=row.enabled,
        action_type=action,
        schedule_arn=_arn(row),
        next_fire_at=iso_utc(row.next_fire_at) if row.enabled else None,
        last_fired_at=iso_utc(row.last_fired_at),
        created_at=iso_utc(row.created_at) or "",
        updated_at=iso_utc(row.updated_at) or "",
        deleted_at=iso_utc(row.deleted_at),
        **window_wire(row),
        **retries_wire(row),
        **catchup_wire(row),
        **config,
    )


def _event(session: Session, caller: Principal, event_id: str) -> EventRow:
    row = scheduled_events.get(session, caller.company_id, event_id)
    if row is None:
        raise ApiError(404, NOT_FOUND)
    return row


def _name(value: str | None) -> str:
    if value is None or not value.strip():
        raise ApiError(400, EVENT_NAME_REQUIRED)
    return value.strip()


def _reschedule(row: EventRow, spec: Spec, now: datetime) -> None:
    """A new schedule starts a new grid: EVERY counts from now, CRON and ONCE from the next match, each
    within the event's dates and pause (none left is 400)."""
    row.spec_json = json.dumps(dump_schedule_spec(spec))
    row.anchor_at = now
    row.next_fire_at = first_fire_in_window(row, spec, now)


@router.post("/all", response_model=ListAnswer, **_ANSWER)  # type: ignore[arg-type]
def list_events(caller: ClientCaller, session: DbSession, body: EmptyRequest | None = None) -> ListAnswer:
    return ListAnswer(
        owned_events=[_wire(row) for row in scheduled_events.list_live(session, caller.company_id)]
    )


@router.post("/get", response_model=EventAnswer, **_ANSWER)  # type: ignore[arg-type]
def get_event(body: EventIdRequest, caller: ClientCaller, session: DbSession) -> EventAnswer:
    return EventAnswer(scheduled_event=_wire(_event(session, caller, body.scheduled_event_id)))


@router.post("/create", response_model=CreatedAnswer, **_ANSWER)  # type: ignore[arg-type]
def create_event(body: CreateEventRequest, caller: ClientCaller, session: DbSession) -> CreatedAnswer:
    name = _name(body.event_name)
    now = _now()
    spec = _schedule(body.cron_expression, body.timezone, body.schedule_spec, now)
    config = body.config()
    check_target(session, caller, body.action_type, config)
    assert config is not None  # check_target refuses a missing config  # noqa: S101
    row = EventRow(
        id=scheduled_events.new_id(),
        company_id=caller.company_id,
        owner_id=tenancy.primary_admin(session, caller.company_id).id,
        name=name,
        description=body.description,
        action_type=body.action_type.value,
        config_json=_config_json(config),
        enabled=body.enabled,
        action_after_completion=ActionAfterCompletion.NONE.value,
        created_at=now,
        updated_at=now,
    )
    set_window(row, body, now)
    set_retries(row, body)
    set_catchup(row, body)
    _reschedule(row, spec, now)
    scheduled_events.add(session, row)
    return CreatedAnswer(scheduled_event=_wire(row), event_id=row.id, schedule_arn=_arn(row))


@router.post("/update", response_model=UpdatedAnswer, **_ANSWER)  # type: ignore[arg-type]
def update_event(body: UpdateEventRequest, caller: ClientCaller, session: DbSession) -> UpdatedAnswer:
    row = _event(session, caller, body.scheduled_event_id)
    now = _now()
    if "event_name" in body.model_fields_set:
        row.name = _name(body.event_name)
    if body.description is not None:
        row.description = body.description
    action = body.action_type or ActionType(row.action_type)
    present = body.config_field()
    if present is not None and CONFIG_FIELD[action] != present:
        raise ApiError(400, f"the config sent does not match actionType {action.value}")
    config = body.config()
    if config is not None:
        check_target(session, caller, action, config)
        row.action_type, row.config_json = action.value, _config_json(config)
    dates_changed = set_window(row, body, now)
    set_retries(row, body)
    flex_changed = set_catchup(row, body)
    zone = _sent_zone(body.timezone)
    if body.schedule_spec is not None or body.cron_expression is not None:
        # An expression sent without a timezone keeps the event's zone; UTC only when it has none (EVERY).
        zone = zone or stored_timezone(_spec(row))
        _reschedule(row, _schedule(body.cron_expression, zone, body.schedule_spec, now), now)
    elif zone is not None and not isinstance(_spec(row), EverySpec):
        # A timezone alone moves a CRON or ONCE schedule to that zone's wall clock, its expression or
        # time kept exactly (not re-read from the at(...) form, which drops a fraction of a second).
        _reschedule(row, _moved(_spec(row), zone, now), now)
    elif dates_changed or flex_changed:
        # New dates or a new flexibleTimeWindow keep the grid (an EVERY anchor stays) and bound or move it
        # afresh from now.
        row.next_fire_at = first_fire_in_window(row, _spec(row), now)
    if body.enabled is not None:
        _set_enabled(row, body.enabled, now)
    row.updated_at = now
    session.flush()
    return UpdatedAnswer(scheduled_event=_wire(row))


def _set_enabled(row: EventRow, enabled: bool, now: datetime) -> None:
    if enabled and not row.enabled and row.next_fire_at is not None:
        # Fires that fell due while disabled are not owed: the grid resumes from now.
        row.next_fire_at = next_fire(_spec(row), now, anchor=row.anchor_at, window=fire_window(row))
    row.enabled = enabled


@router.post("/toggle", response_model=ToggledAnswer, **_ANSWER)  # type: ignore[arg-type]
def toggle_event(body: ToggleRequest, caller: ClientCaller, session: DbSession) -> ToggledAnswer:
    row = _event(session, caller, body.scheduled_event_id)
    now = _now()
    _set_enabled(row, body.enabled, now)
    row.updated_at = now
    return ToggledAnswer(event_id=row.id, enabled=row.enabled)


@router.post("/delete", response_model=DeletedAnswer, **_ANSWER)  # type: ignore[arg-type]
def delete_event(body: EventIdRequest, caller: ClientCaller, session: DbSession) -> DeletedAnswer:
    row = _event(session, caller, body.scheduled_event_id)
    row.deleted_at = row.updated_at = _now()
    row.next_fire_at = None
    return DeletedAnswer(event_id=row.id, deleted_at=iso_utc(row.deleted_at) or "")


def _trigger(manual: bool, backfill: bool) -> RunTrigger:
    return RunTrigger.RUN_NOW if manual else RunTrigger.BACKFILL if backfill else RunTrigger.SCHEDULE


@router.post("/runs", response_model=RunsAnswer, **_ANSWER)  # type: ignore[arg-type]
def list_runs(body: RunsRequest, caller: ClientCaller, session: DbSession) -> RunsAnswer:
    row = _event(session, caller, body.scheduled_event_id)
    runs, total = scheduled_events.list_runs(
        session, caller.company_id, row.id, body.page, body.size, body.status
    )
    entries = [
        RunEntry(
            run_id=run.id,
            event_id=run.event_id,
            scheduled_for=iso_utc(run.scheduled_for) or "",
            status=RunStatus(run.status),
            action_type=ActionType(run.action_type),
            attempt_number=run.attempt,
            trigger=_trigger(run.manual, run.backfill),
            queued_at=iso_utc(run.queued_at) or "",
            started_at=iso_utc(run.started_at),
            ended_at=iso_utc(run.ended_at),
            duration_ms=run.duration_ms,
            lateness_ms=(
                int((run.started_at - run.scheduled_for).total_seconds() * 1000) if run.started_at else None
            ),
            response=json.loads(run.response_json) if run.response_json else None,
            error_message=run.error_message,
            attempts=run_attempts(run),
        )
        for run in runs
    ]
    return RunsAnswer(
        runs=entries,
        page=body.page,
        size=body.size,
        total_elements=total,
        total_pages=math.ceil(total / body.size),
    )
