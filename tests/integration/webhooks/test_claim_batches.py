"""The worker's batched writes: a claim moves a batch's entries in one statement per company and a batch of
outcomes is written together, with the same compare-and-set as one at a time (a repeated or foreign task is
never claimed twice or across companies; an outcome for an entry no longer PROCESSING changes nothing)."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from schemas.admin import ResourceSpec
from sinks.db import resources
from sinks.db.models import WebhookExecution, WebhookExecutionCount
from sinks.db.webhooks import definitions, deliveries, delivery_attempts
from sinks.db.webhooks.deliveries import Delivery
from sinks.db.webhooks.delivery_attempts import Finish
from tests.fixtures.stack import Db
from tests.integration.webhooks.delivery_helpers import tool_delivery

pytestmark = pytest.mark.integration


def _delivery(db: Db, company_id: str, user_id: str) -> Delivery:
    with db.sessions.begin() as session:
        tool = resources.create_resource(
            session, company_id, ResourceSpec(type="TOOL", name="t", endpoint="http://127.0.0.1:9/t")
        )
        config = {
            "name": "batch",
            "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": tool.resource_id},
            "executionSettings": {"timeoutSeconds": 1, "maxRetries": 1, "retryDelaySeconds": 1},
        }
        webhook_id = definitions.create(session, definitions.Viewer(company_id, user_id, True), config)[0].id
        target = deliveries.load_target(session, webhook_id)
    assert target is not None
    return tool_delivery(target, tool.resource_id, execution_id="", variables_json='{"n": "1"}')


def _counts(db: Db, webhook_id: str) -> dict[str, int]:
    with db.sessions() as session:
        rows = session.execute(
            select(WebhookExecutionCount.status, WebhookExecutionCount.entries).where(
                WebhookExecutionCount.webhook_id == webhook_id
            )
        )
        return {status: entries for status, entries in rows if entries}


def test_a_batch_claims_each_entry_once_and_only_for_its_company(db: Db) -> None:
    victim, hostile = db.create_company("Victim", "a@victim.test"), db.create_company("Hostile", "b@h.test")
    template = _delivery(db, victim.company_id, victim.user_id)
    with db.sessions.begin() as session:
        tasks = [
            deliveries.record_delivery(session, replace(template, execution_id=uuid.uuid4().hex))
            for _ in range(3)
        ]
    # A hostile company naming the victim's entry, and a redelivered record, in the same batch.
    forged = tasks[0].model_copy(update={"company_id": hostile.company_id})
    batch = [forged, tasks[0], tasks[1], tasks[0], tasks[2]]
    with db.sessions.begin() as session:
        claimed = delivery_attempts.claim(session, batch, datetime.now(UTC))
    assert [attempt.task for attempt in claimed] == [tasks[0], tasks[1], tasks[2]]
    assert all(attempt.variables == {"n": "1"} for attempt in claimed)
    with db.sessions.begin() as session:
        assert delivery_attempts.claim(session, batch, datetime.now(UTC)) == []  # already taken
    assert _counts(db, template.target.webhook_id) == {"PROCESSING": 3}


def test_a_batch_of_outcomes_finishes_each_processing_entry_once(db: Db) -> None:
    company = db.create_company()
    template = _delivery(db, company.company_id, company.user_id)
    with db.sessions.begin() as session:
        tasks = [
            deliveries.record_delivery(session, replace(template, execution_id=uuid.uuid4().hex))
            for _ in range(3)
        ]
    with db.sessions.begin() as session:
        claimed = delivery_attempts.claim(session, tasks[:2], datetime.now(UTC))  # the third stays QUEUED
    ended = datetime.now(UTC)

    def outcome(index: int, ok: bool) -> Finish:
        return Finish(
            task=tasks[index],
            ok=ok,
            request_json="{}",
            response_json=None,
            error_message=None if ok else "boom",
            ended_at=ended,
            retry_at=None if ok else ended,
            started_at=claimed[0].started_at,
        )

    with db.sessions.begin() as session:
        results = delivery_attempts.finish_all(
            session, [outcome(0, True), outcome(1, False), outcome(0, False), outcome(2, True)]
        )
    assert results[0] is None and results[2] is None and results[3] is None
    retry = results[1]
    assert retry is not None and retry.attempt_number == 2 and retry.execution_id == tasks[1].execution_id
    with db.sessions() as session:
        statuses = {entry.id: entry.status for entry in session.scalars(select(WebhookExecution))}
    assert statuses[tasks[0].entry_id] == "SUCCESS"  # the first outcome won; the repeat changed nothing
    assert statuses[tasks[1].entry_id] == "FAILED"
    assert statuses[tasks[2].entry_id] == "QUEUED"  # never claimed: its outcome is refused
    assert statuses[retry.entry_id] == "QUEUED"
    assert _counts(db, template.target.webhook_id) == {"SUCCESS": 1, "FAILED": 1, "QUEUED": 2}
