"""Leases of scheduled runs in the repository: the claim writes one, one statement renews a process's runs
(only the attempt it holds, only while RUNNING), and the reconciler takes a run only once its lease ran out,
however long it has run; a run without a lease keeps the old grace rule."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import update

from schemas.scheduled.events import RunStatus
from sinks.db.models import ScheduledEventRun
from sinks.db.scheduled import runs as scheduled_runs
from sinks.db.scheduled import sweeps
from tests.fixtures.stack import Db
from tests.unit.test_scheduled_event_models import EVERY_MINUTE, NOW, add_event, claim

pytestmark = pytest.mark.integration

LEASE = timedelta(seconds=15)
GRACE = timedelta(seconds=20)


def claimed_runs(db: Db, count: int, lease: bool = True) -> list[str]:
    for minutes in range(1, count + 1):
        add_event(db, EVERY_MINUTE, next_fire_at=NOW, anchor=NOW - timedelta(minutes=minutes))
    ticks = claim(db, NOW)
    with db.sessions.begin() as session:
        works = scheduled_runs.claim_runs(
            session, [tick.run_id for tick in ticks], NOW, NOW + LEASE if lease else None
        )
    return [work.run_id for work in works]


def leases(db: Db) -> dict[str, tuple[str, int, datetime | None]]:
    with db.sessions() as session:
        return {
            run.id: (run.status, run.attempt, run.lease_until) for run in session.query(ScheduledEventRun)
        }


def test_the_claim_writes_a_lease_and_one_statement_renews_the_held_attempts(db: Db) -> None:
    first, second, third = claimed_runs(db, 3)
    assert {lease for _, _, lease in leases(db).values()} == {NOW + LEASE}
    with db.sessions.begin() as session:
        assert scheduled_runs.finish_run(session, third, RunStatus.SUCCEEDED, NOW, None, None, NOW)
    later = NOW + timedelta(seconds=40)
    with db.sessions.begin() as session:
        # The second run is held as attempt 2 (another attempt's run), the third ended: neither is renewed.
        renewed = sweeps.renew_leases(session, [(first, 1), (second, 2), (third, 1)], later + LEASE)
        assert sweeps.renew_leases(session, [], later) == 0
    assert renewed == 1
    found = leases(db)
    assert found[first] == ("RUNNING", 1, later + LEASE)
    assert found[second] == ("RUNNING", 1, NOW + LEASE)
    assert found[third][2] == NOW + LEASE


def test_a_run_is_taken_only_once_its_lease_ran_out_however_long_it_ran(db: Db) -> None:
    renewed, expired = claimed_runs(db, 2)
    hour_later = NOW + timedelta(hours=1)
    with db.sessions.begin() as session:
        sweeps.renew_leases(session, [(renewed, 1)], hour_later + LEASE)
        # Far past the grace, but renewed: kept. The other one's lease ran out: its next attempt is queued.
        again = sweeps.take_abandoned(session, hour_later, GRACE, 10)
    assert [tick.run_id for tick in again] == [expired]
    found = leases(db)
    assert found[renewed] == ("RUNNING", 1, hour_later + LEASE)
    assert found[expired] == ("QUEUED", 2, None)  # the next attempt's claim writes its own lease


def test_a_run_is_taken_as_soon_as_its_lease_ran_out_before_the_old_grace(db: Db) -> None:
    (run,) = claimed_runs(db, 1)
    with db.sessions.begin() as session:
        assert sweeps.take_abandoned(session, NOW + LEASE, GRACE, 10) == []
    with db.sessions.begin() as session:
        again = sweeps.take_abandoned(session, NOW + LEASE + timedelta(seconds=1), GRACE, 10)
    assert [tick.run_id for tick in again] == [run]


def test_a_run_without_a_lease_keeps_the_grace_rule(db: Db) -> None:
    (run,) = claimed_runs(db, 1, lease=False)
    with db.sessions.begin() as session:
        assert sweeps.take_abandoned(session, NOW + GRACE, GRACE, 10) == []
    with db.sessions.begin() as session:
        again = sweeps.take_abandoned(session, NOW + GRACE + timedelta(seconds=1), GRACE, 10)
    assert [tick.run_id for tick in again] == [run]


def test_the_process_acting_on_a_run_keeps_it_even_with_its_lease_run_out(db: Db) -> None:
    """A process held up longer than its lease (its renewal late) is not robbed by its own reconciler."""
    mine, lost = claimed_runs(db, 2)
    later = NOW + LEASE + timedelta(seconds=1)
    with db.sessions.begin() as session:
        again = sweeps.take_abandoned(session, later, GRACE, 10, acting=frozenset({mine}))
    assert [tick.run_id for tick in again] == [lost]
    with db.sessions.begin() as session:
        session.execute(update(ScheduledEventRun).values(attempt=sweeps.MAX_ATTEMPTS))
        # The last attempt whose lease ran out fails instead of going round again.
        assert sweeps.take_abandoned(session, later, GRACE, 10) == []
    assert leases(db)[mine][0] == "FAILED"
