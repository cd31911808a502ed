"""After the embedded broker restarts after a crash, the deliveries queued before it were in the old broker
only: the first reconcile round of a worker told when it started publishes every one of them again, however
many, without waiting for the queued grace. A real database and broker."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from schemas.settings import Settings
from schemas.webhooks import ExecutionStatus
from sinks.db.models import WebhookExecution
from sinks.kafka_admin import ensure_topics
from streams.webhooks.deliveries import LOST_PAGE, DeliveryRuntime
from tests.fixtures.stack import Db
from tests.integration.webhooks.test_delivery_leases import queued

pytestmark = pytest.mark.integration
COUNT = 2 * LOST_PAGE + 7  # more than one page


def dispatched_before(db: Db, moment: datetime) -> int:
    with db.sessions() as session:
        return int(
            session.scalar(
                select(func.count())
                .select_from(WebhookExecution)
                .where(
                    WebhookExecution.status == ExecutionStatus.QUEUED.value,
                    WebhookExecution.dispatched_at < moment,
                )
            )
            or 0
        )


async def one_round(settings: Settings) -> None:
    runtime = DeliveryRuntime(settings)
    runtime.committer.start()
    await runtime.publisher.start()
    runtime.ready.set()
    try:
        await runtime.reconcile()
    finally:
        await runtime.publisher.stop()
        runtime.committer.stop()
        runtime.engine.dispose()


def test_one_round_publishes_again_everything_queued_before_a_fresh_broker(
    kafka_settings: Settings, db: Db
) -> None:
    asyncio.run(ensure_topics(kafka_settings))
    queued(db, COUNT)
    started = datetime.now(UTC) + timedelta(milliseconds=5)
    patient = kafka_settings.model_copy(update={"queued_grace_seconds": 600.0})
    asyncio.run(one_round(patient))  # no broker start known: all are younger than the grace
    assert dispatched_before(db, started) == COUNT
    asyncio.run(one_round(patient.model_copy(update={"broker_started_at": started})))
    assert dispatched_before(db, started) == 0
