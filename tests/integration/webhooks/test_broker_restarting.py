"""While ``svc up`` starts the embedded broker again after a crash (sinks/embedded_broker/generations.py),
the producer does not try it: the trigger and the replay record what they accept, answer at once as usual,
and the reconcilers of the workers started on the new broker hand it over. A real broker (stopped and
started again on its port) and database; the signal is the file ``svc up`` writes."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select

from schemas.admin import CreatedCompany
from schemas.records import DeliveryTask, decode_from_topic
from schemas.settings import Settings
from schemas.topics import WEBHOOK_DELIVERIES
from sinks.db.models import WebhookExecution
from sinks.embedded_broker import process as broker
from sinks.embedded_broker.generations import GenerationNotice
from sinks.kafka_admin import ensure_topics
from streams.webhooks.deliveries import DeliveryRuntime
from tests.fixtures.broker import reading
from tests.fixtures.stack import Db, Ingress, make_settings, migrated
from tests.integration.webhooks.test_trigger_db_failure import fire, make_webhook

pytestmark = pytest.mark.integration
GUARD_SECONDS = 20.0  # a liveness guard only


@dataclass
class Restart:
    ingress: Ingress
    db: Db
    company: CreatedCompany
    notice: GenerationNotice
    settings: Settings
    port: int
    log: Path
    process: subprocess.Popen[bytes]

    def stop_broker(self) -> None:
        self.notice.set_away(True)
        self.process.kill()
        self.process.wait(timeout=10)

    def start_broker(self) -> None:
        self.process = broker.start_tansu(self.port, self.log)
        broker.wait_reachable(f"127.0.0.1:{self.port}", 30, self.process)
        asyncio.run(ensure_topics(self.settings))
        self.notice.set_away(False)


@pytest.fixture
def restart(tmp_path: Path) -> Iterator[Restart]:
    port = broker.free_port()
    log = tmp_path / "broker.log"
    process = broker.start_tansu(port, log)
    notice = GenerationNotice(tmp_path / "generations")
    bootstrap = f"127.0.0.1:{port}"
    try:
        broker.wait_reachable(bootstrap, 30, process)
        settings = make_settings(
            tmp_path / "data", kafka_bootstrap=bootstrap, embedded_broker_signal_file=notice.path
        )
        asyncio.run(ensure_topics(settings))
        with migrated(settings) as db:
            company = db.create_company()
            ingress = Ingress(settings)
            ingress.start()
            found = Restart(ingress, db, company, notice, settings, port, log, process)
            try:
                yield found
            finally:
                ingress.stop()
                found.process.kill()
                found.process.wait(timeout=10)
    finally:
        notice.close()
        process.kill()
        process.wait(timeout=10)


def entry_of(db: Db, execution_id: str) -> WebhookExecution:
    with db.sessions() as session:
        entry = session.scalars(
            select(WebhookExecution).where(WebhookExecution.execution_id == execution_id)
        ).one()
        session.expunge(entry)
        return entry


async def reconcile_once(settings: Settings) -> None:
    await _round(settings, lambda runtime: runtime.reconcile())


async def _round(settings: Settings, step: Callable[[DeliveryRuntime], Awaitable[None]]) -> None:
    runtime = DeliveryRuntime(settings)
    runtime.committer.start()
    await runtime.publisher.start()
    runtime.ready.set()
    try:
        await step(runtime)
    finally:
        await runtime.publisher.stop()
        runtime.committer.stop()
        runtime.engine.dispose()


async def delivered_entries(settings: Settings, wanted: set[str]) -> set[str]:
    seen: set[str] = set()
    topic, group = settings.topic(WEBHOOK_DELIVERIES), f"{settings.worker_id}-probe"
    async with reading(settings, topic, group) as consumer:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + GUARD_SECONDS
        while not wanted <= seen and loop.time() < deadline:
            for records in (await consumer.getmany(timeout_ms=500)).values():
                for record in records:
                    task = decode_from_topic(WEBHOOK_DELIVERIES, record.value)
                    assert isinstance(task, DeliveryTask)
                    seen.add(task.entry_id)
    return seen


def test_what_is_accepted_while_the_broker_is_away_reaches_the_new_one(restart: Restart) -> None:
    client, db = restart.ingress.client, restart.db
    webhook_id, key = make_webhook(client, restart.company.poweruser_key)
    before = fire(client, webhook_id, key)
    assert before.status_code == 202, before.text
    assert entry_of(db, before.json()["executionId"]).dispatched_at is not None

    restart.stop_broker()
    # Still ready: what it accepts meanwhile is committed and handed over by the new workers.
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.text
    assert ready.json()["checks"] == {"database": "ok", "broker": "restarting", "storage": "ok"}
    restart.notice.set_away(False)  # the same broker gone without svc up restarting it
    gone = client.get("/readyz")
    assert gone.status_code == 503 and gone.json()["checks"]["broker"] == "unreachable"
    restart.notice.set_away(True)
    # Without the signal each of these would wait out the producer's timeout (10 s) before answering.
    began = time.monotonic()
    during = fire(client, webhook_id, key)
    assert during.status_code == 202, during.text
    assert during.json()["success"] is True
    replayed = client.post(
        "/svc_poweruser/custom-webhooks/replay",
        headers={"Authorization": restart.company.poweruser_key},
        json={"webhookId": webhook_id, "executionIds": [before.json()["executionId"]]},
    )
    assert replayed.status_code == 200, replayed.text
    assert replayed.json()["replayed"] == 1
    assert time.monotonic() - began < 15.0  # each would wait out a producer timeout (10 s) without it
    away = [during.json()["executionId"], replayed.json()["executions"][0]["executionId"]]
    entries = [entry_of(db, execution_id) for execution_id in away]
    assert all(entry.status == "QUEUED" for entry in entries)

    restart.start_broker()
    # What was handed to no broker is published again at once by the first reconcile of the workers
    # started on the new one (Settings.queued_grace_at).
    started = datetime.now(UTC)
    asyncio.run(reconcile_once(restart.settings.model_copy(update={"broker_started_at": started})))
    for execution_id in away:
        again = entry_of(db, execution_id).dispatched_at
        assert again is not None and again.replace(tzinfo=again.tzinfo or UTC) >= started
    after = fire(client, webhook_id, key)  # the ingress's producer finds the new broker by itself
    assert after.status_code == 202, after.text
    wanted = {entry.id for entry in entries} | {entry_of(db, after.json()["executionId"]).id}
    assert asyncio.run(delivered_entries(restart.settings, wanted)) >= wanted
