"""The life of one scheduled run after its fire was claimed: its start (the claim) and its finish.

Units of work for a :class:`~sinks.db.group_commit.GroupCommitter` (they take a session and never commit).
Every status move is compare-and-set on the status, so a redelivered tick or a second worker never runs
a run twice. A RUNNING run carries a lease its worker renews (core/leases.py): only a run whose lease has
run out goes to another attempt (sinks/db/scheduled/sweeps.py renews leases and recovers lost runs). A
FAILED run of an agent or tool event whose ``continueOnError`` is false disables the event (see
docs/scheduled-events.md); UPDATE_SVCDB has no such flag and keeps its schedule.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from schemas.scheduled.actions import ActionType
from schemas.scheduled.events import RunStatus
from sinks.db.index_hints import unindexed
from sinks.db.models import ScheduledEvent, ScheduledEventRun
from sinks.db.scheduled import controls, overlap, retries

log = logging.getLogger(__name__)
QUEUED, RUNNING = RunStatus.QUEUED.value, RunStatus.RUNNING.value
# A retry's tick may come a little before its time from another worker's clock; the claim allows this much.
_RETRY_SLACK = timedelta(milliseconds=500)
DISABLED_AFTER_FAILURE = "the event was disabled because continueOnError is false"
_STOPPABLE = (ActionType.INVOKE_AGENT.value, ActionType.INVOKE_TOOL.value)


@dataclass(frozen=True)
class RunWork:
    """A claimed run with everything its action needs (the handler it calls is looked up when it acts)."""

    run_id: str
    event_id: str
    company_id: str
    owner_id: str
    scheduled_for: datetime
    attempt: int
    action_type: str
    config: dict[str, Any]
    started_at: datetime
    # A /run-now run (RUN_NOW in /runs).
    manual: bool = False
    # Its end deletes the event if the event has no fire left (actionAfterCompletion DELETE; never manual).
    delete_when_done: bool = False


def claim_runs(
    session: Session, run_ids: list[str], now: datetime, lease_until: datetime | None = None
) -> list[RunWork]:
    """QUEUED → RUNNING for every run of ``run_ids`` still QUEUED, in one statement, with its lease; the
    others were already taken. A run of an event disabled or deleted since its tick is SKIPPED here, so that
    such an event never acts (a /run-now run of a disabled event still acts: it was asked for). A fire a
    pause covers (claimed ahead before the pause came) is withdrawn: a paused fire is no run at all. A fire
    while an earlier run of its event is in progress follows the event's overlapPolicy (overlap)."""
    if not run_ids:
        return []
    moved = list(
        session.scalars(
            update(ScheduledEventRun)
            .where(
                ScheduledEventRun.id.in_(run_ids),
                # By the runs' primary key, not the status index (which SQLite's planner, without
                # statistics, preferred: it walked every QUEUED run for each claim; index_hints.unindexed).
                unindexed(ScheduledEventRun.status) == QUEUED,
                # A retry waits for its time: a stale tick of the run does not start it early.
                or_(ScheduledEventRun.retry_at.is_(None), ScheduledEventRun.retry_at <= now + _RETRY_SLACK),
            )
            .values(status=RUNNING, started_at=now, lease_until=lease_until, retry_at=None)
            .returning(ScheduledEventRun.id)
            .execution_options(synchronize_session=False)
        )
    )
    if not moved:
        return []
    # With each run, whether its event has another run in progress (most have none: hold_back then reads
    # nothing more).
    rows = session.execute(
        select(ScheduledEventRun, ScheduledEvent, overlap.others_in_progress(moved))
        .join(ScheduledEvent, ScheduledEvent.id == ScheduledEventRun.event_id)
        .where(ScheduledEventRun.id.in_(moved))
        .execution_options(populate_existing=True)
    )
    ready: list[tuple[ScheduledEventRun, ScheduledEvent, dict[str, Any]]] = []
    busy: set[str] = set()
    for run, event, in_progress in rows:
        if in_progress:
            busy.add(event.id)
        if controls.paused_over(run, event):
            session.delete(run)
            continue
        if event.deleted_at is not None or not (event.enabled or run.manual):
            state = "deleted" if event.deleted_at is not None else "disabled"
            run.status, run.ended_at, run.duration_ms = RunStatus.SKIPPED.value, now, 0
            run.error_message = f"The event was {state} before this run started"
            continue
        ready.append((run, event, json.loads(event.config_json)))
    ready = overlap.hold_back(session, ready, now, busy)
    # The handler an action calls is read when it acts, through the worker's handler cache
    # (``HandlerRuntime.handler_version``): the claim does not read it.
    works: list[RunWork] = []
    for run, event, config in ready:
        works.append(
            RunWork(
                run_id=run.id,
                event_id=event.id,
                company_id=event.company_id,
                owner_id=event.owner_id,
                scheduled_for=run.scheduled_for,
                attempt=run.attempt,
                action_type=event.action_type,
                config=config,
                started_at=now,
                manual=run.manual,
                delete_when_done=controls.deletes_when_done(run, event),
            )
        )
    return works


def claim_run(session: Session, run_id: str, now: datetime) -> RunWork | None:
    """:func:`claim_runs` for one run."""
    works = claim_runs(session, [run_id], now)
    return works[0] if works else None


def _stop_after_failure(session: Session, run: ScheduledEventRun, now: datetime) -> bool:
    """Disable the run's event if its config says a failure stops it; True if this call disabled it."""
    event = session.get(ScheduledEvent, run.event_id)
    if event is None or event.action_type not in _STOPPABLE:
        return False
    if json.loads(event.config_json).get("continueOnError", False):
        return False
    stopped = session.execute(
        update(ScheduledEvent)
        .where(
            ScheduledEvent.id == event.id,
            ScheduledEvent.enabled.is_(True),
            ScheduledEvent.deleted_at.is_(None),
        )
        .values(enabled=False, updated_at=now)
    )
    if stopped.rowcount != 1:  # type: ignore[attr-defined]
        return False
    log.warning(
        "scheduled event disabled after a failed run",
        extra={"event_id": event.id, "run_id": run.id, "company_id": event.company_id},
    )
    return True


def fail_run(session: Session, run: ScheduledEventRun, now: datetime, error: str | None) -> None:
    """RUNNING → FAILED (the caller checked the status): disable the event if its config says a failure
    stops it, and owe the run's dead letter."""
    run.status, run.ended_at = RunStatus.FAILED.value, now
    message = error or "The run failed"
    if _stop_after_failure(session, run, now):
        message = f"{message} ({DISABLED_AFTER_FAILURE})"
    run.error_message = message
    retries.owe_dead_letter(session, run, now)


def finish_run(
    session: Session,
    run_id: str,
    status: RunStatus,
    ended_at: datetime,
    response: Any,
    error: str | None,
    started_at: datetime | None = None,
    attempt: int | None = None,
    delete_event: str | None = None,
    retry: retries.RetryTiming | None = None,
) -> bool:
    """RUNNING → a final status; False if the reconciler already gave the run to another attempt. With
    ``attempt``, only that attempt's outcome is written: a worker that lost its lease cannot end (or, failing,
    disable the event of) the attempt that replaced it. ``delete_event`` (RunWork.delete_when_done): the
    event this run's end deletes if it has no fire left (actionAfterCompletion DELETE). ``retry``: the
    failure is retryable; the run goes back to QUEUED for its next attempt if its retryPolicy has one (not
    an end: nothing is deleted, continueOnError waits for the last attempt)."""
    ended = _finish(session, run_id, status, ended_at, response, error, started_at, attempt, retry)
    if ended and delete_event is not None:
        controls.delete_if_complete(session, delete_event, ended_at)
    return ended


def ended_values(
    status: RunStatus, started_at: datetime, ended_at: datetime, response: Any, error: str | None
) -> dict[str, Any]:
    """The columns a run's end writes when it needs no read (not FAILED), by column name."""
    return {
        "status": status.value,
        "ended_at": ended_at,
        "duration_ms": max(0, int((ended_at - started_at).total_seconds() * 1000)),
        "response_json": json.dumps(response) if response is not None else None,
        "error_message": error,
    }


def _finish(
    session: Session,
    run_id: str,
    status: RunStatus,
    ended_at: datetime,
    response: Any,
    error: str | None,
    started_at: datetime | None,
    attempt: int | None,
    retry: retries.RetryTiming | None = None,
) -> bool:
    same_attempt = () if attempt is None else (ScheduledEventRun.attempt == attempt,)
    if status is not RunStatus.FAILED and started_at is not None:
        # The common case in one statement, without loading the row.
        done = session.execute(
            update(ScheduledEventRun)
            .where(ScheduledEventRun.id == run_id, ScheduledEventRun.status == RUNNING, *same_attempt)
            .values(**ended_values(status, started_at, ended_at, response, error))
            .execution_options(synchronize_session=False)
        )
        return bool(done.rowcount == 1)  # type: ignore[attr-defined]
    run = session.get(ScheduledEventRun, run_id, populate_existing=True)
    if run is None or run.status != RUNNING or (attempt is not None and run.attempt != attempt):
        return False
    started = run.started_at or ended_at
    run.duration_ms = max(0, int((ended_at - started).total_seconds() * 1000))
    run.response_json = json.dumps(response) if response is not None else None
    if status is RunStatus.FAILED:
        if retry is not None and retries.retry(session, run, ended_at, error, retry):
            return False
        fail_run(session, run, ended_at, error)
        return True
    run.status, run.ended_at, run.error_message = status.value, ended_at, error
    return True
