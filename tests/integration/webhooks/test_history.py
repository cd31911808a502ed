import json
from datetime import UTC, datetime, timedelta

import pytest

from schemas.webhooks import ExecutionStatus
from sinks.db.models import WebhookExecution
from sinks.db.webhooks import executions
from tests.integration.webhooks.conftest import World

pytestmark = pytest.mark.integration

ENTRY_FIELDS = {
    "id",
    "executionId",
    "webhookId",
    "resourceType",
    "resourceId",
    "queuedAt",
    "startedAt",
    "endedAt",
    "durationMs",
    "status",
    "attemptNumber",
    "executionDetails",
    "waitedMs",  # an addition to the spec (issue 44): the time the attempt waited for its destination
}
DETAIL_FIELDS = {
    "webhookName",
    "httpMethod",
    "sourceIp",
    "requestHeaders",
    "requestPayload",
    "requestPayloadError",  # an addition to the spec (issue 43): why a body kept by reference is not there
    "requestQueryParams",  # an addition to the spec: the query parameters, key redacted
    "transformType",
    "transformedVariables",
    "transformError",
    "resourceRequestJson",
    "resourceResponseJson",
    "errorMessage",
    "replayOf",  # an addition to the spec (issue 24): the execution a replay re-ran, null otherwise
    "traceId",  # an addition to the spec (issue 24): the delivery's W3C trace id
}
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def seed(world: World, webhook_id: str, statuses: list[ExecutionStatus]) -> None:
    with world.db.sessions.begin() as session:
        for n, status in enumerate(statuses):
            payload_id = executions.store_payload(
                session,
                world.company_id,
                webhook_id,
                json.dumps({"n": n}),
                json.dumps({"content-type": "application/json"}),
            )
            executions.add_entry(
                session,
                WebhookExecution(
                    execution_id=f"{n:032x}",
                    webhook_id=webhook_id,
                    company_id=world.company_id,
                    payload_id=payload_id,
                    attempt_number=1,
                    status=ExecutionStatus.QUEUED.value,
                    resource_type="TOOL",
                    resource_id=world.tool_id,
                    queued_at=T0 + timedelta(seconds=n),
                    webhook_name="orders",
                    http_method="POST",
                    source_ip="127.0.0.1",
                    transform_type="JSONPATH",
                    transformed_variables=json.dumps({"n": str(n)}),
                ),
            )
            entry = session.query(WebhookExecution).filter_by(execution_id=f"{n:032x}").one()
            executions.set_status(session, entry, status)


def test_history_pages_newest_first_with_totals(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    statuses = [ExecutionStatus.SUCCESS, ExecutionStatus.FAILED, ExecutionStatus.QUEUED] * 15  # 45 entries
    seed(world, webhook_id, statuses)
    first = world.api.ok(world.owner, "get-execution-history", {"webhookId": webhook_id})
    assert (first["totalElements"], first["totalPages"], first["currentPage"]) == (45, 3, 0)
    assert len(first["history"]) == 20
    assert [e["executionId"] for e in first["history"]][:2] == [f"{44:032x}", f"{43:032x}"]
    entry = first["history"][0]
    assert set(entry) == ENTRY_FIELDS
    assert set(entry["executionDetails"]) == DETAIL_FIELDS
    assert entry["queuedAt"] == "2026-11-01T12:00:44.000"
    assert entry["startedAt"] is None and entry["endedAt"] is None
    assert entry["executionDetails"]["requestPayload"] == '{"n": 44}'
    assert entry["attemptNumber"] == 1

    last = world.api.ok(
        world.owner, "get-execution-history", {"webhookId": webhook_id, "page": 2, "size": 20}
    )
    assert len(last["history"]) == 5
    assert last["history"][-1]["executionId"] == f"{0:032x}"
    beyond = world.api.ok(world.owner, "get-execution-history", {"webhookId": webhook_id, "page": 9})
    assert beyond["history"] == [] and beyond["totalElements"] == 45


def test_status_filter(world: World) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    seed(world, webhook_id, [ExecutionStatus.SUCCESS, ExecutionStatus.FAILED, ExecutionStatus.FAILED])
    failed = world.api.ok(
        world.owner, "get-execution-history", {"webhookId": webhook_id, "status": "FAILED", "size": 1}
    )
    assert (failed["totalElements"], failed["totalPages"]) == (2, 2)
    assert [e["status"] for e in failed["history"]] == ["FAILED"]
    none = world.api.ok(
        world.owner, "get-execution-history", {"webhookId": webhook_id, "status": "TRANSFORM_FAILED"}
    )
    assert none == {
        "history": [],
        "totalPages": 0,
        "totalElements": 0,
        "currentPage": 0,
        "searchLimited": False,
        "errors": [],
    }


@pytest.mark.parametrize(
    "body",
    [{"size": 0}, {"size": 101}, {"page": -1}, {"status": "DONE"}, {"size": "many"}],
)
def test_bad_paging_is_400(world: World, body: dict[str, object]) -> None:
    webhook_id = world.api.create(world.owner)["webhook"]["id"]
    answer = world.api.call(world.owner, "get-execution-history", {"webhookId": webhook_id, **body})
    assert answer.status_code == 400
    assert answer.json()["errors"]


def test_history_of_another_webhook_is_not_mixed_in(world: World) -> None:
    one = world.api.create(world.owner)["webhook"]["id"]
    two = world.api.create(world.owner)["webhook"]["id"]
    seed(world, one, [ExecutionStatus.SUCCESS])
    assert world.api.ok(world.owner, "get-execution-history", {"webhookId": two})["totalElements"] == 0
    deleted = world.api.ok(world.owner, "delete", {"webhookId": one})
    assert deleted["deleted"]
    with world.db.sessions() as session:
        assert session.query(WebhookExecution).filter_by(webhook_id=one).count() == 0
