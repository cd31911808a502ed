"""Every failed analytics call answers ``{"errorCode", "errors", "hint"}``, also the refusals raised by what
all areas share (request validation, keys, rate limits, the body-size limit), and a row count over its cap is
413 ROW_LIMIT whichever field carries it, with a hint naming the field and the cap. Other areas keep their
own bodies. (The refusals of the body-size and rate limits, which need lower limits than these tests run
with: test_error_bodies_limits.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from schemas.jobs import MAX_PAGE_SIZE
from schemas.settings import Settings
from schemas.tables import MAX_PREVIEW_ROWS
from tests.fixtures import module_stack
from tests.fixtures.stack import Ingress, make_settings
from tests.fixtures.tables import ORDER_ROWS, Tables
from tests.fixtures.worker import Worker

pytestmark = pytest.mark.integration

BASE = "/clients/svcdb/analytics"
ORDERS_SQL = "SELECT order_id, email FROM orders ORDER BY 1"


# The module's one stack (tests/fixtures/module_stack.py); each test has its own companies and table. Only
# the wrong-key test is refused a key, far fewer times than the default limit of refusals per address.
stack_dir, ingress_db, ingress, worker = module_stack.FIXTURES


@pytest.fixture(scope="module")
def kafka_settings(stack_dir: Path, kafka_bootstrap: str) -> Settings:
    return make_settings(stack_dir / "data", kafka_bootstrap=kafka_bootstrap)


@pytest.fixture
def orders(tables_world: Tables) -> str:
    return tables_world.create()


@pytest.fixture
def finished_job(tables_world: Tables, worker: Worker, orders: str) -> str:
    """A SUCCEEDED query over the four order rows (its result has 4 rows and a masked email column)."""
    appended = tables_world.analytics("append-rows", orders, {"rows": ORDER_ROWS})
    assert appended.status_code == 200, appended.text
    tables_world.wait_rows(orders, len(ORDER_ROWS))
    ran = tables_world.analytics("query", orders, {"sql": ORDERS_SQL, "waitMs": 20_000})
    assert ran.status_code == 200 and ran.json()["state"] == "SUCCEEDED", ran.text
    return str(ran.json()["jobId"])


def assert_failure(answer: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The analytics error shape: the status, its code, at least one message and a hint."""
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()
    assert set(body) == {"errorCode", "errors", "hint"}, body
    assert body["errorCode"] == code, body
    assert body["errors"] and all(isinstance(m, str) and m for m in body["errors"]), body
    assert isinstance(body["hint"], str) and body["hint"], body
    return body


def assert_row_limit(answer: httpx.Response, field: str, cap: int) -> None:
    body = assert_failure(answer, 413, "ROW_LIMIT")
    assert field in body["hint"] and f"{cap:d}" in body["hint"], body
    assert field in body["errors"][0] and f"{cap:d}" in body["errors"][0], body


def post(client: httpx.Client, operation: str, table_id: str, body: Any, key: str | None) -> httpx.Response:
    headers = {"Authorization": key} if key is not None else {}
    return client.post(f"{BASE}/{operation}", params={"resourceId": table_id}, headers=headers, json=body)


def test_a_request_that_fails_validation_is_invalid_request(tables_world: Tables, orders: str) -> None:
    key, client = tables_world.admin_client, tables_world.client
    unknown = assert_failure(
        tables_world.analytics("query", orders, {"sql": "SELECT 1", "surprise": 1}), 400, "INVALID_REQUEST"
    )
    assert unknown["errors"] == ["surprise: Extra inputs are not permitted"]
    not_json = client.post(
        f"{BASE}/describe",
        params={"resourceId": orders},
        headers={"Authorization": key, "Content-Type": "application/json"},
        content=b"{not json",
    )
    assert_failure(not_json, 400, "INVALID_REQUEST")
    no_resource = client.post(f"{BASE}/describe", headers={"Authorization": key}, json={"tableId": orders})
    assert "resourceId" in assert_failure(no_resource, 400, "INVALID_REQUEST")["errors"][0]
    crossed = assert_failure(
        post(client, "describe", "other", {"tableId": orders}, key), 400, "INVALID_REQUEST"
    )
    assert crossed["errors"] == ["tableId must equal the resourceId query parameter"]
    not_rows = assert_failure(
        tables_world.analytics("append-rows", orders, {"rows": 3}), 400, "INVALID_REQUEST"
    )
    assert not_rows["errors"] == ["rows: Input should be a valid array"]
    # A row count below 1 is a bad request, not a limit.
    for operation, body in (
        ("preview", {"limit": 0}),
        ("job-results", {"jobId": "f" * 32, "pageSize": 0}),
        ("query", {"sql": "SELECT order_id FROM orders", "maxRows": 0}),
    ):
        assert_failure(tables_world.analytics(operation, orders, body), 400, "INVALID_REQUEST")
    # Another area keeps its own body.
    whoami = client.post("/clients/whoami", headers={"Authorization": key}, json={"surprise": 1})
    assert whoami.status_code == 400
    assert whoami.json() == {"errors": ["surprise: Extra inputs are not permitted"]}


def test_a_missing_or_wrong_key_is_unauthorized(tables_world: Tables, orders: str) -> None:
    client = tables_world.client
    missing = assert_failure(post(client, "describe", orders, {"tableId": orders}, None), 401, "UNAUTHORIZED")
    assert missing["errors"][0].startswith("Missing API key")
    for wrong in (
        tables_world.admin_client + "x",
        tables_world.admin_power,
        f"Bearer {tables_world.admin_client}",
    ):
        refused = assert_failure(
            post(client, "describe", orders, {"tableId": orders}, wrong), 401, "UNAUTHORIZED"
        )
        assert refused["errors"] == ["Invalid API key"]
    # Other areas keep their bodies: the client API's {"errors"}, the trigger's {"error"}.
    whoami = client.post("/clients/whoami", headers={"Authorization": "svck_wrong"}, json={})
    assert whoami.status_code == 401 and whoami.json() == {"errors": ["Invalid API key"]}
    trigger = client.post("/clients/custom-webhooks", json={})
    assert trigger.status_code == 401 and trigger.json() == {"error": "No webhook ID provided."}


def test_a_wrong_method_is_method_not_allowed(tables_world: Tables, orders: str) -> None:
    answer = tables_world.client.get(
        f"{BASE}/describe",
        params={"resourceId": orders},
        headers={"Authorization": tables_world.admin_client},
    )
    body = assert_failure(answer, 405, "METHOD_NOT_ALLOWED")
    assert "POST" in body["hint"]


def test_reveal_row_and_reveal_column_come_together(
    tables_world: Tables, orders: str, finished_job: str
) -> None:
    for half in ({"revealRow": 0}, {"revealColumn": "email"}):
        answer = tables_world.analytics("job-results", orders, {"jobId": finished_job, **half})
        body = assert_failure(answer, 400, "INVALID_REQUEST")
        assert "revealRow" in body["errors"][0] and "revealColumn" in body["errors"][0]
    whole = tables_world.analytics(
        "job-results", orders, {"jobId": finished_job, "revealRow": 0, "revealColumn": "email"}
    )
    assert whole.status_code == 200 and whole.json()["revealedCell"]["value"] == "a@x.io", whole.text


def test_a_reveal_row_past_the_result_is_invalid_request(
    tables_world: Tables, orders: str, finished_job: str
) -> None:
    past = {"jobId": finished_job, "revealRow": 4, "revealColumn": "email"}
    body = assert_failure(tables_world.analytics("job-results", orders, past), 400, "INVALID_REQUEST")
    assert "4" in body["errors"][0] and "0 to 3" in body["hint"]
    last = tables_world.analytics("job-results", orders, {**past, "revealRow": 3})
    assert last.status_code == 200 and last.json()["revealedCell"]["value"] == "c@z.io", last.text


def test_a_page_size_over_its_cap_is_row_limit(tables_world: Tables, orders: str) -> None:
    answer = tables_world.analytics("job-results", orders, {"jobId": "f" * 32, "pageSize": MAX_PAGE_SIZE + 1})
    assert_row_limit(answer, "pageSize", MAX_PAGE_SIZE)


def test_a_preview_limit_over_its_cap_is_row_limit(tables_world: Tables, orders: str) -> None:
    answer = tables_world.analytics("preview", orders, {"limit": MAX_PREVIEW_ROWS + 1})
    assert_row_limit(answer, "limit", MAX_PREVIEW_ROWS)
    at_cap = tables_world.analytics("preview", orders, {"limit": MAX_PREVIEW_ROWS})
    assert at_cap.status_code == 200, at_cap.text


def test_max_rows_over_the_plans_limit_is_row_limit(
    tables_world: Tables, orders: str, ingress: Ingress
) -> None:
    cap = ingress.settings.query_max_result_rows
    body = {"sql": "SELECT order_id FROM orders", "maxRows": cap + 1}
    refused = assert_failure(tables_world.analytics("query", orders, body), 413, "ROW_LIMIT")
    assert "maxRows" in refused["hint"] and "maxRows" in refused["errors"][0]
    assert f"{cap:d}" in refused["errors"][0]


def test_max_rows_refusal_names_the_cap_in_its_hint(
    tables_world: Tables, orders: str, ingress: Ingress
) -> None:
    cap = ingress.settings.query_max_result_rows
    body = {"sql": "SELECT order_id FROM orders", "maxRows": cap + 1}
    assert_row_limit(tables_world.analytics("query", orders, body), "maxRows", cap)
