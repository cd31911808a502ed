"""Deliveries waiting for their company's share of a worker's slots (core/webhooks/fair_share.py): they stay
QUEUED out of every sweep by time; an ending call of the company takes the oldest into its slot when no
delivery of its destination does; the leader's sweep wakes a few only when the company holds no slot
anywhere (the worker that parked them stopped)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from core.webhooks.destinations import Breaker
from sinks.db.models import WebhookExecution
from sinks.db.webhooks import delivery_attempts, delivery_sweeps, destinations
from sinks.db.webhooks.delivery_attempts import Finish, HandOver
from tests.fixtures.stack import Db
from tests.integration.webhooks.delivery_helpers import limited_deliveries

pytestmark = pytest.mark.integration

BREAKER = Breaker()


def _waiting_for(db: Db, entry_ids: list[str]) -> dict[str, str | None]:
    with db.sessions() as session:
        found = WebhookExecution.id.in_(entry_ids)
        rows = session.execute(select(WebhookExecution.id, WebhookExecution.waiting_for).where(found))
        return {row.id: row.waiting_for for row in rows}


def test_deliveries_waiting_for_a_share_are_taken_oldest_first_by_the_companys_ending_calls(db: Db) -> None:
    tasks = limited_deliveries(db, 10, 6)
    now = datetime.now(UTC)
    with db.sessions.begin() as session:
        (running,) = delivery_attempts.claim(session, tasks[:1], now, breaker=BREAKER)
        destinations.wait_for_share(session, tasks[1:], now)
    company = tasks[0].company_id
    assert set(_waiting_for(db, [task.entry_id for task in tasks[1:]]).values()) == {f"company:{company}"}
    with db.sessions.begin() as session:  # no sweep by time hands them to Kafka
        later = now + timedelta(hours=1)
        assert delivery_sweeps.take_due(session, later, 100) == []
        assert delivery_sweeps.take_lost(session, later, timedelta(seconds=1), 100) == []
    ended = Finish(
        task=running.task,
        ok=True,
        request_json="{}",
        response_json=None,
        error_message=None,
        ended_at=datetime.now(UTC),
        retry_at=None,
        started_at=running.started_at,
        destination=running.destination,
        frees_slot=True,
        wake_share=True,
    )
    hand_over = HandOver(lease=timedelta(seconds=15), clock=lambda: datetime.now(UTC))
    with db.sessions.begin() as session:
        (settled,) = delivery_attempts.settle_all(session, [ended], BREAKER, hand_over)
    assert settled.next is not None and settled.next.task == tasks[1]
    assert not settled.share_drained
    with db.sessions.begin() as session:
        attempts, drained = delivery_attempts.claim_for_shares(
            session, {company: 10}, now, now + timedelta(seconds=15), BREAKER
        )
    assert [attempt.task for attempt in attempts] == tasks[2:] and drained == {company}


def test_the_leaders_sweep_wakes_a_share_only_when_its_company_holds_no_slot(db: Db) -> None:
    tasks = limited_deliveries(db, 10, destinations.SHARE_WAKE + 4)
    now = datetime.now(UTC)
    with db.sessions.begin() as session:
        delivery_attempts.claim(session, tasks[:1], now, breaker=BREAKER)
        destinations.wait_for_share(session, tasks[1:], now)
        assert destinations.wake_waiting(session, now) == []  # its call in flight will hand its slot on
    with db.sessions.begin() as session:
        ended = update(WebhookExecution).where(WebhookExecution.id == tasks[0].entry_id)
        session.execute(ended.values(status="SUCCESS"))
    with db.sessions.begin() as session:
        woken = destinations.wake_waiting(session, now)
    assert woken == tasks[1 : 1 + destinations.SHARE_WAKE]  # oldest first, a few a round


def test_the_sweep_is_due_only_when_a_waiting_destination_has_room(db: Db) -> None:
    """The leader's sweep reads first (``wake_due``) and takes the write lock only when it may wake something:
    a destination at its limit, whose ending calls hand their slots over themselves, is left alone."""
    tasks = limited_deliveries(db, 2, 5)
    now = datetime.now(UTC)
    with db.sessions() as session:
        assert destinations.wake_due(session, now) is False  # nothing waits
    with db.sessions.begin() as session:
        running = delivery_attempts.claim(session, tasks, now, breaker=BREAKER)
    assert len(running) == 2
    assert running[0].destination is not None
    assert set(_waiting_for(db, [task.entry_id for task in tasks[2:]]).values()) == {running[0].destination}
    with db.sessions() as session:
        assert destinations.wake_due(session, now) is False  # at its limit
    with db.sessions.begin() as session:  # a call ended without handing its slot over (its worker stopped)
        ended = update(WebhookExecution).where(WebhookExecution.id == running[0].task.entry_id)
        session.execute(ended.values(status="SUCCESS"))
    with db.sessions() as session:
        assert destinations.wake_due(session, now) is True
    with db.sessions.begin() as session:
        assert destinations.wake_waiting(session, now) == tasks[2:3]
