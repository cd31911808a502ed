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
from core.versions import LATEST_PUBLISHED, VersionNotResolved, resolve
from ingress.deps import ClientCaller, DbSession
from ingress.errors import ApiError
from schemas.admin import Principal
from schemas.base import iso_utc
from schemas.enums import AccessLevel
from schemas.scheduled_events import (
    CONFIG_FIELD,
    EVENT_NAME_REQUIRED,
    FOREIGN_TARGET,
    NOT_FOUND,
    ActionConfig,
    ActionType,
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
    missing_target_message,
    target_id,
)
from schemas.schedules import CronSpec, EverySpec, OnceSpec, dump_schedule_spec, load_schedule_spec
from sinks.db import resources, scheduled_events, tables, tenancy
from sinks.db.models import ScheduledEvent as EventRow

router = APIRouter(prefix="/clients/scheduled-events", tags=["scheduled events"])
Spec = EverySpec | CronSpec | OnceSpec
# Running an agent or tool on a schedule needs at least this level on it; company admins hold ADMIN.
USE_LEVEL = AccessLevel.READ
_NOUN = {ActionType.INVOKE_AGENT: "agent", ActionType.INVOKE_TOOL: "tool", ActionType.UPDATE_SVCDB: "table"}
_KIND = {ActionType.INVOKE_AGENT: "AGENT", ActionType.INVOKE_TOOL: "TOOL"}
_WIRE_CONFIG = {ActionType.INVOKE_AGENT: "agentConfig", ActionType.INVOKE_TOOL: "toolConfig"}
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


def _check_target(
    session: Session, caller: Principal, action: ActionType, config: ActionConfig | None
) -> None:
    resource_id = target_id(action, config)
    if resource_id is None:
        raise ApiError(400, missing_target_message(action))
    denied = f"API key does not have permission to access the target {_NOUN[action]} (ID: {resource_id})"
    if action is ActionType.UPDATE_SVCDB:
        if tables.get(session, caller.company_id, resource_id) is None:
            raise ApiError(400, FOREIGN_TARGET)
        access = tables.access(session, caller.company_id, caller.user_id, caller.is_admin, resource_id)
        if not access.allows("WRITE"):
            raise ApiError(403, denied)
        return
    handler = resources.get_handler(session, caller.company_id, resource_id)
    if handler is None or handler.type != _KIND[action]:
        raise ApiError(400, FOREIGN_TARGET)
    level = resources.access_level(session, caller.company_id, caller.user_id, handler.id)
    if level is None or not level.allows(USE_LEVEL):
        raise ApiError(403, denied)
    _check_version(session, caller, action, config, handler.id)


def _check_version(
    session: Session, caller: Principal, action: ActionType, config: ActionConfig | None, resource_id: str
) -> None:
    """The version the event would run must exist now (the run resolves it again when it fires)."""
    selector = getattr(config, "version", None) or LATEST_PUBLISHED
    versions = resources.versions_of(session, caller.company_id, resource_id)
    try:
        resolve(versions, selector, f"{_KIND[action]} {resource_id}")
    except VersionNotResolved as exc:
        raise ApiError(400, f"{_WIRE_CONFIG[action]}.version: {exc}") from None


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
    """A new schedule starts a new grid: EVERY counts from now, CRON and ONCE from the next match."""
    row.spec_json = json.dumps(dump_schedule_spec(spec))
    row.anchor_at = now
    row.next_fire_at = next_fire(spec, now, anchor=now)


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
    _check_target(session, caller, body.action_type, config)
    assert config is not None  # _check_target refuses a missing config  # noqa: S101
    row = EventRow(
        id=scheduled_events.new_id(),
        company_id=caller.company_id,
        owner_id=tenancy.primary_admin(session, caller.company_id).id,
        name=name,
        description=body.description,
        action_type=body.action_type.value,
        config_json=_config_json(config),
        enabled=body.enabled,
        created_at=now,
        updated_at=now,
    )
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
        _check_target(session, caller, action, config)
        row.action_type, row.config_json = action.value, _config_json(config)
    zone = _sent_zone(body.timezone)
    if body.schedule_spec is not None or body.cron_expression is not None:
        # An expression sent without a timezone keeps the event's zone; UTC only when it has none (EVERY).
        zone = zone or stored_timezone(_spec(row))
        _reschedule(row, _schedule(body.cron_expression, zone, body.schedule_spec, now), now)
    elif zone is not None and not isinstance(_spec(row), EverySpec):
        # A timezone alone moves a CRON or ONCE schedule to that zone's wall clock, its expression or
        # time kept exactly (not re-read from the at(...) form, which drops a fraction of a second).
        _reschedule(row, _moved(_spec(row), zone, now), now)
    if body.enabled is not None:
        _set_enabled(row, body.enabled, now)
    row.updated_at = now
    session.flush()
    return UpdatedAnswer(scheduled_event=_wire(row))


def _set_enabled(row: EventRow, enabled: bool, now: datetime) -> None:
    if enabled and not row.enabled and row.next_fire_at is not None:
        # Fires that fell due while disabled are not owed: the grid resumes from now.
        row.next_fire_at = next_fire(_spec(row), now, anchor=row.anchor_at)
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
            queued_at=iso_utc(run.queued_at) or "",
            started_at=iso_utc(run.started_at),
            ended_at=iso_utc(run.ended_at),
            duration_ms=run.duration_ms,
            lateness_ms=(
                int((run.started_at - run.scheduled_for).total_seconds() * 1000) if run.started_at else None
            ),
            response=json.loads(run.response_json) if run.response_json else None,
            error_message=run.error_message,
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
