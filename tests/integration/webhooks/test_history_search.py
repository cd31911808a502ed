"""The history's svc additions: a time range on queuedAt, a text in the stored body, one execution's
attempts, each bounded by the search limit (docs/interface.md, "Execution history")."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from schemas.webhooks import ExecutionStatus
from sinks.db.models import WebhookExecution, WebhookPayload
from sinks.db.webhooks import history_search
from tests.integration.webhooks.conftest import World
from tests.integration.webhooks.delivery_helpers import add_history_entry

pytestmark = pytest.mark.integration

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
HISTORY = "get-execution-history"


def _add(world: World, webhook_id: str, n: int, body: str, status: ExecutionStatus, attempt: int = 1) -> None:
    # A retry is queued after the attempt before it, as the worker queues it.
    queued_at = T0 + timedelta(minutes=n, seconds=attempt - 1)
    add_history_entry(
        world, webhook_id, n, queued_at=queued_at, status=status.value, body=body, attempt=attempt
    )


def _seed(world: World, webhook_id: str, count: int) -> None:
    """Execution n queued at T0 + n minutes, body {"order": "ord-n", ...}, FAILED when n is odd."""
    for n in range(count):
        status = ExecutionStatus.FAILED if n % 2 else ExecutionStatus.SUCCESS
        _add(world, webhook_id, n, json.dumps({"order": f"ord-{n}", "note": "Gift 100% wrapped"}), status)


def _history(world: World, body: dict[str, Any]) -> dict[str, Any]:
    return world.api.ok(world.owner, HISTORY, body)


def _ids(answer: dict[str, Any]) -> list[int]:
    return [int(entry["executionId"], 16) for entry in answer["history"]]


def test_a_time_range_keeps_entries_queued_from_from_until_before_to(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    _seed(world, webhook_id, 10)
    answer = _history(
        world, {"webhookId": webhook_id, "from": "2026-11-01T12:02:00Z", "to": "2026-11-01T13:06:00+01:00"}
    )
    assert _ids(answer) == [5, 4, 3, 2]
    assert (answer["totalElements"], answer["totalPages"], answer["searchLimited"]) == (4, 1, False)
    failed = _history(world, {"webhookId": webhook_id, "status": "FAILED", "from": "2026-11-01T12:03:00Z"})
    assert _ids(failed) == [9, 7, 5, 3]
    paged = _history(world, {"webhookId": webhook_id, "to": "2026-11-01T12:07:00Z", "size": 3, "page": 1})
    assert _ids(paged) == [3, 2, 1]
    assert (paged["totalElements"], paged["totalPages"], paged["currentPage"]) == (7, 3, 1)
    assert _history(world, {"webhookId": webhook_id})["searchLimited"] is False


def test_body_contains_is_a_plain_case_sensitive_substring(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    _seed(world, webhook_id, 12)
    assert _ids(_history(world, {"webhookId": webhook_id, "bodyContains": '"ord-1'})) == [11, 10, 1]
    # % and _ are plain characters, not patterns; the case counts.
    assert len(_history(world, {"webhookId": webhook_id, "bodyContains": "100%"})["history"]) == 12
    assert _history(world, {"webhookId": webhook_id, "bodyContains": "o_d"})["totalElements"] == 0
    assert _history(world, {"webhookId": webhook_id, "bodyContains": "gift"})["totalElements"] == 0
    both = _history(
        world,
        {"webhookId": webhook_id, "bodyContains": "ord-1", "status": "FAILED", "to": "2026-11-01T12:11:00Z"},
    )
    assert _ids(both) == [1]


def test_a_body_kept_in_the_object_store_is_not_searched(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    _seed(world, webhook_id, 2)
    with world.db.sessions.begin() as session:
        by_reference = session.query(WebhookExecution).filter_by(execution_id=f"{1:032x}").one()
        payload = session.get(WebhookPayload, by_reference.payload_id)
        assert payload is not None
        payload.body_key = "bodies/elsewhere"  # as a large body's row: the text stays out of the search
    assert _ids(_history(world, {"webhookId": webhook_id, "bodyContains": "ord-"})) == [0]


def test_the_search_reads_only_the_newest_entries_of_the_range_and_says_so(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history_search, "SEARCH_LIMIT", 4)
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    _seed(world, webhook_id, 10)
    texted = _history(world, {"webhookId": webhook_id, "bodyContains": "ord-"})
    assert _ids(texted) == [9, 8, 7, 6] and texted["searchLimited"] is True
    assert _history(world, {"webhookId": webhook_id, "bodyContains": "ord-1"})["totalElements"] == 0
    ranged = _history(world, {"webhookId": webhook_id, "from": "2026-11-01T12:00:00Z"})
    assert (ranged["totalElements"], ranged["searchLimited"]) == (4, True)
    narrow = _history(world, {"webhookId": webhook_id, "to": "2026-11-01T12:04:00Z", "bodyContains": "ord-1"})
    assert _ids(narrow) == [1] and narrow["searchLimited"] is False


def test_execution_id_answers_every_attempt_of_that_execution(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    _seed(world, webhook_id, 3)
    _add(world, webhook_id, 1, "{}", ExecutionStatus.FAILED, attempt=2)
    _add(world, webhook_id, 1, "{}", ExecutionStatus.SUCCESS, attempt=3)
    answer = _history(world, {"webhookId": webhook_id, "executionId": f"{1:032x}"})
    assert [entry["attemptNumber"] for entry in answer["history"]] == [3, 2, 1]
    assert [entry["status"] for entry in answer["history"]] == ["SUCCESS", "FAILED", "FAILED"]
    other = world.api.create(world.owner)["webhook"]["id"]
    assert _history(world, {"webhookId": other, "executionId": f"{1:032x}"})["history"] == []


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"bodyContains": ""}, "bodyContains"),
        ({"bodyContains": "x" * 201}, "bodyContains"),
        ({"from": "2026-11-01T12:00:00"}, "from"),
        ({"to": "yesterday"}, "to"),
        ({"from": "2026-11-02T00:00:00Z", "to": "2026-11-01T00:00:00Z"}, "from must be before to"),
        ({"executionId": ""}, "executionId"),
    ],
)
def test_bad_filters_are_400_in_the_interfaces_format(
    world: World, body: dict[str, Any], message: str
) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    answer = world.api.call(world.owner, HISTORY, {"webhookId": webhook_id, **body})
    assert answer.status_code == 400
    errors = answer.json()["errors"]
    assert errors and any(message in error for error in errors), errors
