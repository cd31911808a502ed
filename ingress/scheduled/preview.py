"""``POST {base_url}/clients/scheduled-events/preview``: the next fire times of a schedule (client API key).

Read-only: it stores nothing and runs nothing, so any client key of the company may call it and the action's
target is not checked. The times come from the function the scheduler fires by (core/schedules/preview.py).
Beside ingress/scheduled/events.py rather than in it, which is past the size modules are kept to.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from fastapi import APIRouter
from sqlalchemy.orm import Session

from core.schedules.preview import check_cron_syntax, fire_times, preview_timezone, show_in_zone
from core.schedules.spec import ScheduleError, parse_schedule_expression
from core.schedules.window import NO_WINDOW, FireWindow
from ingress.deps import ClientCaller, DbSession
from ingress.errors import ApiError
from schemas.scheduled.events import NOT_FOUND
from schemas.scheduled.preview import SchedulePreviewAnswer, SchedulePreviewRequest
from schemas.scheduled.schedules import CronSpec, EverySpec, OnceSpec, load_schedule_spec
from sinks.db.scheduled import events as scheduled_events

router = APIRouter(prefix="/clients/scheduled-events", tags=["scheduled events"])
Spec = EverySpec | CronSpec | OnceSpec


def _from_expression(expression: str, timezone: str | None) -> Spec:
    """As /create reads ``cronExpression``; each error names the field at fault: the expression is read
    first on its own (in UTC), so an error that only the timezone brings is the timezone's."""
    try:
        parse_schedule_expression(expression, None)
    except ScheduleError as exc:
        raise ApiError(400, f"cronExpression: {exc}") from None
    try:
        return parse_schedule_expression(expression, timezone)
    except ScheduleError as exc:
        raise ApiError(400, f"timezone: {exc}") from None


def _from_spec(spec: Spec) -> Spec:
    try:
        check_cron_syntax(spec)
    except ScheduleError as exc:
        raise ApiError(400, f"scheduleSpec.cron.expression: {exc}") from None
    return spec


def _stored(session: Session, company_id: str, event_id: str) -> tuple[Spec, datetime, FireWindow]:
    """The event's schedule, the anchor its EVERY grid counts from and its window (startDate, endDate, a
    pause); another company's event is not found, exactly as /get answers."""
    row = scheduled_events.get(session, company_id, event_id)
    if row is None:
        raise ApiError(404, NOT_FOUND)
    return load_schedule_spec(json.loads(row.spec_json)), row.anchor_at, scheduled_events.fire_window(row)


@router.post("/preview", response_model=SchedulePreviewAnswer, response_model_by_alias=True)
def preview_schedule(
    body: SchedulePreviewRequest, caller: ClientCaller, session: DbSession
) -> SchedulePreviewAnswer:
    after = (body.from_ or datetime.now(UTC)).astimezone(UTC)
    window = NO_WINDOW
    if body.scheduled_event_id is not None:
        spec, anchor, window = _stored(session, caller.company_id, body.scheduled_event_id)
    else:
        # An event saved at ``from`` would anchor its EVERY grid there, as /create anchors at its own now.
        anchor = after
        spec = (
            _from_spec(body.schedule_spec)
            if body.schedule_spec is not None
            else _from_expression(body.cron_expression or "", body.timezone)
        )
    zone = preview_timezone(spec)
    times = fire_times(spec, after, anchor=anchor, count=body.count, window=window)
    return SchedulePreviewAnswer(fire_times=[show_in_zone(moment, zone) for moment in times], timezone=zone)
