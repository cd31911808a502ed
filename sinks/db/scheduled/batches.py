"""Scheduled runs claimed and ended many at a time: the units a group commit gathers (``Gathered``).

The claims of one group commit go as one claim, and the plain ends as one prebuilt executemany, so the
committer's thread does not wait for the database's answer to the same statements once per few runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, bindparam, update
from sqlalchemy.orm import Session

from schemas.scheduled.events import RunStatus
from sinks.db.models import ScheduledEventRun
from sinks.db.scheduled.runs import RUNNING, RunWork, claim_runs, ended_values

_RUNS = cast(Table, ScheduledEventRun.__table__)
# Built once: the end of a run that did not fail, for many runs in one executemany (``finish_plain_runs``).
_ENDED_COLUMNS = ("status", "ended_at", "duration_ms", "response_json", "error_message")
_FINISH_PLAIN = (
    update(_RUNS)
    .where(
        _RUNS.c.id == bindparam("run_id"),
        _RUNS.c.status == RUNNING,
        _RUNS.c.attempt == bindparam("run_attempt"),
    )
    # A bound parameter may not take its column's own name in an UPDATE: each is "run_<column>".
    .values(**{column: bindparam(f"run_{column}") for column in _ENDED_COLUMNS})
)


@dataclass(frozen=True)
class Claim:
    """One flush of a worker's runs waking together: their ids, the moment and the lease of their claim."""

    run_ids: list[str]
    now: datetime
    lease_until: datetime | None = None


def claim_together(session: Session, claims: list[Claim]) -> list[list[RunWork]]:
    """:func:`claim_runs` for every claim a group commit gathered (``Gathered``), in its two statements. The
    latest moment and lease of the claims stand for all of them (they are a commit apart). Each claim gets the
    works of its own runs; a run named by two claims goes to the first.
    """
    if not claims:
        return []
    moment = max(claim.now for claim in claims)
    leases = [claim.lease_until for claim in claims if claim.lease_until is not None]
    ids = list(dict.fromkeys(run_id for claim in claims for run_id in claim.run_ids))
    works = {work.run_id: work for work in claim_runs(session, ids, moment, max(leases, default=None))}
    return [[works.pop(run_id) for run_id in claim.run_ids if run_id in works] for claim in claims]


@dataclass(frozen=True)
class PlainEnd:
    """A run's end that needs no read: not FAILED, and nothing to delete after it (``finish_run`` does the
    rest)."""

    run_id: str
    attempt: int
    status: RunStatus
    started_at: datetime
    ended_at: datetime
    response: Any
    error: str | None

    def __post_init__(self) -> None:
        if self.status is RunStatus.FAILED:
            raise ValueError("a failed run ends through finish_run (retries, continueOnError)")


def finish_plain_runs(session: Session, ends: list[PlainEnd]) -> list[None]:
    """RUNNING → each end's status, for the attempt it names: one prebuilt statement run for all of them
    (on PostgreSQL psycopg sends them in one pipeline, on SQLite one prepared statement), where
    ``finish_run`` built and sent an UPDATE per run. A run the reconciler already gave to another attempt
    is left as it is, as ``finish_run`` leaves it. The group committer gathers the ends of one batch
    (``Gathered``)."""
    if ends:
        session.connection().execute(_FINISH_PLAIN, [_plain_values(end) for end in ends])
    return [None] * len(ends)


def _plain_values(end: PlainEnd) -> dict[str, Any]:
    ended = ended_values(end.status, end.started_at, end.ended_at, end.response, end.error)
    return {"run_id": end.run_id, "run_attempt": end.attempt} | {
        f"run_{column}": value for column, value in ended.items()
    }
