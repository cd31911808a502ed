"""Trigger deduplication in the metadata DB (sinks/db/webhooks/dedup.py), on SQLite and PostgreSQL: a key is
claimed with the delivery's history rows in one transaction, once per webhook; a refused claim records nothing
and names the first delivery, also inside one group commit and against a concurrent uncommitted claim; expired
keys are taken over and swept in batches; a key freed after a failed hand-over can be used again."""

from __future__ import annotations

import asyncio
import threading
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, insert, select

from schemas.admin import ResourceSpec
from schemas.deliveries import DeliveryTask
from sinks.db import resources
from sinks.db.group_commit import GroupCommitter
from sinks.db.models import Webhook, WebhookDedup, WebhookExecution
from sinks.db.webhooks import dedup, definitions, deliveries
from sinks.db.webhooks.dedup import Claim, Duplicate
from sinks.db.webhooks.deliveries import Delivery
from tests.fixtures.stack import Db
from tests.integration.webhooks.delivery_helpers import tool_delivery

pytestmark = pytest.mark.integration

WINDOW = timedelta(hours=24)


def _template(db: Db, company_id: str, user_id: str) -> Delivery:
    with db.sessions.begin() as session:
        tool = resources.create_resource(
            session, company_id, ResourceSpec(type="TOOL", name="t", endpoint="http://127.0.0.1:9/t")
        )
        config = {
            "name": "dedup",
            "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": tool.resource_id},
        }
        webhook_id = definitions.create(session, definitions.Viewer(company_id, user_id, True), config)[0].id
        target = deliveries.load_target(session, webhook_id)
    assert target is not None
    return tool_delivery(target, tool.resource_id, execution_id="")


def _fresh(template: Delivery) -> Delivery:
    return replace(template, execution_id=uuid.uuid4().hex)


def _claim(delivery: Delivery, key: str, now: datetime | None = None) -> Claim:
    seen = now or datetime.now(UTC)
    target = delivery.target
    return Claim(target.webhook_id, target.company_id, key, seen, seen + WINDOW)


def _entries(db: Db, webhook_id: str) -> list[str]:
    with db.sessions() as session:
        return list(
            session.scalars(
                select(WebhookExecution.execution_id).where(WebhookExecution.webhook_id == webhook_id)
            )
        )


def _record(db: Db, delivery: Delivery, claim: Claim) -> DeliveryTask | Duplicate:
    with db.sessions.begin() as session:
        return dedup.record_once(session, delivery, claim)


def test_a_key_is_claimed_once_and_a_second_delivery_answers_the_first(db: Db) -> None:
    company = db.create_company()
    template = _template(db, company.company_id, company.user_id)
    first, second = _fresh(template), _fresh(template)
    recorded = _record(db, first, _claim(first, "order-17"))
    assert isinstance(recorded, DeliveryTask) and recorded.execution_id == first.execution_id
    assert _record(db, second, _claim(second, "order-17")) == Duplicate(first.execution_id)
    with db.engine.connect() as connection:
        assert dedup.lookup(connection, _claim(second, "order-17")) == first.execution_id
        assert dedup.lookup(connection, _claim(second, "order-18")) is None
    assert _entries(db, template.target.webhook_id) == [first.execution_id]


def test_duplicates_in_one_transaction_record_one_delivery(db: Db) -> None:
    """What a group commit batch does: its items run one after another in one transaction."""
    company = db.create_company()
    template = _template(db, company.company_id, company.user_id)
    batch = [_fresh(template) for _ in range(4)]
    with db.sessions.begin() as session:
        results = [dedup.record_once(session, d, _claim(d, "same")) for d in batch[:3]]
        results.append(dedup.record_once(session, batch[3], _claim(batch[3], "other")))
    assert isinstance(results[0], DeliveryTask)
    assert results[1:3] == [Duplicate(batch[0].execution_id)] * 2
    assert isinstance(results[3], DeliveryTask)
    assert sorted(_entries(db, template.target.webhook_id)) == sorted(
        [batch[0].execution_id, batch[3].execution_id]
    )


def test_concurrent_duplicates_through_the_group_committer_record_one(db: Db) -> None:
    company = db.create_company()
    template = _template(db, company.company_id, company.user_id)
    committer = GroupCommitter(db.sessions, name="dedup-test")
    committer.start()
    batch = [_fresh(template) for _ in range(8)]
    plain = _fresh(template)  # no key: recorded whatever the others do

    async def fire() -> list[DeliveryTask | Duplicate]:
        works = [committer.run(dedup.recording(d, _claim(d, "k-1"))) for d in batch]
        works.append(committer.run(dedup.recording(plain, None)))
        return list(await asyncio.gather(*works))

    try:
        results = asyncio.run(fire())
    finally:
        committer.stop()
    tasks = [r for r in results[:8] if isinstance(r, DeliveryTask)]
    assert len(tasks) == 1
    assert [r for r in results[:8] if isinstance(r, Duplicate)] == [Duplicate(tasks[0].execution_id)] * 7
    assert isinstance(results[8], DeliveryTask)
    assert sorted(_entries(db, template.target.webhook_id)) == sorted(
        [tasks[0].execution_id, plain.execution_id]
    )


def test_a_claim_waits_for_a_concurrent_uncommitted_claim_and_is_then_a_duplicate(db: Db) -> None:
    """Two transactions (two ingress processes): the second claim blocks on the first's uncommitted row
    (PostgreSQL's unique index, SQLite's write lock) and, once it commits, finds the key taken."""
    company = db.create_company()
    template = _template(db, company.company_id, company.user_id)
    first, second = _fresh(template), _fresh(template)
    second_result: list[DeliveryTask | Duplicate] = []
    started = threading.Event()

    def other_process() -> None:
        started.set()
        second_result.append(_record(db, second, _claim(second, "race")))

    with db.sessions.begin() as session:
        assert isinstance(dedup.record_once(session, first, _claim(first, "race")), DeliveryTask)
        session.flush()
        thread = threading.Thread(target=other_process)
        thread.start()
        started.wait(10)
        thread.join(0.3)  # it cannot finish while this transaction holds the key
        assert not second_result
    thread.join(30)
    assert second_result == [Duplicate(first.execution_id)]
    assert _entries(db, template.target.webhook_id) == [first.execution_id]


def test_an_expired_claim_is_ignored_and_taken_over(db: Db) -> None:
    company = db.create_company()
    template = _template(db, company.company_id, company.user_id)
    old, new = _fresh(template), _fresh(template)
    long_ago = datetime.now(UTC) - timedelta(days=2)
    assert isinstance(_record(db, old, _claim(old, "evt_1", long_ago)), DeliveryTask)
    with db.engine.connect() as connection:
        assert dedup.lookup(connection, _claim(new, "evt_1")) is None
    assert isinstance(_record(db, new, _claim(new, "evt_1")), DeliveryTask)
    with db.engine.connect() as connection:
        assert dedup.lookup(connection, _claim(new, "evt_1")) == new.execution_id


def test_a_key_is_per_webhook_and_never_crosses_companies(db: Db) -> None:
    victim = db.create_company("Victim", "a@victim.test")
    hostile = db.create_company("Hostile", "b@hostile.test")
    victim_hook = _template(db, victim.company_id, victim.user_id)
    victim_other_hook = _template(db, victim.company_id, victim.user_id)
    hostile_hook = _template(db, hostile.company_id, hostile.user_id)
    deliveries_ = [_fresh(victim_hook), _fresh(victim_other_hook), _fresh(hostile_hook)]
    for delivery in deliveries_:
        assert isinstance(_record(db, delivery, _claim(delivery, "shared-key")), DeliveryTask)
    # A claim naming the victim's webhook with the hostile company never sees the victim's execution.
    forged = replace(_claim(deliveries_[0], "shared-key"), company_id=hostile.company_id)
    with db.engine.connect() as connection:
        assert dedup.lookup(connection, forged) is None
    with db.sessions.begin() as session, pytest.raises(dedup.ClaimConflict):
        dedup.take(session, forged, uuid.uuid4().hex)


def test_the_sweep_deletes_expired_keys_in_batches_and_keeps_live_ones(db: Db) -> None:
    company = db.create_company()
    template = _template(db, company.company_id, company.user_id)
    now = datetime.now(UTC)
    rows = [
        {
            "webhook_id": template.target.webhook_id,
            "dedup_key": f"k{n}",
            "company_id": company.company_id,
            "execution_id": uuid.uuid4().hex,
            "seen_at": now - timedelta(days=2),
            "expires_at": now - (timedelta(days=1) if n < 2_500 else -timedelta(hours=1)),
        }
        for n in range(2_503)
    ]
    with db.sessions.begin() as session:
        session.execute(insert(WebhookDedup), rows)
    with db.sessions.begin() as session:
        assert dedup.sweep_expired(session, now, limit=1_000) == 1_000
    committer = GroupCommitter(db.sessions, name="dedup-sweep")
    committer.start()
    try:
        assert asyncio.run(dedup.sweep(committer.run, now)) == 1_500
        assert asyncio.run(dedup.sweep(committer.run, now)) == 0
    finally:
        committer.stop()
    with db.sessions() as session:
        assert session.scalar(select(func.count()).select_from(WebhookDedup)) == 3


def test_a_key_is_released_only_when_its_delivery_was_marked_failed(db: Db) -> None:
    company = db.create_company()
    template = _template(db, company.company_id, company.user_id)
    failed, queued = _fresh(template), _fresh(template)
    failed_task = _record(db, failed, _claim(failed, "a"))
    queued_task = _record(db, queued, _claim(queued, "b"))
    assert isinstance(failed_task, DeliveryTask) and isinstance(queued_task, DeliveryTask)
    now = datetime.now(UTC)
    with db.sessions.begin() as session:
        deliveries.mark_not_queued(session, failed_task.entry_id, "broker down", now)
        dedup.release(session, _claim(failed, "a"), failed.execution_id)
        dedup.release(session, _claim(queued, "b"), queued.execution_id)  # still QUEUED: kept
    with db.engine.connect() as connection:
        assert dedup.lookup(connection, _claim(failed, "a")) is None
        assert dedup.lookup(connection, _claim(queued, "b")) == queued.execution_id
    again = _fresh(template)
    assert isinstance(_record(db, again, _claim(again, "a")), DeliveryTask)


def test_deleting_the_webhook_deletes_its_keys(db: Db) -> None:
    company = db.create_company()
    template = _template(db, company.company_id, company.user_id)
    delivery = _fresh(template)
    assert isinstance(_record(db, delivery, _claim(delivery, "gone")), DeliveryTask)
    with db.sessions.begin() as session:
        webhook = session.get(Webhook, template.target.webhook_id)
        assert webhook is not None
        definitions.remove(session, webhook)
    with db.sessions() as session:
        assert session.scalar(select(func.count()).select_from(WebhookDedup)) == 0
