"""A delivery with an Idempotency-Key that was recorded but could not be handed to the broker: the caller is
told to send it again (500, entry FAILED), so its key is freed in the transaction that marks it FAILED and
the retry is a new delivery, not a duplicate of the failed one."""

from __future__ import annotations

import subprocess

import httpx
import pytest
from sqlalchemy import select

from ingress.webhooks.trigger_failures import NOT_QUEUED
from schemas.admin import CreatedCompany
from sinks.db.models import WebhookDedup, WebhookExecution
from tests.fixtures.stack import Db, Ingress
from tests.integration.webhooks.delivery_helpers import TRIGGER
from tests.integration.webhooks.test_trigger_db_failure import (  # noqa: F401 - a fixture, used by name
    assert_500,
    make_webhook,
    without_broker,
)

pytestmark = pytest.mark.integration


def fire(client: httpx.Client, webhook_id: str, key: str, idempotency_key: str) -> httpx.Response:
    return client.post(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers={"Authorization": key, "Idempotency-Key": idempotency_key},
        json={"order": {"id": 7}},
    )


def test_a_delivery_that_could_not_be_queued_frees_its_key(
    without_broker: tuple[Ingress, Db, CreatedCompany, subprocess.Popen[bytes]],  # noqa: F811
) -> None:
    ingress, db, company, process = without_broker
    webhook_id, key = make_webhook(ingress.client, company.poweruser_key)
    kept = fire(ingress.client, webhook_id, key, "queued-before")
    assert kept.status_code == 202, kept.text
    process.kill()
    process.wait(timeout=10)

    failed = assert_500(fire(ingress.client, webhook_id, key, "order-7"), NOT_QUEUED, webhook_id)
    # Sent again as the answer asks: not a duplicate of the FAILED delivery (the broker is still down).
    again = assert_500(fire(ingress.client, webhook_id, key, "order-7"), NOT_QUEUED, webhook_id)
    assert again["executionId"] != failed["executionId"]
    with db.sessions() as session:
        statuses = dict(
            session.execute(
                select(WebhookExecution.execution_id, WebhookExecution.status).where(
                    WebhookExecution.webhook_id == webhook_id
                )
            ).all()
        )
        claims = session.scalars(
            select(WebhookDedup.dedup_key).where(WebhookDedup.webhook_id == webhook_id)
        ).all()
    assert statuses == {
        kept.json()["executionId"]: "QUEUED",
        failed["executionId"]: "FAILED",
        again["executionId"]: "FAILED",
    }
    assert claims == ["queued-before"]  # a delivery that may still run keeps its key
