"""Result files that no job names, removed.

A query's result file is written before its job records it (``jobs.finish``, ``jobs.create_ended``), so a
process stopped between the two, a query refused after it ran in the ingress (no slot, over its quota, a
duplicate requestId) or a delete that failed leaves a file that the expiry sweep (``jobs.expired_results``)
never meets. The leader worker lists the result files older than ``ORPHAN_MIN_AGE`` a page at a time, asks
the metadata DB which of them a job still names, and deletes the others.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session, sessionmaker

from schemas.jobs import JobState
from sinks.db.models import Job
from sinks.job_results import delete_result, result_key
from sinks.objectstore import ObjectStore

log = logging.getLogger(__name__)
RESULTS_PREFIX = "results/"
# Far past the longest a result file waits for its job's record: a query runs 900 s at most
# (SVC_QUERY_TIMEOUT_SECONDS) and an inline query records its job in the call that ran it. A younger file
# may belong to a job that is about to name it.
ORPHAN_MIN_AGE = timedelta(days=1)
# Old result files looked at per pass. Results are kept 7 days, so most of them are named and stay; the next
# pass goes on after the last one, and a pass that finds fewer starts again from the first.
ORPHAN_PAGE = 1_000
# Keys per query of the metadata DB: with their job ids, 2,000 bound parameters (SQLite allows 32,766).
_CHUNK = 1_000
_ACTIVE = (JobState.QUEUED.value, JobState.RUNNING.value)
_RESULT_FILE = re.compile(r"^results/([^/]+)/([0-9a-f]{32})\.parquet$")


@dataclass(frozen=True)
class OrphanSweep:
    """How many result files a pass removed, and the key the next pass starts after (None: the first)."""

    removed: int
    resume_after: str | None


def job_of(key: str) -> tuple[str, str] | None:
    """(company id, job id) of a result file's key; None for a key that is not exactly ``result_key``'s,
    which the sweep leaves alone."""
    found = _RESULT_FILE.match(key)
    if found is None or result_key(found[1], found[2]) != key:
        return None
    return found[1], found[2]


def named_keys(session: Session, owners: Mapping[str, tuple[str, str]]) -> set[str]:
    """The keys of ``owners`` (result key → company id, job id) that a job names (a job answered from the
    cache names the file of the job it shares), or that a job still QUEUED or RUNNING will write: one sent
    again after its worker died writes its file anew. One query per ``_CHUNK`` keys."""
    keys = list(owners)
    named: set[str] = set()
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        ids = [owners[key][1] for key in chunk]
        rows = session.execute(
            select(Job.id, Job.company_id, Job.state, Job.result_key).where(
                or_(Job.result_key.in_(chunk), and_(Job.id.in_(ids), Job.state.in_(_ACTIVE)))
            )
        )
        for job_id, company_id, state, key in rows:
            if key is not None:
                named.add(key)
            if state in _ACTIVE:
                named.add(result_key(company_id, job_id))
    return named


def sweep_orphan_results(
    sessions: sessionmaker[Session],
    store: ObjectStore,
    *,
    now: datetime,
    min_age: timedelta = ORPHAN_MIN_AGE,
    limit: int = ORPHAN_PAGE,
    start_after: str | None = None,
) -> OrphanSweep:
    """One pass over up to ``limit`` result files older than ``min_age``, after the key ``start_after``:
    those no job names are deleted. Blocking (DB and store I/O): run it in a thread."""
    listed = store.list_older(RESULTS_PREFIX, now - min_age, limit, start_after)
    owners = {key: owner for key in listed if (owner := job_of(key)) is not None}
    with sessions() as session:
        named = named_keys(session, owners) if owners else set()
    removed = 0
    for key in owners:
        if key not in named:
            delete_result(store, key)
            removed += 1
    if removed:
        log.info("orphan results removed", extra={"count": removed, "listed": len(listed)})
    return OrphanSweep(removed, listed[-1] if len(listed) == limit else None)
