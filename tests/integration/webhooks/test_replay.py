"""Issue 24, replay: executions that failed because their handler failed are replayed, once the handler is
fixed, through the real stack (ingress, embedded broker, worker, SQLite), by filter and by ids; a dry run
changes nothing; another company's webhook is not found and other webhooks' executions are not matched."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.fixtures.handler import RecordingHandler
from tests.fixtures.stack import Ingress
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import (
    TRIGGER,
    history,
    register_handler,
    tool_webhook,
    wait_for,
)

pytestmark = pytest.mark.integration

NO_RETRIES = {"timeoutSeconds": 5, "maxRetries": 0, "retryDelaySeconds": 0}


def _trigger(ingress: Ingress, webhook_id: str, key: str, order: str) -> str:
    answer = ingress.client.post(
        TRIGGER,
        params={"resourceId": webhook_id},
        headers={"Authorization": key, "X-Shop": "acme"},
        json={"order": {"id": order}},
    )
    assert answer.status_code == 202, answer.text
    execution_id: str = answer.json()["executionId"]
    time.sleep(0.01)  # distinct arrival times, so "oldest first" is well defined
    return execution_id


def _failed_webhook(
    world: World, ingress: Ingress, handler: RecordingHandler, orders: list[str]
) -> tuple[str, list[str]]:
    """A webhook whose handler failed every delivery of ``orders`` (no retries), and their execution ids."""
    handler.fail_first["*"] = 1_000
    webhook_id, key = tool_webhook(world, register_handler(world, handler), executionSettings=NO_RETRIES)
    ids = [_trigger(ingress, webhook_id, key, order) for order in orders]
    wait_for(world, webhook_id, lambda es: len(es) == len(ids) and all(e["status"] == "FAILED" for e in es))
    handler.fail_first.clear()  # the handler is fixed
    return webhook_id, ids


def _replay(world: World, body: dict[str, Any]) -> dict[str, Any]:
    return world.api.ok(world.owner, "replay", body)


def _by_execution(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {entry["executionId"]: entry for entry in entries}


def test_replay_by_filter_reruns_the_oldest_failed_through_the_fixed_handler(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, originals = _failed_webhook(world, ingress, handler, ["A-1", "A-2", "A-3"])

    dry = _replay(
        world, {"webhookId": webhook_id, "filter": {"status": "FAILED"}, "dryRun": True, "limit": 2}
    )
    assert (dry["matched"], dry["replayed"], dry["dryRun"]) == (3, 0, True)
    assert [e["originalExecutionId"] for e in dry["executions"]] == originals[:2]
    assert all(e["executionId"] is None for e in dry["executions"])
    assert history(world, webhook_id)["totalElements"] == 3  # a dry run records nothing

    answer = _replay(world, {"webhookId": webhook_id, "filter": {"status": "FAILED"}, "limit": 2})
    assert (answer["matched"], answer["replayed"]) == (3, 2)  # more matched than the limit: the oldest 2
    replayed = {e["originalExecutionId"]: e for e in answer["executions"]}
    assert list(replayed) == originals[:2]
    assert all(e["status"] == "QUEUED" and e["dueAt"] for e in replayed.values())
    new_ids = [e["executionId"] for e in replayed.values()]
    assert len(set(new_ids) | set(originals)) == 5
    # Recorded before the call answered.
    assert history(world, webhook_id)["totalElements"] == 5

    entries = _by_execution(
        wait_for(world, webhook_id, lambda es: sum(e["status"] == "SUCCESS" for e in es) == 2)
    )
    for original in originals[:2]:
        new = entries[replayed[original]["executionId"]]
        assert new["status"] == "SUCCESS"
        assert new["executionDetails"]["replayOf"] == original
        old = entries[original]
        assert old["status"] == "FAILED" and old["executionDetails"]["replayOf"] is None
        # The stored request, re-run: same body and method, the same variables for the handler.
        assert new["executionDetails"]["requestPayload"] == old["executionDetails"]["requestPayload"]
        assert new["executionDetails"]["httpMethod"] == "POST"
        assert (
            new["executionDetails"]["transformedVariables"] == old["executionDetails"]["transformedVariables"]
        )
        # The key the trigger was called with was never stored, so it is not sent again either.
        assert json.loads(new["executionDetails"]["requestHeaders"])["authorization"] == "[REDACTED]"
        assert json.loads(new["executionDetails"]["requestHeaders"])["x-shop"] == "acme"
    sent = {call["body"]["executionId"]: call["body"] for call in handler.calls}
    assert sent[replayed[originals[0]]["executionId"]]["variables"]["order"] == "A-1"

    # The replayed originals stay FAILED (they are history): the filter still matches all three.
    again = _replay(
        world,
        {
            "webhookId": webhook_id,
            "filter": {"status": "FAILED", "from": "2020-01-01T00:00:00Z"},
            "dryRun": True,
        },
    )
    assert again["matched"] == 3


def test_replay_by_ids_matches_only_this_webhooks_executions(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, originals = _failed_webhook(world, ingress, handler, ["B-1", "B-2"])
    other_id, other_key = tool_webhook(world, register_handler(world, handler))
    other_execution = _trigger(ingress, other_id, other_key, "X-1")

    answer = _replay(
        world,
        {"webhookId": webhook_id, "executionIds": [originals[1], other_execution, "0" * 32, originals[1]]},
    )
    assert (answer["matched"], answer["replayed"]) == (1, 1)
    assert answer["notFound"] == [other_execution, "0" * 32]
    new_id = answer["executions"][0]["executionId"]
    entries = _by_execution(
        wait_for(
            world,
            webhook_id,
            lambda es: any(e["executionId"] == new_id and e["status"] == "SUCCESS" for e in es),
        )
    )
    assert entries[new_id]["executionDetails"]["replayOf"] == originals[1]


def test_a_replay_uses_the_current_config(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, originals = _failed_webhook(world, ingress, handler, ["C-1", "C-2", "C-3"])
    config = world.api.ok(world.owner, "get", {"webhookId": webhook_id})["webhook"]["webhookConfig"]
    config["filterConfig"] = {"body": {"order": {"id": {"$neq": "C-2"}}}}
    config["validationConfig"] = {
        "enableValidation": True,
        "validationScript": (
            "return JSON.parse(body).order.id !== 'C-3' || {valid: false, message: 'no C-3'};"
        ),
    }
    world.api.ok(world.owner, "update", {"webhookId": webhook_id, "webhookConfig": config})

    answer = _replay(world, {"webhookId": webhook_id, "executionIds": originals})
    outcome = {e["originalExecutionId"]: e for e in answer["executions"]}
    assert outcome[originals[0]]["status"] == "QUEUED"
    assert outcome[originals[1]]["status"] == "FILTERED"
    assert outcome[originals[2]]["executionId"] is None and outcome[originals[2]]["error"] == "no C-3"
    assert answer["replayed"] == 2
    entries = _by_execution(wait_for(world, webhook_id, lambda es: any(e["status"] == "SUCCESS" for e in es)))
    assert entries[outcome[originals[1]]["executionId"]]["status"] == "FILTERED"
    assert entries[outcome[originals[1]]["executionId"]]["executionDetails"]["replayOf"] == originals[1]


def test_another_companys_webhook_is_not_found_and_read_access_is_not_enough(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    webhook_id, originals = _failed_webhook(world, ingress, handler, ["D-1"])
    body = {"webhookId": webhook_id, "executionIds": originals}
    foreign = world.api.call(world.outsider, "replay", body)
    missing = world.api.call(world.outsider, "replay", {**body, "webhookId": "0" * 32})
    assert foreign.status_code == missing.status_code == 401
    assert foreign.json() == missing.json()
    world.api.ok(world.owner, "share", {"webhookId": webhook_id, "level": "COMPANY", "accessLevel": "READ"})
    reader = world.api.call(world.alice, "replay", body)
    assert reader.status_code == 403, reader.text
    assert history(world, webhook_id)["totalElements"] == 1  # neither recorded anything


def test_the_outsiders_own_webhook_cannot_name_the_victims_executions(
    world: World, ingress: Ingress, worker: Worker, handler: RecordingHandler
) -> None:
    victim_webhook, victim_ids = _failed_webhook(world, ingress, handler, ["E-1"])
    own = world.api.create(world.outsider, {"name": "mine"})["webhook"]["id"]
    answer = world.api.ok(world.outsider, "replay", {"webhookId": own, "executionIds": victim_ids})
    assert (answer["matched"], answer["replayed"], answer["notFound"]) == (0, 0, victim_ids)
    assert history(world, victim_webhook)["totalElements"] == 1
