"""Leases of delivery attempts in the repository: the claim writes one, one statement renews a process's
attempts (only while PROCESSING), and the reconciler fails an attempt as lost only once its lease ran out,
however long it has run and whatever its webhook's timeout says now; an attempt without a lease keeps the old
rule (its webhook's timeout plus the grace)."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from schemas.deliveries import DeliveryTask
from sinks.db.models import WebhookExecution
from sinks.db.webhooks import deliveries, delivery_attempts, delivery_sweeps
from sinks.db.webhooks.delivery_attempts import Finish
from tests.fixtures.stack import Db
from tests.integration.webhooks.test_claim_batches import _delivery

pytestmark = pytest.mark.integration

NOW = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)
LEASE = timedelta(seconds=15)
GRACE = timedelta(seconds=10)
# _delivery's webhook has timeoutSeconds 1: the old rule failed its attempts 11 s after their claim.
OLD_RULE = timedelta(seconds=1) + GRACE


def queued(db: Db, count: int) -> list[DeliveryTask]:
    company = db.create_company()
    template = _delivery(db, company.company_id, company.user_id)
    with db.sessions.begin() as session:
        return [
            deliveries.record_delivery(session, replace(template, execution_id=uuid.uuid4().hex))
            for _ in range(count)
        ]


def claimed(db: Db, count: int, lease: bool = True) -> list[DeliveryTask]:
    tasks = queued(db, count)
    with db.sessions.begin() as session:
        attempts = delivery_attempts.claim(session, tasks, NOW, NOW + LEASE if lease else None)
    return [attempt.task for attempt in attempts]


def entries(db: Db) -> dict[str, tuple[str, datetime | None]]:
    with db.sessions() as session:
        return {
            entry.id: (entry.status, entry.lease_until) for entry in session.scalars(select(WebhookExecution))
        }


def lost(db: Db, now: datetime, acting: frozenset[str] = frozenset()) -> list[str]:
    with db.sessions() as session:
        return [task.entry_id for task, _, _ in delivery_sweeps.abandoned(session, now, GRACE, 100, acting)]


def test_the_claim_writes_a_lease_and_one_statement_renews_the_attempts_still_processing(db: Db) -> None:
    tasks = claimed(db, 2)
    first, second = (task.entry_id for task in tasks)
    assert {lease for _, lease in entries(db).values()} == {NOW + LEASE}
    with db.sessions.begin() as session:
        done = Finish(
            task=tasks[1],
            ok=True,
            request_json=None,
            response_json=None,
            error_message=None,
            ended_at=NOW,
            retry_at=None,
        )
        delivery_attempts.finish(session, done)
    later = NOW + timedelta(minutes=5)
    with db.sessions.begin() as session:
        assert delivery_sweeps.renew_leases(session, [first, second], later + LEASE) == 1
        assert delivery_sweeps.renew_leases(session, [], later) == 0
    found = entries(db)
    assert found[first] == ("PROCESSING", later + LEASE)
    assert found[second] == ("SUCCESS", NOW + LEASE)


def test_an_attempt_is_lost_only_once_its_lease_ran_out_however_long_it_ran(db: Db) -> None:
    renewed, expired = (task.entry_id for task in claimed(db, 2))
    hour_later = NOW + timedelta(hours=1)
    with db.sessions.begin() as session:
        delivery_sweeps.renew_leases(session, [renewed], hour_later + LEASE)
    # An hour past the webhook's 1 s timeout, but renewed: kept. The other one's lease ran out.
    assert lost(db, hour_later) == [expired]
    # Its lease runs out exactly at NOW + LEASE: lost just after, long before the old rule would say so.
    assert lost(db, NOW + LEASE) == []
    assert lost(db, NOW + LEASE + timedelta(seconds=1)) == [expired]


def test_the_process_acting_on_an_attempt_keeps_it_even_with_its_lease_run_out(db: Db) -> None:
    mine, other = (task.entry_id for task in claimed(db, 2))
    assert lost(db, NOW + timedelta(minutes=1), acting=frozenset({mine})) == [other]


def test_an_attempt_without_a_lease_keeps_the_old_rule(db: Db) -> None:
    (entry,) = (task.entry_id for task in claimed(db, 1, lease=False))
    assert entries(db)[entry] == ("PROCESSING", None)
    assert lost(db, NOW + OLD_RULE) == []
    assert lost(db, NOW + OLD_RULE + timedelta(seconds=1)) == [entry]
