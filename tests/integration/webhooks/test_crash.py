"""SIGKILL the worker while deliveries stream in: after a restart nothing accepted is lost or run twice."""

import threading
import time
from collections import Counter

import httpx
import pytest

from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Ingress
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import TRIGGER, history, register_handler, tool_webhook

pytestmark = [pytest.mark.integration, pytest.mark.served]  # a sender in a thread of its own

DELIVERIES = 150


def stream_deliveries(base_url: str, webhook_id: str, key: str, accepted: list[str]) -> None:
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for n in range(DELIVERIES):
            answer = client.post(
                TRIGGER,
                params={"resourceId": webhook_id},
                headers={"Authorization": key},
                json={"order": {"id": n}},
            )
            if answer.status_code == 202:
                accepted.append(answer.json()["executionId"])
            time.sleep(0.02)


def all_entries(world: World, webhook_id: str) -> list[dict[str, object]]:
    entries: list[dict[str, object]] = []
    page = 0
    while True:
        chunk = history(world, webhook_id, page=page)["history"]
        entries += chunk
        if len(chunk) < 100:
            return entries
        page += 1


def test_worker_crash_loses_nothing(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, key = tool_webhook(
        world,
        register_handler(world, handler),
        executionSettings={"timeoutSeconds": 2, "maxRetries": 5, "retryDelaySeconds": 0},
    )
    handler.delay = 0.2  # keep attempts in flight when the worker dies
    accepted: list[str] = []
    sender = threading.Thread(target=stream_deliveries, args=(ingress.base_url, webhook_id, key, accepted))
    sender.start()
    deadline = time.monotonic() + 60
    while not handler.calls and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    in_flight = len(handler.calls)
    worker.kill()
    time.sleep(1.0)
    worker.start()
    sender.join()
    assert len(accepted) == DELIVERIES

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        entries = all_entries(world, webhook_id)
        succeeded = {e["executionId"] for e in entries if e["status"] == "SUCCESS"}
        if succeeded >= set(accepted):
            break
        time.sleep(0.5)
    entries = all_entries(world, webhook_id)
    statuses = Counter(str(e["status"]) for e in entries)
    successes = Counter(str(e["executionId"]) for e in entries if e["status"] == "SUCCESS")
    print("crash test statuses:", dict(statuses), "handler calls:", len(handler.calls), "at kill:", in_flight)
    assert set(successes) == set(accepted), statuses
    assert all(count == 1 for count in successes.values())
    assert statuses["QUEUED"] == 0 and statuses["PROCESSING"] == 0

    handled = handler.successes()
    assert len(handled) == len(set(handled)), "an attempt reached the handler twice"
    assert {execution for execution, _ in handled} == set(accepted)
    recorded_success = {
        (str(e["executionId"]), int(str(e["attemptNumber"]))) for e in entries if e["status"] == "SUCCESS"
    }
    assert recorded_success <= set(handled)
    assert key.split(":")[2] not in worker.log_path.read_text()
