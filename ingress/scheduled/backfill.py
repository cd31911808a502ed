"""``POST {base_url}/clients/scheduled-events/backfill`` (client API key): run each past fire time of an event
in a range once, in order.

The fire times come from the same next-fire function the scheduler fires by (core/schedules/spec.py), with
the event's startDate, endDate and flexibleTimeWindow; a pause does not hide a past time from a backfill
(a pause is about fires to come). The runs are stored before their ticks are sent, as /run-now's; a broker
that does not acknowledge leaves them QUEUED for the reconciler. Another company's event is not found.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta

from fastapi import APIRouter
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from core.schedules.controls import shown
from core.schedules.preview import fire_times
from ingress.deps import ClientCaller, PublisherDep, SessionsDep
from ingress.errors import ApiError
from ingress.handoff import hand_off
from schemas.scheduled.backfill import MAX_BACKFILL_FIRES, BackfillAnswer, BackfillRequest
from schemas.scheduled.events import NOT_FOUND
from schemas.scheduled.schedules import load_schedule_spec
from sinks.db.scheduled import backfill as scheduled_backfill
from sinks.db.scheduled import events as scheduled_events
from sinks.db.scheduled.events import Tick, fire_window

router = APIRouter(prefix="/clients/scheduled-events", tags=["scheduled events"])
_ANSWER = {"response_model_by_alias": True, "response_model_exclude_none": True}
_INSTANT = timedelta(microseconds=1)


def _store_runs(sessions: sessionmaker[Session], company_id: str, body: BackfillRequest) -> list[Tick]:
    start, end, now = body.from_.astimezone(UTC), body.to.astimezone(UTC), datetime.now(UTC)
    if start >= end:
        raise ApiError(400, f"from: must be before to ({shown(start)} is not before {shown(end)})")
    if end > now:
        raise ApiError(400, f"to: must not be in the future ({shown(end)} has not passed yet)")
    with sessions.begin() as session:
        row = scheduled_events.get(session, company_id, body.scheduled_event_id)
        if row is None:
            raise ApiError(404, NOT_FOUND)
        window = dataclasses.replace(fire_window(row), paused_until=None)
        spec = load_schedule_spec(json.loads(row.spec_json))
        times = [
            t
            for t in fire_times(
                spec, start - _INSTANT, anchor=row.anchor_at, count=MAX_BACKFILL_FIRES + 1, window=window
            )
            if t <= end
        ]
        if len(times) > MAX_BACKFILL_FIRES:
            raise ApiError(
                400,
                f"to: the range has more than {MAX_BACKFILL_FIRES} fire times; backfill a shorter range",
            )
        return scheduled_backfill.add_backfill_runs(session, row, times, now)


@router.post("/backfill", response_model=BackfillAnswer, **_ANSWER)  # type: ignore[arg-type]
async def backfill(
    body: BackfillRequest, caller: ClientCaller, sessions: SessionsDep, publisher: PublisherDep
) -> BackfillAnswer:
    ticks = await run_in_threadpool(_store_runs, sessions, caller.company_id, body)
    # In scheduled order, keyed by the event: one partition, so the worker takes them in that order.
    for tick in ticks:
        await hand_off(publisher, tick.record(), key=tick.event_id)
    return BackfillAnswer(scheduled=len(ticks))
