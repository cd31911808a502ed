"""The timers' work on scheduled runs that nobody finished: lease renewal by the worker acting on a run, and
the reconciler's recovery of lost runs (a tick nobody took, a RUNNING run whose worker stopped renewing).

Units of work for a :class:`~sinks.db.group_commit.GroupCommitter` (they take a session and never commit),
beside sinks/db/scheduled/runs.py, whose claim starts a run and whose finish ends it. Only a run whose lease
has run out goes to another attempt (core/leases.py); its last attempt fails it as the worker's would.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Table, and_, bindparam, exists, or_, select, tuple_, update
from sqlalchemy.orm import Session

from core import leases
from core.schedules.retries import attempts_cap
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from sinks.db.scheduled import controls, retries
from sinks.db.scheduled.events import Tick
from sinks.db.scheduled.runs import QUEUED, RUNNING, fail_run

# A run whose worker died mid-action is tried again up to this many attempts in all (or its retryPolicy's
# attempts if more), then failed.
MAX_ATTEMPTS = 3
# Runs per lease renewal statement (two bound values each): far below every backend's limit on them.
_RENEW_CHUNK = 5000
LOST_WORKER = "The worker running this event stopped before it finished"
_RUNS = cast(Table, ScheduledEventRun.__table__)
# Built once, for the reconciler's round (``take_stray``): the WHERE clauses of take_lost and take_abandoned
# (without its ``acting`` exclusion, so it never hides work).
_STRAY_PROBE = select(
    exists().where(_RUNS.c.status == QUEUED, _RUNS.c.dispatched_at < bindparam("lost_before")),
    exists().where(
        _RUNS.c.status == RUNNING,
        or_(
            _RUNS.c.lease_until < bindparam("judged"),
            and_(_RUNS.c.lease_until.is_(None), _RUNS.c.started_at < bindparam("started_before")),
        ),
    ),
)


def renew_leases(session: Session, held: list[tuple[str, int]], until: datetime) -> int:
    """Extend the leases of the runs this process acts on, as (run id, attempt), to ``until``: one statement
    for all of them (per ``_RENEW_CHUNK``). A run that ended, or went to another attempt meanwhile, is left
    as it is. Returns how many leases were renewed."""
    renewed = 0
    for first in range(0, len(held), _RENEW_CHUNK):
        done = session.execute(
            update(ScheduledEventRun)
            .where(
                tuple_(ScheduledEventRun.id, ScheduledEventRun.attempt).in_(
                    held[first : first + _RENEW_CHUNK]
                ),
                ScheduledEventRun.status == RUNNING,
            )
            .values(lease_until=until)
            .execution_options(synchronize_session=False)
        )
        renewed += int(done.rowcount)  # type: ignore[attr-defined]
    return renewed


def _tick(run: ScheduledEventRun) -> Tick:
    return Tick(run.event_id, run.id, run.company_id, run.scheduled_for)


def take_lost(session: Session, now: datetime, grace: timedelta, limit: int) -> list[Tick]:
    """QUEUED runs whose tick nobody took within ``grace``: hand them out again (the claim dedups)."""
    runs = list(
        session.scalars(
            select(ScheduledEventRun)
            .where(ScheduledEventRun.status == QUEUED, ScheduledEventRun.dispatched_at < now - grace)
            .order_by(ScheduledEventRun.dispatched_at)
            .limit(limit)
        )
    )
    for run in runs:
        run.dispatched_at = now
    return [_tick(run) for run in runs]


def take_abandoned(
    session: Session, now: datetime, grace: timedelta, limit: int, acting: Collection[str] = ()
) -> list[Tick]:
    """RUNNING runs that lost their worker: their lease ran out (its worker stopped renewing it) or, for a run
    without a lease, they are older than ``grace``. Queue the next attempt, or fail the last. The runs of
    ``acting`` are in this process's hands (a process that was held up, by a rebalance or a loaded machine,
    may find its own leases run out before it renewed them): their outcome is on its way, and another
    attempt would act twice."""
    query = select(ScheduledEventRun).where(
        ScheduledEventRun.status == RUNNING,
        or_(
            ScheduledEventRun.lease_until < now,
            and_(ScheduledEventRun.lease_until.is_(None), ScheduledEventRun.started_at < now - grace),
        ),
    )
    if acting:
        query = query.where(ScheduledEventRun.id.not_in(list(acting)))
    runs = list(session.scalars(query.order_by(ScheduledEventRun.started_at).limit(limit)))
    again: list[Tick] = []
    for run in runs:
        if not leases.abandoned(now, run.started_at, run.lease_until, grace):
            continue
        run.lease_until = None
        event = session.get(ScheduledEvent, run.event_id)
        policy = retries.policy_of(event) if event is not None else None
        if run.attempt >= (attempts_cap(policy, MAX_ATTEMPTS) if policy is not None else MAX_ATTEMPTS):
            fail_run(session, run, now, LOST_WORKER)
            if not run.manual:
                controls.delete_if_complete(session, run.event_id, now)
            continue
        retries.record_lost_attempt(run, now, LOST_WORKER)
        run.status, run.attempt, run.started_at, run.dispatched_at = QUEUED, run.attempt + 1, None, now
        again.append(_tick(run))
    return again


def take_stray(
    session: Session,
    now: datetime,
    queued_grace: timedelta,
    judged: datetime,
    running_grace: timedelta,
    limit: int,
    acting: Collection[str] = (),
) -> tuple[list[Tick], list[Tick]]:
    """The reconciler's round in one unit of work: ``take_lost`` at ``now`` and ``take_abandoned`` at
    ``judged``, each only when one prebuilt statement finds it has work (a round nearly always finds none).
    Returns (lost, abandoned)."""
    lost, abandoned = (
        session.connection()
        .execute(
            _STRAY_PROBE,
            {"lost_before": now - queued_grace, "judged": judged, "started_before": judged - running_grace},
        )
        .one()
    )
    return (
        take_lost(session, now, queued_grace, limit) if lost else [],
        take_abandoned(session, judged, running_grace, limit, acting) if abandoned else [],
    )
