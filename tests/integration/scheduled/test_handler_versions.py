"""Resource versions through a real worker: which version's endpoint a scheduled event calls when it fires.

Two recording handlers stand for two versions of one tool (v1 and v2 have different endpoints)."""

from __future__ import annotations

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
from tests.fixtures.two_workers import wait_until
from tests.fixtures.worker import Worker
from tests.integration.scheduled.conftest import Scene, tool_event
from tests.integration.scheduled.test_actions import final_run
from tests.integration.scheduled.test_firing import handler_tool, make_due, once_in, runs

pytestmark = pytest.mark.integration


@pytest.fixture
def second_handler(tmp_path: Path) -> Iterator[RecordingHandler]:
    with serving(RecordingHandler(log_path=tmp_path / "second-handler.log")) as recorder:
        yield recorder


def _add_draft(scene: Scene, tool_id: str, endpoint: str) -> int:
    with scene.db.sessions.begin() as session:
        spec = VersionSpec(resource_id=tool_id, endpoint=endpoint, state=VersionState.DRAFT)
        return resources.create_version(session, spec).version_number


def _event(tool_id: str, version: dict[str, Any] | None, seconds: int = 3) -> dict[str, Any]:
    body = tool_event(tool_id, scheduleSpec=once_in(seconds))
    if version is not None:
        body["toolConfig"]["version"] = version
    return body


def _calls_of(handler: RecordingHandler, event_id: str) -> list[dict[str, Any]]:
    return [call["body"] for call in handler.calls if call["body"]["eventId"] == event_id]


def test_an_event_pinned_to_a_draft_calls_that_version_and_others_the_published_one(
    scene: Scene, worker: Worker, handler: RecordingHandler, second_handler: RecordingHandler
) -> None:
    tool_id = handler_tool(scene, handler)  # version 1, PUBLISHED, at the first handler
    assert _add_draft(scene, tool_id, second_handler.url) == 2
    pinned = scene.ok("create", _event(tool_id, {"versionState": "DRAFT", "versionNumber": 2}))["eventId"]
    latest_draft = scene.ok("create", _event(tool_id, {"versionState": "DRAFT"}))["eventId"]
    published = scene.ok("create", _event(tool_id, None))["eventId"]
    stored = scene.ok("get", {"scheduledEventId": pinned})["scheduledEvent"]["toolConfig"]
    assert stored["version"] == {"versionState": "DRAFT", "versionNumber": 2}

    for event_id in (pinned, latest_draft, published):
        assert final_run(scene.client, scene.admin_key, event_id)["status"] == "SUCCEEDED"
    draft = {"versionState": "DRAFT", "versionNumber": 2}
    assert [call["version"] for call in _calls_of(second_handler, pinned)] == [draft]
    assert [call["version"] for call in _calls_of(second_handler, latest_draft)] == [draft]
    assert [call["version"] for call in _calls_of(handler, published)] == [
        {"versionState": "PUBLISHED", "versionNumber": 1}
    ]
    assert not _calls_of(handler, pinned) and not _calls_of(second_handler, published)


def test_an_event_without_a_version_follows_what_is_published_at_each_fire(
    scene: Scene, worker: Worker, handler: RecordingHandler, second_handler: RecordingHandler
) -> None:
    tool_id = handler_tool(scene, handler)
    _add_draft(scene, tool_id, second_handler.url)
    every_minute = {"pattern": "EVERY", "every": {"value": 1, "unit": "MINUTES"}}
    event_id = scene.ok("create", tool_event(tool_id, scheduleSpec=every_minute))["eventId"]
    make_due(scene.db, scene.company_id, event_id)
    wait_until(lambda: [r for r in runs(scene, event_id) if r["status"] == "SUCCEEDED"])
    with scene.db.sessions.begin() as session:
        spec = VersionStateSpec(resource_id=tool_id, version_number=2, state=VersionState.PUBLISHED)
        resources.set_version_state(session, spec)
    time.sleep(HANDLER_CACHE_SECONDS + 0.5)  # past the worker's cache of the tool's versions
    make_due(scene.db, scene.company_id, event_id)
    wait_until(lambda: len([r for r in runs(scene, event_id) if r["status"] == "SUCCEEDED"]) == 2)
    assert [call["version"] for call in _calls_of(handler, event_id)] == [
        {"versionState": "PUBLISHED", "versionNumber": 1}
    ]
    assert [call["version"] for call in _calls_of(second_handler, event_id)] == [
        {"versionState": "PUBLISHED", "versionNumber": 2}
    ]


def test_a_version_gone_by_fire_time_fails_the_run(
    scene: Scene, worker: Worker, handler: RecordingHandler, second_handler: RecordingHandler
) -> None:
    tool_id = handler_tool(scene, handler)
    _add_draft(scene, tool_id, second_handler.url)
    event_id = scene.ok("create", _event(tool_id, {"versionState": "DRAFT", "versionNumber": 2}, 4))[
        "eventId"
    ]
    # Archived before the fire: the run resolves the version when it acts, not when it was created.
    with scene.db.sessions.begin() as session:
        spec = VersionStateSpec(resource_id=tool_id, version_number=2, state=VersionState.ARCHIVED)
        resources.set_version_state(session, spec)
    run = final_run(scene.client, scene.admin_key, event_id)
    assert run["status"] == "FAILED" and run["attemptNumber"] == 1
    assert run["errorMessage"].startswith(f"TOOL {tool_id} version 2 is ARCHIVED, not DRAFT")
    assert not handler.calls and not second_handler.calls
    # continueOnError is false: like a handler that is gone, the failure stops the event.
    event = wait_until(lambda: scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"])
    assert event["enabled"] is False


def test_create_and_update_refuse_a_version_that_does_not_resolve(scene: Scene) -> None:
    before = scene.ok("all", {})["ownedEvents"]
    answer = scene.call("create", _event(scene.tool_id, {"versionState": "DRAFT"}))
    assert answer.status_code == 400
    assert answer.json()["errors"] == [f"toolConfig.version: TOOL {scene.tool_id} has no DRAFT version"]
    body = {
        "eventName": "digest",
        "scheduleSpec": once_in(60),
        "actionType": "INVOKE_AGENT",
        "agentConfig": {
            "agentExecutionRequest": {
                "agentId": scene.agent_id,
                "input": [{"inputType": "TEXT", "content": "x"}],
            },
            "version": {"versionNumber": 4},
        },
    }
    answer = scene.call("create", body)
    assert answer.status_code == 400
    assert answer.json()["errors"] == [
        f"agentConfig.version: AGENT {scene.agent_id} has no PUBLISHED version 4"
    ]
    assert scene.ok("all", {})["ownedEvents"] == before  # nothing stored

    event_id = scene.ok("create", _event(scene.tool_id, None, 60))["eventId"]
    pinned = tool_event(scene.tool_id)["toolConfig"] | {
        "version": {"versionState": "ARCHIVED", "versionNumber": 1}
    }
    answer = scene.call("update", {"scheduledEventId": event_id, "toolConfig": pinned})
    assert answer.status_code == 400
    assert answer.json()["errors"] == [
        f"toolConfig.version: TOOL {scene.tool_id} version 1 is PUBLISHED, not ARCHIVED"
    ]
    kept = scene.ok("get", {"scheduledEventId": event_id})["scheduledEvent"]["toolConfig"]
    assert "version" not in kept
    # A hostile company naming the victim's tool with a version gets the answer it gets without one.
    for version in (None, {"versionState": "DRAFT", "versionNumber": 2}):
        answer = scene.call("create", _event(scene.tool_id, version), key=scene.other_key)
        assert (answer.status_code, answer.json()["errors"]) == (
            400,
            ["Target resource does not belong to your company"],
        )
