"""The embedded broker keeps records in memory: after a restart the reconciler re-publishes accepted work."""

import asyncio
import time
from pathlib import Path

import pytest

from schemas.admin import GrantSpec, ResourceSpec
from schemas.enums import AccessLevel
from sinks.db import resources
from sinks.embedded_broker import process as broker
from sinks.kafka_admin import ensure_topics
from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Ingress, make_settings, migrated
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import Api, Person
from tests.integration.webhooks.delivery_helpers import TRIGGER

pytestmark = pytest.mark.integration


def test_accepted_deliveries_survive_a_broker_restart(tmp_path: Path, handler: RecordingHandler) -> None:
    port = broker.free_port()
    bootstrap = f"127.0.0.1:{port}"
    tansu = broker.start_tansu(port, tmp_path / "broker.log")
    settings = make_settings(tmp_path / "data", kafka_bootstrap=bootstrap)
    worker = Worker(settings, tmp_path / "worker.log")
    try:
        broker.wait_reachable(bootstrap, 30, tansu)
        asyncio.run(ensure_topics(settings))
        with migrated(settings) as db:
            created = db.create_company()
            with db.sessions.begin() as session:
                tool = resources.create_resource(
                    session, created.company_id, ResourceSpec(type="TOOL", name="t", endpoint=handler.url)
                )
                resources.grant(
                    session,
                    GrantSpec(user_id=created.user_id, resource_id=tool.resource_id, level=AccessLevel.READ),
                )
            ingress = Ingress(settings)
            ingress.start()
            try:
                api = Api(ingress.client)
                owner = Person(created.user_id, "admin@acme.test", created.poweruser_key)
                config = {
                    "name": "hook",
                    "resourceExecutionConfig": {"resourceType": "TOOL", "resourceId": tool.resource_id},
                }
                made = api.create(owner, config)
                webhook_id, key = made["webhook"]["id"], made["apiKey"]
                accepted = []
                for n in range(10):
                    answer = ingress.client.post(
                        TRIGGER,
                        params={"resourceId": webhook_id},
                        headers={"Authorization": key},
                        json={"n": n},
                    )
                    assert answer.status_code == 202
                    accepted.append(answer.json()["executionId"])
                # The records are in the broker's memory only; no worker has read them. Restart the broker.
                tansu.kill()
                tansu.wait()
                tansu = broker.start_tansu(port, tmp_path / "broker2.log")
                broker.wait_reachable(bootstrap, 30, tansu)
                asyncio.run(ensure_topics(settings))
                worker.start()
                deadline = asyncio.run(_wait_handled(handler, set(accepted), 90))
                assert deadline, f"handled {len(handler.successes())} of {len(accepted)}"
                # The handler answered; the worker records each outcome just after (a group commit later).
                succeeded: set[str] = set()
                for _ in range(300):
                    history = api.ok(owner, "get-execution-history", {"webhookId": webhook_id, "size": 100})[
                        "history"
                    ]
                    succeeded = {e["executionId"] for e in history if e["status"] == "SUCCESS"}
                    if succeeded == set(accepted):
                        break
                    time.sleep(0.1)
                assert succeeded == set(accepted)
            finally:
                ingress.stop()
    finally:
        worker.stop()
        tansu.kill()
        tansu.wait()


async def _wait_handled(handler: RecordingHandler, wanted: set[str], seconds: float) -> bool:
    for _ in range(int(seconds * 10)):
        if {execution for execution, _ in handler.successes()} >= wanted:
            return True
        await asyncio.sleep(0.1)
    return False
