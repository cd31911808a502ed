"""``POST {base_url}/clients/scheduled-events/pause`` and ``/run-now`` (client API key).

/pause is another bound on the event's next fire (core/schedules/window.py): nothing fires before ``until``,
and the event resumes by itself at ``until`` without any worker acting. /run-now stores a QUEUED run row and
hands its tick to the scheduler's topic, exactly as a claimed fire is, so the same claim, handler request,
lease and reconciler carry it; the event's grid does not move. Another company's event is not found, exactly
as /get answers.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from fastapi import APIRouter
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from core.schedules.controls import check_pause_until
from core.schedules.spec import ScheduleError, next_fire
from ingress.deps import ClientCaller, DbSession, PublisherDep, SessionsDep, SettingsDep
from ingress.errors import ApiError
from ingress.handoff import hand_off
from ingress.scheduled.window import first_fire_in_window
from schemas.base import iso_utc
from schemas.scheduled.controls import PauseAnswer, PauseRequest, RunNowAnswer, RunNowRequest
from schemas.scheduled.events import NOT_FOUND
from schemas.scheduled.schedules import load_schedule_spec
from sinks.db.scheduled import controls
from sinks.db.scheduled import events as scheduled_events
from sinks.db.scheduled.events import Tick, fire_window

router = APIRouter(prefix="/clients/scheduled-events", tags=["scheduled events"])
_ANSWER = {"response_model_by_alias": True, "response_model_exclude_none": True}
TOO_MANY_PENDING = "Too many /run-now runs of this event have not ended ({limit}); retry once one has ended"
PENDING_RETRY_AFTER_SECONDS = 5


@router.post("/pause", response_model=PauseAnswer, **_ANSWER)  # type: ignore[arg-type]
def pause_event(body: PauseRequest, caller: ClientCaller, session: DbSession) -> PauseAnswer:
    row = scheduled_events.get(session, caller.company_id, body.scheduled_event_id)
    if row is None:
        raise ApiError(404, NOT_FOUND)
    now = datetime.now(UTC)
    spec = load_schedule_spec(json.loads(row.spec_json))
    if body.until is not None:
        try:
            check_pause_until(body.until, now)
        except ScheduleError as exc:
            raise ApiError(400, str(exc)) from None
        row.paused_until = body.until.astimezone(UTC)
        # A pause that would leave nothing to fire (past a ONCE time or endDate) is refused: it would end
        # the schedule, which /delete or /toggle say plainly.
        row.next_fire_at = first_fire_in_window(row, spec, now, field="until")
    else:
        row.paused_until = None
        row.next_fire_at = next_fire(spec, now, anchor=row.anchor_at, window=fire_window(row))
    row.updated_at = now
    return PauseAnswer(
        event_id=row.id,
        paused_until=iso_utc(row.paused_until),
        next_fire_at=iso_utc(row.next_fire_at) if row.enabled else None,
    )


def _store_run(sessions: sessionmaker[Session], limit: int, company_id: str, event_id: str) -> Tick:
    with sessions.begin() as session:
        row = scheduled_events.get(session, company_id, event_id)
        if row is None:
            raise ApiError(404, NOT_FOUND)
        if controls.pending_manual(session, company_id, row.id) >= limit:
            raise ApiError(
                429,
                TOO_MANY_PENDING.format(limit=limit),
                headers={"Retry-After": str(PENDING_RETRY_AFTER_SECONDS)},
            )
        return controls.add_manual_run(session, row, datetime.now(UTC))


@router.post("/run-now", response_model=RunNowAnswer, **_ANSWER)  # type: ignore[arg-type]
async def run_now(
    body: RunNowRequest,
    caller: ClientCaller,
    sessions: SessionsDep,
    publisher: PublisherDep,
    settings: SettingsDep,
) -> RunNowAnswer:
    """The run is stored before its tick is sent: a broker that does not acknowledge leaves it QUEUED for
    the reconciler (after SVC_QUEUED_GRACE_SECONDS) rather than failing the call: a retry would run twice."""
    limit = settings.scheduler_run_now_max_pending
    tick = await run_in_threadpool(_store_run, sessions, limit, caller.company_id, body.scheduled_event_id)
    await hand_off(publisher, tick.record(), key=tick.event_id)
    return RunNowAnswer(success=True, run_id=tick.run_id)
