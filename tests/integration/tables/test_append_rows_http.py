"""append-rows over HTTP: which error wins when several apply, and large bodies (converted off the loop)."""

from typing import Any

import pytest
from sqlalchemy import select

from sinks.db.models import TableWrite
from sinks.iceberg.convert import from_ipc
from tests.fixtures.stack import Ingress
from tests.fixtures.tables import Tables

pytestmark = pytest.mark.integration


def post(tables: Tables, resource_id: str, body: Any, key: str | None = None) -> tuple[int, dict[str, Any]]:
    answer = tables.client.post(
        "/clients/svcdb/analytics/append-rows",
        params={"resourceId": resource_id},
        headers={"Authorization": key or tables.admin_client},
        json=body,
    )
    return answer.status_code, answer.json()


def test_body_errors_come_before_table_errors(tables_world: Tables, ingress: Ingress) -> None:
    table_id = tables_world.create()
    missing = "f" * 32
    status, answer = post(tables_world, missing, {"tableId": missing, "rows": {}})
    assert (status, answer["errors"]) == (400, ["rows: Input should be a valid array"])
    status, answer = post(tables_world, missing, {"tableId": table_id, "rows": []})
    assert (status, answer["errors"]) == (400, ["tableId must equal the resourceId query parameter"])
    status, answer = post(tables_world, missing, {"tableId": missing, "rows": [{}] * 10_001})
    assert (status, answer["errorCode"]) == (413, "ROW_LIMIT")
    status, answer = post(tables_world, missing, {"tableId": missing, "rows": []})
    assert (status, answer["errorCode"]) == (404, "NOT_FOUND")
    member = tables_world.member_client
    status, answer = post(tables_world, table_id, {"tableId": table_id, "rows": []}, member)
    assert (status, answer["errorCode"]) == (403, "FORBIDDEN")


def test_a_large_body_is_checked_and_stored_like_a_small_one(tables_world: Tables, ingress: Ingress) -> None:
    table_id = tables_world.create()
    rows: list[Any] = [{"order_id": i, "region": "r" * 200, "email": f"{i}@x.io"} for i in range(3_000)]
    rows[1_234] = {"order_id": "x"}
    status, answer = post(tables_world, table_id, {"tableId": table_id, "rows": rows})
    assert status == 200, answer
    assert answer["accepted"] == 2_999
    message = 'column "order_id": expected an integer, got string "x"'
    assert answer["errors"] == [{"index": 1_234, "message": message}]
    with tables_world.db.sessions() as session:
        query = select(TableWrite.payload_rows).where(TableWrite.id == answer["loadId"])
        stored = session.scalars(query).one()
    assert stored is not None
    table = from_ipc(stored)
    assert table.num_rows == 2_999
    # Masked columns are encrypted before the rows are stored.
    assert all(value.startswith("v1:") for value in table.column("email").to_pylist())
