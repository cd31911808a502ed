"""The trigger when the metadata database fails while it queues a delivery: 503 with Retry-After while the
database cannot be reached and nothing was recorded, the interface's 500 body (``success`` false,
``message``, ``executionId``, ``webhookId``) for any other failure, never the edge's generic 500.

Every failure is real: a statement the database itself refuses (a trigger installed in the test's own
database), a row that cannot be read, a broker that is gone, a PostgreSQL server that is stopped."""

from __future__ import annotations

import asyncio
import subprocess
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, text, update

from ingress.webhooks.trigger_failures import INTERNAL_ERROR, MAY_STILL_RUN, NOT_QUEUED, NOT_RECORDED
from schemas.admin import CreatedCompany
from sinks.db.models import Webhook, WebhookExecution, WebhookPayload
from sinks.embedded_broker import process as broker
from sinks.kafka_admin import ensure_topics
from tests.fixtures.stack import Db, Ingress, make_settings, migrated
from tests.integration.outage_helpers import Postgres, check_refusal, module_postgres, wait_until
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import TRIGGER

pytestmark = pytest.mark.integration

ANSWER_FIELDS = {"success", "message", "executionId", "webhookId", "errors"}
REFUSAL = "refused by the test"


def make_webhook(client: httpx.Client, poweruser_key: str) -> tuple[str, str]:
    made = client.post(
        "/svc_poweruser/custom-webhooks/create",
        headers={"Authorization": poweruser_key},
        json={"webhookConfig": {"name": "orders"}},
    )
    assert made.status_code == 200, made.text
    return str(made.json()["webhook"]["id"]), str(made.json()["apiKey"])


def fire(client: httpx.Client, webhook_id: str, key: str) -> httpx.Response:
    return client.post(
        TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": key}, json={"order": {"id": 7}}
    )


def assert_500(answer: httpx.Response, message: str, webhook_id: str | None) -> dict[str, Any]:
    """The interface's 500: ExecuteWebhookResponse with success false, as JSON, with a request id."""
    assert answer.status_code == 500, answer.text
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["X-Request-Id"]
    body: dict[str, Any] = answer.json()
    assert set(body) == ANSWER_FIELDS, body
    assert body["success"] is False and body["message"] == message and body["errors"] == [message]
    assert body["webhookId"] == webhook_id
    return body


@contextmanager
def refused(db: Db, operation: str, webhook_id: str) -> Iterator[None]:
    """Every ``operation`` (INSERT or UPDATE) on the webhook's history entries fails in the database."""
    name = f"svc_test_refuse_{operation.lower()}"
    row = "NEW" if operation == "INSERT" else "OLD"
    only = f"{row}.webhook_id = '{webhook_id}'"
    if db.engine.dialect.name == "sqlite":
        install = [
            f"CREATE TRIGGER {name} BEFORE {operation} ON webhook_executions WHEN {only} "
            f"BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END"
        ]
        remove = [f"DROP TRIGGER {name}"]
    else:
        install = [
            f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN RAISE EXCEPTION '{REFUSAL}'; END $$",
            f"CREATE TRIGGER {name} BEFORE {operation} ON webhook_executions "
            f"FOR EACH ROW WHEN ({only}) EXECUTE FUNCTION {name}()",
        ]
        remove = [f"DROP TRIGGER {name} ON webhook_executions", f"DROP FUNCTION {name}()"]
    with db.engine.begin() as connection:
        for statement in install:
            connection.execute(text(statement))
    try:
        yield
    finally:
        with db.engine.begin() as connection:
            for statement in remove:
                connection.execute(text(statement))


def entries(db: Db, webhook_id: str) -> dict[str, str]:
    """executionId -> status of every history entry of the webhook."""
    with db.sessions() as session:
        rows = session.execute(
            select(WebhookExecution.execution_id, WebhookExecution.status).where(
                WebhookExecution.webhook_id == webhook_id
            )
        ).all()
    return {execution: status for execution, status in rows}


def payloads(db: Db, webhook_id: str) -> int:
    with db.sessions() as session:
        return int(
            session.scalar(
                select(func.count())
                .select_from(WebhookPayload)
                .where(WebhookPayload.webhook_id == webhook_id)
            )
            or 0
        )


# --- a failure that is not an outage: the interface's 500 -------------------------------------------------


def test_a_statement_refused_while_recording_answers_the_interfaces_500(
    world: World, ingress: Ingress
) -> None:
    webhook_id, key = make_webhook(ingress.client, world.owner.key)
    with refused(world.db, "INSERT", webhook_id):
        body = assert_500(fire(ingress.client, webhook_id, key), NOT_RECORDED, webhook_id)
    assert isinstance(body["executionId"], str) and body["executionId"]
    # Nothing was recorded: no entry, no payload; and the refusal did not stop the next delivery.
    assert entries(world.db, webhook_id) == {} and payloads(world.db, webhook_id) == 0
    accepted = fire(ingress.client, webhook_id, key)
    assert accepted.status_code == 202, accepted.text
    assert entries(world.db, webhook_id) == {accepted.json()["executionId"]: "QUEUED"}


def test_an_unreadable_webhook_row_answers_the_interfaces_500(world: World, ingress: Ingress) -> None:
    webhook_id, key = make_webhook(ingress.client, world.owner.key)
    with world.db.sessions.begin() as session:
        session.execute(update(Webhook).where(Webhook.id == webhook_id).values(config_json="{not json"))
    body = assert_500(fire(ingress.client, webhook_id, key), INTERNAL_ERROR, None)
    assert body["executionId"] is None
    assert entries(world.db, webhook_id) == {}


# --- recorded, then not queued: the 500 with the ids ------------------------------------------------------


@pytest.fixture
def without_broker(tmp_path: Path) -> Iterator[tuple[Ingress, Db, CreatedCompany, subprocess.Popen[bytes]]]:
    """An ingress on a broker of its own, which the test stops."""
    port = broker.free_port()
    process = broker.start_tansu(port, tmp_path / "broker.log")
    try:
        bootstrap = f"127.0.0.1:{port}"
        broker.wait_reachable(bootstrap, 30, process)
        settings = make_settings(tmp_path / "data", kafka_bootstrap=bootstrap)
        asyncio.run(ensure_topics(settings))
        with migrated(settings) as db:
            company = db.create_company()
            ingress = Ingress(settings)
            ingress.start()
            try:
                yield ingress, db, company, process
            finally:
                ingress.stop()
    finally:
        process.kill()
        process.wait(timeout=10)


def test_a_delivery_recorded_but_not_queued_answers_500_with_its_ids(
    without_broker: tuple[Ingress, Db, CreatedCompany, subprocess.Popen[bytes]],
) -> None:
    ingress, db, company, process = without_broker
    marked_id, marked_key = make_webhook(ingress.client, company.poweruser_key)
    unmarked_id, unmarked_key = make_webhook(ingress.client, company.poweruser_key)
    queued = fire(ingress.client, marked_id, marked_key)
    assert queued.status_code == 202, queued.text  # the producer is connected
    process.kill()
    process.wait(timeout=10)

    # Both at once: each waits out the producer's timeout.
    with refused(db, "UPDATE", unmarked_id), ThreadPoolExecutor(2) as pool:
        answers = pool.map(
            lambda hook: fire(ingress.client, *hook), [(marked_id, marked_key), (unmarked_id, unmarked_key)]
        )
        marked, unmarked = list(answers)
    # The entry is marked FAILED, so the reconciler will not send what the caller was told failed.
    marked_execution = assert_500(marked, NOT_QUEUED, marked_id)["executionId"]
    # Marking it failed too: the entry stays QUEUED and may still run, and the answer says so.
    unmarked_execution = assert_500(unmarked, MAY_STILL_RUN, unmarked_id)["executionId"]
    assert entries(db, marked_id) == {queued.json()["executionId"]: "QUEUED", marked_execution: "FAILED"}
    assert entries(db, unmarked_id) == {unmarked_execution: "QUEUED"}


# --- the database cannot be reached: 503 with Retry-After, nothing recorded -------------------------------


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[Postgres]:
    yield from module_postgres()


def test_a_stopped_database_answers_503_and_records_nothing(
    postgres_server: Postgres, kafka_bootstrap: str, tmp_path: Path
) -> None:
    name = f"trigger_{uuid.uuid4().hex[:10]}"
    postgres_server.create_database(name)
    # The webhook's row is kept for a minute: the refusal comes from recording the delivery, not reading it.
    settings = make_settings(
        tmp_path / "data",
        kafka_bootstrap=kafka_bootstrap,
        database_url=postgres_server.url(name, "unused"),
        trigger_cache_seconds=60,
    )
    asyncio.run(ensure_topics(settings))
    with migrated(settings) as db:
        company = db.create_company()
        ingress = Ingress(settings)
        ingress.start()
        try:
            cached_id, cached_key = make_webhook(ingress.client, company.poweruser_key)
            unread_id, unread_key = make_webhook(ingress.client, company.poweruser_key)
            first = fire(ingress.client, cached_id, cached_key)
            assert first.status_code == 202, first.text
            postgres_server.stop()
            try:
                for webhook_id, key in [(cached_id, cached_key), (unread_id, unread_key)]:
                    answer = fire(ingress.client, webhook_id, key)
                    check_refusal(
                        "trigger", answer.status_code, answer.headers.get("Retry-After"), answer.json()
                    )
                    assert set(answer.json()) == ANSWER_FIELDS and answer.headers["X-Request-Id"]
                    assert answer.json()["executionId"] is None and answer.json()["webhookId"] is None
            finally:
                postgres_server.start()
            after: list[httpx.Response] = []

            def accepted() -> bool:
                after.append(fire(ingress.client, cached_id, cached_key))
                assert after[-1].status_code in (202, 503), after[-1].text
                return after[-1].status_code == 202

            wait_until("the trigger accepts again", accepted, timeout=30, step=0.5)
        finally:
            ingress.stop()
        acknowledged = {first.json()["executionId"], after[-1].json()["executionId"]}
        assert set(entries(db, cached_id)) == acknowledged
        assert entries(db, unread_id) == {}
