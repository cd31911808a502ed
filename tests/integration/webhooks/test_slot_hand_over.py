"""A call that ends hands its worker slot to the oldest delivery waiting for the same destination: the settle
that writes its outcome claims that delivery in the same transaction (no trip through Kafka), admitted to the
destination's limits as any claim. An outcome that frees no slot of this worker (the reconciler failing a lost
attempt) hands nothing over: what it wakes goes to Kafka."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from core.webhooks.destinations import Breaker
from sinks.db.models import WebhookExecution
from sinks.db.webhooks import delivery_attempts
from sinks.db.webhooks.delivery_attempts import Attempt, Finish, HandOver
from tests.fixtures.stack import Db
from tests.integration.webhooks.delivery_helpers import limited_deliveries

pytestmark = pytest.mark.integration

BREAKER = Breaker()
LIMIT = 2


def _ended(attempt: Attempt, *, frees_slot: bool) -> Finish:
    ended = datetime.now(UTC)
    return Finish(
        task=attempt.task,
        ok=True,
        request_json="{}",
        response_json=None,
        error_message=None,
        ended_at=ended,
        retry_at=None,
        started_at=attempt.started_at,
        destination=attempt.destination,
        frees_slot=frees_slot,
    )


def _processing(db: Db) -> int:
    processing = WebhookExecution.status == "PROCESSING"
    with db.sessions() as session:
        return int(session.scalar(select(func.count()).select_from(WebhookExecution).where(processing)) or 0)


def test_an_ended_call_hands_its_slot_to_the_oldest_waiting_delivery(db: Db) -> None:
    tasks = limited_deliveries(db, LIMIT, 5)
    with db.sessions.begin() as session:
        running = delivery_attempts.claim(session, tasks, datetime.now(UTC), breaker=BREAKER)
    assert [attempt.task for attempt in running] == tasks[:LIMIT]  # the other three wait
    hand_over = HandOver(lease=timedelta(seconds=15), clock=lambda: datetime.now(UTC))
    with db.sessions.begin() as session:
        (settled,) = delivery_attempts.settle_all(
            session, [_ended(running[0], frees_slot=True)], BREAKER, hand_over
        )
    assert settled.woken == []  # nothing left for Kafka: the one room went to the slot
    assert settled.next is not None and settled.next.task == tasks[LIMIT]  # the oldest waiting
    assert settled.next.destination == running[0].destination
    assert settled.next.config.resource_execution_config is not None
    assert _processing(db) == LIMIT  # the limit held
    with db.sessions() as session:
        entry = session.get(WebhookExecution, tasks[LIMIT].entry_id)
        assert entry is not None
        assert entry.status == "PROCESSING" and entry.waiting_for is None and entry.waited_ms is not None
        assert entry.lease_until is not None


def test_an_outcome_that_frees_no_slot_here_wakes_for_kafka(db: Db) -> None:
    tasks = limited_deliveries(db, LIMIT, 4)
    with db.sessions.begin() as session:
        running = delivery_attempts.claim(session, tasks, datetime.now(UTC), breaker=BREAKER)
    hand_over = HandOver(lease=timedelta(seconds=15), clock=lambda: datetime.now(UTC))
    with db.sessions.begin() as session:
        (settled,) = delivery_attempts.settle_all(
            session, [_ended(running[0], frees_slot=False)], BREAKER, hand_over
        )
    assert settled.next is None
    assert [task.entry_id for task in settled.woken] == [tasks[LIMIT].entry_id]
    assert _processing(db) == LIMIT - 1  # the woken delivery is QUEUED until a worker claims it


def test_two_ended_calls_in_one_settle_each_take_one_waiting_delivery(db: Db) -> None:
    tasks = limited_deliveries(db, LIMIT, 5)
    with db.sessions.begin() as session:
        running = delivery_attempts.claim(session, tasks, datetime.now(UTC), breaker=BREAKER)
    hand_over = HandOver(lease=timedelta(seconds=15), clock=lambda: datetime.now(UTC))
    with db.sessions.begin() as session:
        settled = delivery_attempts.settle_all(
            session, [_ended(attempt, frees_slot=True) for attempt in running], BREAKER, hand_over
        )
    assert [item.next.task if item.next else None for item in settled] == tasks[LIMIT : 2 * LIMIT]
    assert all(item.woken == [] for item in settled)
    assert _processing(db) == LIMIT
