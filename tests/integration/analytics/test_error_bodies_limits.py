"""The analytics error body for the refusals of two limits a test lowers: the body-size limit and the rate
limits. Kept apart from test_error_bodies.py, whose tests share one stack: each of these needs settings the
others must not have, so each has a stack of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schemas.settings import Settings
from tests.fixtures.stack import make_settings
from tests.fixtures.tables import Tables
from tests.fixtures.windows import with_window_left
from tests.integration.analytics.test_error_bodies import BASE, assert_failure, post

pytestmark = pytest.mark.integration


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_bootstrap: str, request: pytest.FixtureRequest) -> Settings:
    """The test's settings; a test parametrized indirectly with a dict overrides some of them."""
    extra: dict[str, Any] = getattr(request, "param", None) or {}
    return make_settings(tmp_path / "data", kafka_bootstrap=kafka_bootstrap, **extra)


@pytest.fixture
def orders(tables_world: Tables) -> str:
    return tables_world.create()


@pytest.mark.served  # the body limit is the HTTP server's, declared or streamed
@pytest.mark.parametrize("kafka_settings", [{"max_request_bytes": 4096}], indirect=True)
def test_a_body_over_the_size_limit_is_request_too_large(tables_world: Tables, orders: str) -> None:
    headers = {"Authorization": tables_world.admin_client, "Content-Type": "application/json"}
    rows = b"[" + b",".join([b'{"order_id": 1, "region": "EU"}'] * 200) + b"]"
    body = b'{"tableId": "' + orders.encode() + b'", "rows": ' + rows + b"}"
    declared = tables_world.client.post(
        f"{BASE}/append-rows", params={"resourceId": orders}, headers=headers, content=body
    )
    answer = assert_failure(declared, 413, "REQUEST_TOO_LARGE")
    assert answer["errors"] == ["Request body exceeds the limit of 4096 bytes"]

    def chunks() -> Iterator[bytes]:
        yield body[:1000]
        yield body[1000:]

    for operation in ("append-rows", "query"):
        streamed = tables_world.client.post(
            f"{BASE}/{operation}", params={"resourceId": orders}, headers=headers, content=chunks()
        )
        assert_failure(streamed, 413, "REQUEST_TOO_LARGE")
    # Another area keeps its own body.
    whoami = tables_world.client.post("/clients/whoami", headers=headers, content=body)
    assert whoami.status_code == 413 and set(whoami.json()) == {"errors"}


@pytest.mark.parametrize(
    "kafka_settings", [{"rate_limit_per_minute": 3, "auth_failures_per_minute": 3}], indirect=True
)
def test_a_rate_limit_is_rate_limited(tables_world: Tables, orders: str) -> None:
    client, key = tables_world.client, tables_world.admin_client
    with_window_left()  # the calls in one fixed window
    for _ in range(3):
        assert post(client, "describe", orders, {"tableId": orders}, key).status_code == 200
    refused = post(client, "describe", orders, {"tableId": orders}, key)
    body = assert_failure(refused, 429, "RATE_LIMITED")
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.headers["Retry-After"] in body["hint"]
    # Refused keys past their limit lock the address out: the same answer, even for a right key not used yet.
    for _ in range(3):
        assert post(client, "describe", orders, {"tableId": orders}, "svck_wrong").status_code == 401
    locked = post(client, "describe", orders, {"tableId": orders}, tables_world.member_client)
    assert_failure(locked, 429, "RATE_LIMITED")
    assert int(locked.headers["Retry-After"]) >= 1
