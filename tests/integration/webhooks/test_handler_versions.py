"""Resource versions through a real stack: which version's endpoint a webhook's deliveries call.

Two recording handlers stand for two versions of one tool (v1 and v2 have different endpoints), so each call
shows which version ran."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemas.admin import VersionSpec, VersionStateSpec
from schemas.versions import VersionState
from sinks.db import resources
from streams.runtime import HANDLER_CACHE_SECONDS
from tests.fixtures.handler import RecordingHandler, serving
from tests.fixtures.stack import Ingress
from tests.fixtures.worker import Worker
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import (
    TRIGGER,
    history,
    register_handler,
    wait_for,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def second_handler(tmp_path: Path) -> Iterator[RecordingHandler]:
    with serving(RecordingHandler(log_path=tmp_path / "second-handler.log")) as recorder:
        yield recorder


def _add_version(world: World, tool_id: str, endpoint: str, state: VersionState) -> int:
    with world.db.sessions.begin() as session:
        spec = VersionSpec(resource_id=tool_id, endpoint=endpoint, state=state)
        return resources.create_version(session, spec).version_number


def _set_state(world: World, tool_id: str, number: int, state: VersionState) -> None:
    with world.db.sessions.begin() as session:
        spec = VersionStateSpec(resource_id=tool_id, version_number=number, state=state)
        resources.set_version_state(session, spec)


def _publish_to_worker(world: World, tool_id: str, number: int, state: VersionState) -> None:
    _set_state(world, tool_id, number, state)
    # The worker reads a handler's versions at most once per HANDLER_CACHE_SECONDS: past that, it sees this.
    time.sleep(HANDLER_CACHE_SECONDS + 0.5)


def _execution(tool_id: str, version: dict[str, Any] | None = None) -> dict[str, Any]:
    execution: dict[str, Any] = {"resourceType": "TOOL", "resourceId": tool_id, "variables": {"n": "1"}}
    if version is not None:
        execution["version"] = version
    return execution


def _webhook(world: World, name: str, execution: dict[str, Any]) -> tuple[str, str]:
    config = {
        "name": name,
        "resourceExecutionConfig": execution,
        "executionSettings": {"timeoutSeconds": 5, "maxRetries": 2, "retryDelaySeconds": 0},
    }
    created = world.api.create(world.owner, config)
    return created["webhook"]["id"], str(created["apiKey"])


def _deliver(ingress: Ingress, world: World, webhook_id: str, key: str, count: int) -> dict[str, Any]:
    """Triggers the webhook and waits until the delivery's one attempt finished: that attempt's entry."""
    answer = ingress.client.post(
        TRIGGER, params={"resourceId": webhook_id}, headers={"Authorization": key}, json={}
    )
    assert answer.status_code == 202, answer.text
    execution_id = answer.json()["executionId"]
    finished = ("SUCCESS", "FAILED")
    entries = wait_for(
        world,
        webhook_id,
        lambda es: len([e for e in es if e["status"] in finished]) == count,
    )
    (entry,) = [e for e in entries if e["executionId"] == execution_id]
    return entry


def _sent_version(handler: RecordingHandler, call: int = -1) -> dict[str, Any]:
    version: dict[str, Any] = handler.calls[call]["body"]["version"]
    return version


def test_deliveries_follow_the_published_version_or_the_pinned_one(
    world: World,
    ingress: Ingress,
    worker: Worker,
    handler: RecordingHandler,
    second_handler: RecordingHandler,
) -> None:
    tool_id = register_handler(world, handler)  # version 1, PUBLISHED, at the first handler
    assert _add_version(world, tool_id, second_handler.url, VersionState.DRAFT) == 2
    following, following_key = _webhook(world, "follows published", _execution(tool_id))
    pinned, pinned_key = _webhook(
        world, "pinned to the draft", _execution(tool_id, {"versionState": "DRAFT", "versionNumber": 2})
    )
    stored = world.api.ok(world.owner, "get", {"webhookId": pinned})["webhook"]["webhookConfig"]
    assert stored["resourceExecutionConfig"]["version"] == {"versionState": "DRAFT", "versionNumber": 2}

    # No version object: the PUBLISHED version 1. Pinned: the DRAFT version 2's own endpoint.
    entry = _deliver(ingress, world, following, following_key, 1)
    assert entry["status"] == "SUCCESS"
    assert (len(handler.calls), len(second_handler.calls)) == (1, 0)
    assert _sent_version(handler) == {"versionState": "PUBLISHED", "versionNumber": 1}
    recorded = json.loads(entry["executionDetails"]["resourceRequestJson"])
    assert recorded["version"] == {"versionState": "PUBLISHED", "versionNumber": 1}
    assert _deliver(ingress, world, pinned, pinned_key, 1)["status"] == "SUCCESS"
    assert (len(handler.calls), len(second_handler.calls)) == (1, 1)
    assert _sent_version(second_handler) == {"versionState": "DRAFT", "versionNumber": 2}

    # Publishing version 2 moves the webhook without a version object onto it, unchanged.
    _publish_to_worker(world, tool_id, 2, VersionState.PUBLISHED)
    assert _deliver(ingress, world, following, following_key, 2)["status"] == "SUCCESS"
    assert (len(handler.calls), len(second_handler.calls)) == (1, 2)
    assert _sent_version(second_handler) == {"versionState": "PUBLISHED", "versionNumber": 2}

    # The webhook pinned to DRAFT version 2 no longer resolves: its delivery fails at once, not retried.
    failed = _deliver(ingress, world, pinned, pinned_key, 2)
    assert failed["status"] == "FAILED" and failed["attemptNumber"] == 1
    assert failed["executionDetails"]["errorMessage"] == (
        f"Handler TOOL {tool_id} version 2 is PUBLISHED, not DRAFT"
    )
    # maxRetries is 2: a retry would be queued in the transaction that recorded the failure.
    attempts = [e for e in history(world, pinned)["history"] if e["executionId"] == failed["executionId"]]
    assert len(attempts) == 1
    assert (len(handler.calls), len(second_handler.calls)) == (1, 2)

    # Archiving version 2 rolls the unpinned webhook back to the highest PUBLISHED version left, 1.
    _publish_to_worker(world, tool_id, 2, VersionState.ARCHIVED)
    assert _deliver(ingress, world, following, following_key, 3)["status"] == "SUCCESS"
    assert (len(handler.calls), len(second_handler.calls)) == (2, 2)
    assert _sent_version(handler) == {"versionState": "PUBLISHED", "versionNumber": 1}


def test_create_and_update_refuse_a_version_that_does_not_resolve(
    world: World, handler: RecordingHandler
) -> None:
    tool_id = register_handler(world, handler)
    before = world.api.ok(world.owner, "get-all", {})["webhooks"]
    cases: list[tuple[dict[str, Any], str]] = [
        ({"versionState": "DRAFT"}, f"TOOL {tool_id} has no DRAFT version"),
        ({"versionState": "PUBLISHED", "versionNumber": 7}, f"TOOL {tool_id} has no PUBLISHED version 7"),
        (
            {"versionState": "ARCHIVED", "versionNumber": 1},
            f"TOOL {tool_id} version 1 is PUBLISHED, not ARCHIVED",
        ),
    ]
    for version, message in cases:
        config = {"name": "refused", "resourceExecutionConfig": _execution(tool_id, version)}
        answer = world.api.call(world.owner, "create", {"webhookConfig": config})
        assert answer.status_code == 400, answer.text
        assert answer.json()["errors"] == [f"webhookConfig.resourceExecutionConfig.version: {message}"]
    assert world.api.ok(world.owner, "get-all", {})["webhooks"] == before  # nothing stored

    webhook_id, _ = _webhook(world, "kept", _execution(tool_id))
    config = {"name": "changed", "resourceExecutionConfig": _execution(tool_id, {"versionNumber": 3})}
    answer = world.api.call(world.owner, "update", {"webhookId": webhook_id, "webhookConfig": config})
    assert answer.status_code == 400
    assert answer.json()["errors"] == [
        f"webhookConfig.resourceExecutionConfig.version: TOOL {tool_id} has no PUBLISHED version 3"
    ]
    kept = world.api.ok(world.owner, "get", {"webhookId": webhook_id})["webhook"]["webhookConfig"]
    assert kept["name"] == "kept" and "version" not in kept["resourceExecutionConfig"]

    # With no PUBLISHED version left, a config without a version object does not resolve either.
    _set_state(world, tool_id, 1, VersionState.ARCHIVED)
    answer = world.api.call(
        world.owner,
        "create",
        {"webhookConfig": {"name": "x", "resourceExecutionConfig": _execution(tool_id)}},
    )
    assert answer.status_code == 400
    assert answer.json()["errors"] == [
        f"webhookConfig.resourceExecutionConfig.version: TOOL {tool_id} has no PUBLISHED version"
    ]


def test_another_companys_versions_are_not_revealed(world: World) -> None:
    """A hostile company naming the victim's tool with a version gets the answer it gets without one."""
    _add_version(world, world.tool_id, "http://127.0.0.1:9/draft", VersionState.DRAFT)
    answers = []
    for version in (None, {"versionState": "DRAFT", "versionNumber": 2}, {"versionNumber": 99}):
        config = {"name": "probe", "resourceExecutionConfig": _execution(world.tool_id, version)}
        answer = world.api.call(world.outsider, "create", {"webhookConfig": config})
        answers.append((answer.status_code, answer.json()["errors"]))
    expected = (400, [f"Target resource does not belong to your company: TOOL (ID: {world.tool_id})"])
    assert answers == [expected] * 3
