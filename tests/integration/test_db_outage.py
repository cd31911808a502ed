"""The metadata database goes away while the service runs: a real PostgreSQL 18 of this module's own is
stopped in the middle of a stream of triggers and appends, and started again.

While it is away every trigger and append answers 503 with ``Retry-After`` (in the trigger's and the
analytics formats), so do the other calls, nothing is acknowledged, and the worker waits instead of
crashing. Once it is back the service answers again within seconds, every acknowledged delivery reaches
SUCCESS with its handler called exactly once, and every acknowledged append is committed to its table. No
log line shows the database password."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import httpx
import pytest

from schemas.admin import CreatedCompany, GrantSpec, ResourceSpec
from schemas.enums import AccessLevel
from schemas.settings import Settings
from sinks.db import resources
from sinks.db.models import WebhookExecution
from sinks.db.webhooks import definitions, deliveries, delivery_attempts
from sinks.db.webhooks.deliveries import Delivery
from sinks.kafka_admin import ensure_topics
from streams.webhooks.deliveries import DeliveryRuntime, now
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Db, Ingress, ServedIngress, make_settings, migrated
from tests.fixtures.tables import ORDERS
from tests.integration.outage_helpers import (
    Load,
    Postgres,
    PostgresWorker,
    append,
    check_refusal,
    module_postgres,
    odd,
    trigger,
    uncommitted,
    unfinished,
    wait_until,
)
from tests.integration.webhooks.delivery_helpers import tool_delivery

pytestmark = pytest.mark.integration

# Longer than the webhook's timeoutSeconds plus the worker's processing grace (1 s in tests): an attempt
# that waited out the outage must still be judged late, not lost.
OUTAGE_SECONDS = 12.0
TIMEOUT_SECONDS = 10
PASSWORD = f"pw-{uuid.uuid4().hex}"


@dataclass
class Stack:
    settings: Settings
    db: Db
    ingress: Ingress
    worker: PostgresWorker
    company: CreatedCompany


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[Postgres]:
    yield from module_postgres()


@pytest.fixture
def stack(postgres_server: Postgres, kafka_bootstrap: str, tmp_path: Path) -> Iterator[Stack]:
    name = f"outage_{uuid.uuid4().hex[:10]}"
    postgres_server.create_database(name)
    url = postgres_server.url(name, PASSWORD)
    settings = make_settings(
        tmp_path / "data",
        kafka_bootstrap=kafka_bootstrap,
        database_url=url,
        rate_limit_per_minute=1_000_000,
        rate_limit_per_day=100_000_000,
    )
    asyncio.run(ensure_topics(settings))
    with migrated(settings) as db:
        company = db.create_company()
        ingress = ServedIngress(settings)  # the load generator is its own HTTP client
        ingress.start()
        worker = PostgresWorker(settings, tmp_path / "worker.log", url)
        worker.start()
        try:
            yield Stack(settings, db, ingress, worker, company)
        finally:
            worker.stop()
            ingress.stop()


def _webhook(stack: Stack, handler: RecordingHandler) -> tuple[str, str]:
    company = stack.company
    with stack.db.sessions.begin() as session:
        tool = resources.create_resource(
            session, company.company_id, ResourceSpec(type="TOOL", name="recorder", endpoint=handler.url)
        )
        resources.grant(
            session, GrantSpec(user_id=company.user_id, resource_id=tool.resource_id, level=AccessLevel.READ)
        )
    config = {
        "name": "orders",
        "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": tool.resource_id},
        "executionSettings": {"timeoutSeconds": TIMEOUT_SECONDS, "maxRetries": 3, "retryDelaySeconds": 1},
    }
    made = stack.ingress.client.post(
        "/svc_poweruser/custom-webhooks/create",
        headers={"Authorization": company.poweruser_key},
        json={"webhookConfig": config},
    )
    assert made.status_code == 200, made.text
    return made.json()["webhook"]["id"], made.json()["apiKey"]


def _table(stack: Stack) -> str:
    made = stack.ingress.client.post(
        "/svc_poweruser/analytics/tables/create",
        headers={"Authorization": stack.company.poweruser_key},
        json=ORDERS,
    )
    assert made.status_code == 200, made.text
    return str(made.json()["tableId"])


def _calls_while_down(stack: Stack, table_id: str) -> list[httpx.Response]:
    client, company = stack.ingress.client, stack.company
    return [
        client.post("/clients/whoami", headers={"Authorization": company.client_api_key}, json={}),
        client.post(
            "/svc_poweruser/custom-webhooks/get-all",
            headers={"Authorization": company.poweruser_key},
            json={},
        ),
        client.post(
            "/clients/svcdb/analytics/describe",
            params={"resourceId": table_id},
            headers={"Authorization": company.client_api_key},
            json={"tableId": table_id},
        ),
    ]


def test_a_database_outage_under_load_acknowledges_only_what_is_recorded_and_runs_it_once(
    stack: Stack, postgres_server: Postgres, handler: RecordingHandler, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    webhook_id, key = _webhook(stack, handler)
    table_id = _table(stack)
    handler.delay = 0.2  # attempts in flight when the database goes
    load = Load(stack.ingress.base_url)
    for _ in range(2):
        load.run("trigger", partial(trigger, webhook_id, key), pace=0.02)
    load.run("append", partial(append, table_id, stack.company.client_api_key, 1), pace=0.05)
    try:
        wait_until(
            "a stream before the outage",
            lambda: (
                load.count("trigger", 202) >= 40
                and len(handler.calls) >= 10
                and load.count("append", 200) >= 5
            ),
            timeout=60,
        )
        postgres_server.stop()
        stopped = time.monotonic()
        wait_until(
            "an outage under load",
            lambda: (
                time.monotonic() - stopped >= OUTAGE_SECONDS
                and load.count("trigger", 503, stopped) >= 20
                and load.count("append", 503, stopped) >= 5
            ),
            timeout=120,
        )
        while_down = _calls_while_down(stack, table_id)
        ready = stack.ingress.client.get("/readyz")
        restarting = time.monotonic()
        postgres_server.start()
        # Generous: the pools reconnect at the first call and the failing-fast window is a second.
        wait_until("triggers accepted again", lambda: load.count("trigger", 202, restarting) >= 1, timeout=30)
        wait_until(
            "a stream after the outage",
            lambda: (
                load.count("trigger", 202, restarting) >= 40 and load.count("append", 200, restarting) >= 5
            ),
            timeout=120,
        )
    finally:
        load.stop()

    answers = load.snapshot()
    assert {a.status for a in answers if a.kind == "trigger"} <= {202, 503}, odd(answers)
    assert {a.status for a in answers if a.kind == "append"} <= {200, 503}, odd(answers)
    shapes = {"trigger": "trigger", "append": "analytics"}
    for answer in answers:
        if answer.status == 503:
            check_refusal(shapes[answer.kind], answer.status, answer.retry_after, answer.body)
    during = [a for a in answers if a.sent >= stopped and a.received <= restarting]
    assert during and all(a.status == 503 for a in during), odd(during)
    for response, shape in zip(while_down, ("errors", "errors", "analytics"), strict=True):
        check_refusal(shape, response.status_code, response.headers.get("Retry-After"), response.json())
    assert ready.status_code == 503 and ready.json()["checks"]["database"] == "unreachable"

    accepted = {a.body["executionId"] for a in answers if a.kind == "trigger" and a.status == 202}
    wait_until(
        "every acknowledged delivery succeeded, nothing left running",
        lambda: unfinished(stack.db, webhook_id, accepted) == (set(), 0),
        timeout=120,
        step=0.5,
    )
    calls = Counter(execution for execution, _attempt in handler.successes())
    assert accepted <= set(calls)
    assert [execution for execution, times in calls.items() if times > 1] == []
    load_ids = {a.body["loadId"] for a in answers if a.kind == "append" and a.status == 200}
    wait_until("every acknowledged append committed", lambda: not uncommitted(stack.db, load_ids), 120, 0.5)

    assert stack.worker.process is not None and stack.worker.process.poll() is None  # waited, never crashed
    worker_log = stack.worker.log_path.read_text()
    assert "metadata database unreachable" in worker_log
    assert any("answered 503" in record.getMessage() for record in caplog.records)
    assert PASSWORD not in worker_log
    assert not [record for record in caplog.records if PASSWORD in str(record.__dict__)]


def test_an_attempt_that_waited_out_an_outage_is_late_not_lost(
    postgres_server: Postgres, kafka_bootstrap: str, tmp_path: Path
) -> None:
    """The reconciler fails a PROCESSING attempt older than its timeout plus the grace, as lost with its
    worker. One that spent the outage waiting to read its handler's row is only late: the time the worker
    waited for the database does not count, so the attempt is not failed and run a second time."""
    name = f"late_{uuid.uuid4().hex[:10]}"
    postgres_server.create_database(name)
    settings = make_settings(
        tmp_path / "data",
        kafka_bootstrap=kafka_bootstrap,
        database_url=postgres_server.url(name, PASSWORD),
        processing_grace_seconds=1,
    )
    asyncio.run(ensure_topics(settings))
    with migrated(settings) as db:
        company = db.create_company()
        with db.sessions.begin() as session:
            tool = resources.create_resource(
                session,
                company.company_id,
                ResourceSpec(type="TOOL", name="t", endpoint="http://127.0.0.1:9/t"),
            )
            config = {
                "name": "late",
                "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": tool.resource_id},
                "executionSettings": {"timeoutSeconds": 1, "maxRetries": 3, "retryDelaySeconds": 1},
            }
            viewer = definitions.Viewer(company.company_id, company.user_id, True)
            webhook_id = definitions.create(session, viewer, config)[0].id
            target = deliveries.load_target(session, webhook_id)
        assert target is not None
        delivery = tool_delivery(target, tool.resource_id, execution_id=uuid.uuid4().hex)
        status = asyncio.run(_wait_out_an_outage(settings, db, postgres_server, delivery))
    assert status == "PROCESSING"


async def _wait_out_an_outage(settings: Settings, db: Db, server: Postgres, delivery: Delivery) -> str:
    """Claim the delivery, stop the database while its handler's row is being read, start it again once the
    attempt is past its timeout plus the grace, then reconcile: the attempt's status afterwards."""
    runtime = DeliveryRuntime(settings)
    await runtime.start()
    try:
        task = await runtime.committer.run(partial(deliveries.record_delivery, delivery=delivery))
        claimed = await runtime.committer.run(partial(delivery_attempts.claim, tasks=[task], now=now()))
        assert [attempt.task.entry_id for attempt in claimed] == [task.entry_id]
        await asyncio.to_thread(server.stop)
        target = delivery.target
        read = partial(runtime.cached_handler, target.company_id, str(delivery.resource_id))
        lookup = asyncio.ensure_future(runtime.until_db(read, "handler lookup"))
        limit = 1 + settings.processing_grace_seconds  # the webhook's timeoutSeconds plus the grace
        while runtime.outages.lag() < limit + 1:
            assert not lookup.done()  # waiting, not failed
            await asyncio.sleep(0.1)
        await asyncio.to_thread(server.start)
        assert await asyncio.wait_for(lookup, timeout=30) is not None
        await runtime.reconcile()
        with db.sessions() as session:
            entry = session.get(WebhookExecution, task.entry_id)
            assert entry is not None
            return entry.status
    finally:
        await runtime.stop()
